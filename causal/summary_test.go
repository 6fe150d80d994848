package causal

import (
	"strings"
	"testing"
)

// TestSummaryPlaceholders keeps every {placeholder} of a rule's summary
// fillable: an unknown one would print as nothing.
func TestSummaryPlaceholders(t *testing.T) {
	for _, r := range rules {
		for _, p := range placeholder.FindAllString(r.Summary, -1) {
			name := strings.Trim(p, "{}")
			if _, ok := r.Values[name]; ok {
				continue
			}
			if _, ok := commonValues[name]; !ok {
				t.Errorf("rule %s: summary placeholder %s has no value", r.ID, p)
			}
		}
	}
}

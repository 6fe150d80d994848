package causal

import (
	"regexp"
	"sort"
	"strings"

	"github.com/polylane/polylane/causal/catalogue"
)

// RuleInfo is what TestEveryMechanism checks of a declared rule.
type RuleInfo struct {
	ID       string
	Category Category
	HasFix   bool
	// Catalogued is set when the rule also recognises the families that
	// name it (not only its own Cause patterns).
	Catalogued   bool
	Cause, Not   []*regexp.Regexp
	Placeholders []string
	// Unresolved are placeholders of the summary that neither the rule's
	// values nor the common values fill; Unused are the rule's values its
	// summary never uses.
	Unresolved, Unused []string
}

// Rules describes the ordered rule set for tests.
func Rules() []RuleInfo {
	var out []RuleInfo
	for _, r := range rules {
		info := RuleInfo{ID: r.ID, Category: r.Category, HasFix: r.Fix != nil, Catalogued: r.Catalogued, Cause: r.Cause, Not: r.Not}
		if r.fallback {
			// A category's catalogue rule matches what its families match.
			for _, f := range catalogue.Default.Families() {
				if f.Rule == "" && f.Category == string(r.Category) {
					for _, p := range f.Patterns {
						info.Cause = append(info.Cause, regexp.MustCompile(p))
					}
				}
			}
		}
		used := map[string]bool{}
		for _, p := range placeholder.FindAllString(r.Summary, -1) {
			name := strings.Trim(p, "{}")
			used[name] = true
			info.Placeholders = append(info.Placeholders, name)
			_, own := r.Values[name]
			_, common := commonValues[name]
			if !own && !common {
				info.Unresolved = append(info.Unresolved, name)
			}
		}
		for name := range r.Values {
			if !used[name] {
				info.Unused = append(info.Unused, name)
			}
		}
		sort.Strings(info.Unused)
		out = append(out, info)
	}
	return out
}

package main

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeListsEverySetting fails when README.md's configuration table
// misses a setting, describes it differently from the code, or lists a
// setting the code does not have. On failure it prints the rows to paste.
func TestReadmeListsEverySetting(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]bool{}
	var readmeVars []string
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		lines[l] = true
		if strings.HasPrefix(l, "| `POLYLANE_") {
			name, _, _ := strings.Cut(strings.TrimPrefix(l, "| `"), "`")
			readmeVars = append(readmeVars, name)
		}
	}
	known := map[string]bool{}
	var missing []string
	for _, s := range settings {
		known[s.Env] = true
		if row := markdownRow(s); !lines[row] {
			missing = append(missing, row)
		}
	}
	if len(missing) > 0 {
		t.Errorf("README.md's configuration table lacks or differs on these rows:\n%s", strings.Join(missing, "\n"))
	}
	for _, v := range readmeVars {
		if !known[v] {
			t.Errorf("README.md lists %s, which is not in the settings table", v)
		}
	}
}

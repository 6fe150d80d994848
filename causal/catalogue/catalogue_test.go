package catalogue_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/polylane/polylane/causal"
	"github.com/polylane/polylane/causal/catalogue"
)

// TestCatalogue loads the shipped catalogue (the loader checks each family:
// fields, patterns compile, every match example matches and every nomatch
// example does not) and checks what the loader cannot: categories and the
// rules families feed exist.
func TestCatalogue(t *testing.T) {
	c := catalogue.Default
	if c.Len() == 0 {
		t.Fatal("the catalogue is empty")
	}
	rules := map[string]bool{}
	for _, r := range causal.RuleIDs() {
		rules[r] = true
	}
	recipes := map[string]bool{}
	for _, r := range causal.RecipeNames() {
		recipes[r] = true
	}
	for _, f := range c.Families() {
		if !causal.Category(f.Category).Known() {
			t.Errorf("%s (%s): unknown category %q", f.ID, f.File, f.Category)
		}
		if f.Rule != "" && !rules[f.Rule] {
			t.Errorf("%s (%s): feeds rule %q, which does not exist", f.ID, f.File, f.Rule)
		}
		if fallback := f.Category + "/catalogued"; f.Rule == "" && !rules[fallback] {
			t.Errorf("%s (%s): names no rule, and its category has no catalogue rule (%s in causal/mech_catalogued.go) to recognise it", f.ID, f.File, fallback)
		}
		if f.Fix != "" && !recipes[f.Fix] {
			t.Errorf("%s (%s): names the fix recipe %q, which causal/recipes.go does not have", f.ID, f.File, f.Fix)
		}
		if f.Rule != "" && !strings.HasPrefix(f.Rule, f.Category+"/") {
			t.Errorf("%s (%s): rule %s is not of its category %s", f.ID, f.File, f.Rule, f.Category)
		}
	}
	t.Logf("%d families", c.Len())
}

// TestLoadRefusesBadFamilies: a family that fails to compile, lacks test
// lines or sources, or whose examples disagree with its patterns is refused
// with a message naming it.
func TestLoadRefusesBadFamilies(t *testing.T) {
	good := "- id: t/x\n  tool: t\n  category: timeout\n  what: w\n  patterns: ['boom']\n  match: ['boom']\n  nomatch: ['bang']\n  sources: ['https://example.org/a']\n"
	tests := []struct{ name, yaml, want string }{
		{"bad pattern", strings.Replace(good, "'boom']\n  match", "'(boom']\n  match", 1), "pattern"},
		{"no nomatch", strings.Replace(good, "  nomatch: ['bang']\n", "", 1), "near misses"},
		{"no source", strings.Replace(good, "  sources: ['https://example.org/a']\n", "", 1), "no public source"},
		{"match fails", strings.Replace(good, "match: ['boom']", "match: ['bam']", 1), "does not match"},
		{"nomatch matches", strings.Replace(good, "nomatch: ['bang']", "nomatch: ['boom!']", 1), "nomatch example"},
		{"duplicate", good + strings.TrimPrefix(good, ""), "also declared"},
		{"plain http source", strings.Replace(good, "https://example", "http://example", 1), "https"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := catalogue.Load(fstest.MapFS{"families/a.yaml": {Data: []byte(tt.yaml)}})
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "t/x") {
				t.Errorf("Load = %v, want an error naming t/x and saying %q", err, tt.want)
			}
		})
	}
	if _, err := catalogue.Load(fstest.MapFS{"families/a.yaml": {Data: []byte(good)}}); err != nil {
		t.Errorf("a good family is refused: %v", err)
	}
}

// TestMatchOrderAndWithout: specific families come before generic ones,
// Requires and Not see the context lines, and Without leaves out the
// families written from a repository's cases.
func TestMatchOrderAndWithout(t *testing.T) {
	data := `
- id: t/generic
  tool: t
  category: transient-network
  what: w
  generic: true
  patterns: ['503']
  match: ['HTTP 503']
  nomatch: ['HTTP 200']
  sources: ['https://example.org/a']
- id: t/specific
  tool: t
  category: rate-limit
  what: w
  patterns: ['503']
  requires: ['rate limit']
  not: ['maintenance']
  match: ["HTTP 503\nrate limit hit"]
  nomatch: ['HTTP 503']
  sources: ['https://example.org/b']
  cases: ['acme/widget/flaky-503']
`
	c, err := catalogue.Load(fstest.MapFS{"families/t.yaml": {Data: []byte(data)}})
	if err != nil {
		t.Fatal(err)
	}
	if f := c.Match([]string{"HTTP 503"}, []string{"rate limit hit"}, nil); f == nil || f.ID != "t/specific" {
		t.Errorf("with context: %v, want t/specific", f)
	}
	if f := c.Match([]string{"HTTP 503"}, nil, nil); f == nil || f.ID != "t/generic" {
		t.Errorf("without context: %v, want t/generic", f)
	}
	if f := c.Match([]string{"HTTP 503"}, []string{"rate limit hit", "maintenance window"}, nil); f == nil || f.ID != "t/generic" {
		t.Errorf("with an exclusion: %v, want t/generic", f)
	}
	if f := c.Match([]string{"rate limit hit"}, []string{"HTTP 503"}, nil); f != nil {
		t.Errorf("a context line alone matched %s", f.ID)
	}
	if n := c.Without("acme/widget").Len(); n != 1 {
		t.Errorf("without acme/widget: %d families, want 1", n)
	}
	if n := c.Without("acme/other").Len(); n != 2 {
		t.Errorf("without acme/other: %d families, want 2", n)
	}
}

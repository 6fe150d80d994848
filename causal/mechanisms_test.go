package causal_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/polylane/polylane/causal"
	"github.com/polylane/polylane/causal/catalogue"
)

// TestEveryMechanism checks the declared rules against the cases under
// testdata/cases: every rule is well formed (an id under its category, a
// cause pattern, every summary placeholder filled, no unused value), fires
// in at least one case, and has a near-miss case — one whose log a cause
// pattern of the rule matches, but where another rule (or none) must hold;
// every rule with a fix shape produces a patch in some case, and every
// category is declared by a rule that fires. A rule added without its cases
// fails here.
func TestEveryMechanism(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "cases", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	type outcome struct {
		name, rule string
		patched    bool
		log        []string
	}
	var outcomes []outcome
	for _, f := range files {
		c := parseCase(t, f)
		exp, err := causal.Explain(c.input(t))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		outcomes = append(outcomes, outcome{filepath.Base(f), exp.Chain.Mechanism.Rule, exp.Patch != nil, c.log})
	}
	seen := map[string]bool{}
	categories := map[causal.Category]bool{}
	for _, r := range causal.Rules() {
		if seen[r.ID] {
			t.Errorf("rule %s is declared twice", r.ID)
		}
		seen[r.ID] = true
		if !r.Category.Known() || !strings.HasPrefix(r.ID, string(r.Category)+"/") {
			t.Errorf("rule %s: category %q is unknown or not the id's prefix", r.ID, r.Category)
		}
		if len(r.Cause) == 0 {
			t.Errorf("rule %s has no cause pattern", r.ID)
		}
		if len(r.Unresolved) > 0 || len(r.Unused) > 0 {
			t.Errorf("rule %s: summary placeholders without a value %v, values the summary never uses %v", r.ID, r.Unresolved, r.Unused)
		}
		fires, patches, nearMiss := "", "", ""
		for _, o := range outcomes {
			switch {
			case o.rule == r.ID:
				fires = o.name
				if o.patched {
					patches = o.name
				}
			case matchesAny(r, o.log):
				nearMiss = o.name
			}
		}
		if fires == "" {
			t.Errorf("rule %s fires in no case under testdata/cases: add one", r.ID)
		} else {
			categories[r.Category] = true
		}
		if nearMiss == "" {
			t.Errorf("rule %s has no near-miss case (a log its cause patterns match where another rule, or none, must hold): add one", r.ID)
		}
		if r.HasFix && fires != "" && patches == "" {
			t.Errorf("rule %s has a fix shape that produces a patch in no case", r.ID)
		}
	}
	for _, c := range causal.Categories() {
		if c != causal.Unknown && !categories[c] {
			t.Errorf("category %s has no rule that fires in a case", c)
		}
	}
}

// matchesAny reports whether one of a rule's cause patterns matches a line
// of a case's log and none of its exclusions does.
func matchesAny(r causal.RuleInfo, log []string) bool {
	hit := false
	for _, l := range log {
		for _, re := range r.Not {
			if re.MatchString(l) {
				return false
			}
		}
		for _, re := range r.Cause {
			hit = hit || re.MatchString(l)
		}
	}
	return hit
}

// TestFamiliesReachTheirRules: a family that names a rule must be able to
// make it fire. A rule that does not recognise the catalogue (Catalogued
// unset) fires only on its own patterns, so a family naming it whose match
// lines those patterns miss would never be used: each of its examples needs
// a line the rule's patterns match.
func TestFamiliesReachTheirRules(t *testing.T) {
	rules := map[string]causal.RuleInfo{}
	for _, r := range causal.Rules() {
		rules[r.ID] = r
	}
	for _, f := range catalogue.Default.Families() {
		r, ok := rules[f.Rule]
		if f.Rule == "" || !ok || r.Catalogued {
			continue
		}
		for _, m := range f.Match {
			if !matchesAny(r, strings.Split(m, "\n")) {
				t.Errorf("%s (%s) names rule %s, which does not recognise catalogue families and whose patterns miss its example %q", f.ID, f.File, f.Rule, m)
			}
		}
	}
}

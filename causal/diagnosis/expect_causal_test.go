package diagnosis

import (
	"slices"
	"strings"
	"testing"

	"github.com/polylane/polylane/analysis/scenario"
	"github.com/polylane/polylane/causal"
	"github.com/polylane/polylane/causal/patch/patchtest"
)

// checkCausalExpect checks the expect.json facts of the causal stage:
// mechanism, producer, patch files, that the patch applies with
// `git apply --check` at the scenario's repo/, and the production impact.
func checkCausalExpect(t *testing.T, d *Diagnosis, s *scenario.Scenario) {
	t.Helper()
	e := s.Expect
	c := d.Chain
	if c == nil {
		t.Fatal("no causal chain")
	}
	if e.Mechanism != nil && string(c.Mechanism.Category) != *e.Mechanism {
		t.Errorf("mechanism = %q, want %q (%s)", c.Mechanism.Category, *e.Mechanism, c.Mechanism.Summary)
	}
	if len(e.MechanismAny) > 0 && !slices.Contains(e.MechanismAny, string(c.Mechanism.Category)) {
		t.Errorf("mechanism = %q, want one of %v", c.Mechanism.Category, e.MechanismAny)
	}
	if e.ProducerFile.Set {
		want := ""
		if e.ProducerFile.Value != nil {
			want = *e.ProducerFile.Value
		}
		if c.Producer.File != want {
			t.Errorf("producer file = %q, want %q (candidates %+v)", c.Producer.File, want, c.Producer.Candidates)
		}
	}
	if r := e.ProducerLineRange; len(r) == 2 && (c.Producer.Line < r[0] || c.Producer.Line > r[1]) {
		t.Errorf("producer line = %d (%s), want within %v", c.Producer.Line, c.Producer.Symbol, r)
	}
	checkParagraphs(t, d)
	if e.PatchExpected != nil && (d.Patch != nil) != *e.PatchExpected {
		t.Fatalf("patch present = %v, want %v (%s)", d.Patch != nil, *e.PatchExpected, d.WhyThisFix)
	}
	if d.Patch == nil {
		return
	}
	var files []string
	for _, f := range d.Patch.Files {
		files = append(files, f.Path)
	}
	switch {
	case len(e.PatchFilesAny) > 0:
		if len(files) == 0 {
			t.Errorf("patch touches no file, want a subset of %v", e.PatchFilesAny)
		}
		for _, f := range files {
			if !slices.Contains(e.PatchFilesAny, f) {
				t.Errorf("patch touches %s, not one of %v", f, e.PatchFilesAny)
			}
		}
	case len(e.PatchFiles) > 0:
		got, want := slices.Sorted(slices.Values(files)), slices.Sorted(slices.Values(e.PatchFiles))
		if !slices.Equal(got, want) {
			t.Errorf("patch files = %v, want %v", got, want)
		}
	}
	if err := patchtest.ApplyCheck(t, s.Repo(), d.Patch.Diff); err != nil {
		t.Errorf("git apply --check: %v\n%s", err, d.Patch.Diff)
	}
	checkImpactExpect(t, d, e)
}

func checkImpactExpect(t *testing.T, d *Diagnosis, e *scenario.Expect) {
	t.Helper()
	if d.Impact == nil {
		if e.CIOnly != nil || e.AffectedContains != nil {
			t.Error("a patch without an impact assessment")
		}
		return
	}
	if e.CIOnly != nil && d.Impact.CIOnly != *e.CIOnly {
		t.Errorf("ci_only = %v, want %v (%s)", d.Impact.CIOnly, *e.CIOnly, d.Impact.Summary)
	}
	if e.AffectedContains != nil && !slices.ContainsFunc(d.Impact.Affected, func(a string) bool {
		return strings.Contains(a, *e.AffectedContains)
	}) {
		t.Errorf("affected %v does not contain %q", d.Impact.Affected, *e.AffectedContains)
	}
}

// checkParagraphs checks that the causal stage's own paragraphs name the
// mechanism in plain words and, with a patch, every file it changes.
func checkParagraphs(t *testing.T, d *Diagnosis) {
	t.Helper()
	cat := d.Chain.Mechanism.Category
	if cat != causal.Unknown && !strings.Contains(d.Summary, causal.PlainMechanism(cat)) {
		t.Errorf("summary does not say the mechanism %s in plain words: %s", cat, d.Summary)
	}
	if d.Patch == nil {
		return
	}
	for _, f := range d.Patch.Files {
		if !strings.Contains(d.WhyThisFix, f.Path) || !strings.Contains(d.Summary, f.Path) {
			t.Errorf("summary or why-this-fix does not name the patched file %s:\n%s\n%s", f.Path, d.Summary, d.WhyThisFix)
		}
	}
	if !strings.Contains(d.WhyThisFix, string(cat)) && !strings.Contains(d.WhyThisFix, causal.PlainMechanism(cat)) {
		t.Errorf("why-this-fix does not say the mechanism %s: %s", cat, d.WhyThisFix)
	}
}

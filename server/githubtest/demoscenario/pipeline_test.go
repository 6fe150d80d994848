package demoscenario_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/polylane/polylane/analysis"
	"github.com/polylane/polylane/analysis/history"
	"github.com/polylane/polylane/analysis/scenario"
	"github.com/polylane/polylane/causal/diagnosis"
	"github.com/polylane/polylane/causal/patch/patchtest"
	"github.com/polylane/polylane/server/githubtest/demoscenario"
)

// diagnoseEmbedded runs the offline pipeline (the code path of
// `polylane diagnose`) over the embedded scenario.
func diagnoseEmbedded(t *testing.T) (*diagnosis.Outcome, *scenario.Scenario) {
	t.Helper()
	out, s, err := diagnosis.DiagnoseScenario(demoscenario.FS(), diagnosis.Options{})
	if err != nil {
		t.Fatalf("diagnose the embedded scenario: %v", err)
	}
	if s.Expect == nil {
		t.Fatal("the embedded scenario has no expect.json")
	}
	return out, s
}

// TestHistoryFacts checks the facts of expect.json that the history stage
// decides: trigger step, window, classes, verdict, pattern and cause line.
func TestHistoryFacts(t *testing.T) {
	out, s := diagnoseEmbedded(t)
	d, x := out.Diagnosis, s.Expect
	tc := d.Clusters[0]
	inStep := 0
	for _, c := range d.Clusters {
		if c.Step == d.Failure.Step.Name {
			inStep++
		}
	}
	firstBad := "<null>"
	if d.Verdict.FirstBadSHA != nil {
		firstBad = *d.Verdict.FirstBadSHA
	}
	checks := []struct {
		fact      string
		got, want any
	}{
		{"trigger_step", d.Failure.Step.Name, *x.TriggerStep},
		{"window.runs", d.Window.Runs, *x.Window.Runs},
		{"window.failed", d.Window.Failed, *x.Window.Failed},
		{"trigger_cluster_count", tc.Count, *x.TriggerClusterCount},
		{"clusters_in_trigger_step", inStep, *x.ClustersInTriggerStep},
		{"verdict", d.Verdict.Kind, *x.Verdict},
		{"first_bad_sha", firstBad, "<null>"},
		{"pattern", tc.Pattern, *x.Pattern},
		// The dashboard shows two classes: the database flake and the
		// unit-test regression.
		{"classes", len(d.Clusters), 2},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.fact, c.got, c.want)
		}
	}
	if !slices.ContainsFunc(d.Failure.Lines, func(l analysis.Line) bool { return strings.Contains(l.Text, *x.CauseLineContains) }) {
		t.Errorf("no cause line contains %q: %+v", *x.CauseLineContains, d.Failure.Lines)
	}
	if t.Failed() {
		t.Logf("classes: %+v\nverdict: %+v", d.Clusters, d.Verdict)
	}
}

// TestRegressionClass checks the second class: the unit-test failure that
// four consecutive main runs had, named by the failing test.
func TestRegressionClass(t *testing.T) {
	out, _ := diagnoseEmbedded(t)
	var reg *history.Class
	for i := range out.Diagnosis.Clusters {
		if c := &out.Diagnosis.Clusters[i]; c.Step == "Unit tests" {
			reg = c
		}
	}
	if reg == nil {
		t.Fatalf("no class in the Unit tests step: %+v", out.Diagnosis.Clusters)
	}
	if reg.Count != 4 || !strings.Contains(reg.Signature, "TestMonthBucket") {
		t.Errorf("unit-test class: %d runs, signature %q; want 4 runs of TestMonthBucket", reg.Count, reg.Signature)
	}
}

// TestCausalFacts checks the diagnosis's mechanism, producer, patch and
// impact against expect.json, and that the patch applies to repo/ with git
// apply.
func TestCausalFacts(t *testing.T) {
	out, s := diagnoseEmbedded(t)
	x, d := s.Expect, out.Diagnosis
	c := d.Chain
	if c == nil {
		t.Fatal("the diagnosis has no causal chain")
	}
	if string(c.Mechanism.Category) != *x.Mechanism {
		t.Errorf("mechanism = %q (%s), want %q", c.Mechanism.Category, c.Mechanism.Summary, *x.Mechanism)
	}
	if c.Producer.File != *x.ProducerFile.Value {
		t.Errorf("producer file = %q, want %q", c.Producer.File, *x.ProducerFile.Value)
	}
	if r := x.ProducerLineRange; c.Producer.Line < r[0] || c.Producer.Line > r[1] {
		t.Errorf("producer line = %d, want within %v", c.Producer.Line, r)
	}
	if d.Patch == nil {
		t.Fatalf("no patch, want one touching %v", x.PatchFiles)
	}
	var files []string
	for _, f := range d.Patch.Files {
		files = append(files, f.Path)
	}
	if !slices.Equal(files, x.PatchFiles) {
		t.Errorf("patch files = %v, want %v", files, x.PatchFiles)
	}
	if !strings.Contains(d.Patch.Diff, "--health-cmd") {
		t.Errorf("the patch adds no health check to the service:\n%s", d.Patch.Diff)
	}
	if err := patchtest.ApplyCheck(t, s.Repo(), d.Patch.Diff); err != nil {
		t.Errorf("git apply --check: %v\n%s", err, d.Patch.Diff)
	}
	if d.Impact == nil || d.Impact.CIOnly != *x.CIOnly {
		t.Errorf("impact = %+v, want ci_only %v", d.Impact, *x.CIOnly)
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("mechanism: %s\nproducer: %+v\npatch:\n%s", c.Mechanism.Summary, c.Producer, d.Patch.Diff)
	}
}

package causal_test

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/polylane/polylane/analysis"
	"github.com/polylane/polylane/analysis/history"
	"github.com/polylane/polylane/analysis/scenario"
	"github.com/polylane/polylane/causal"
	"github.com/polylane/polylane/causal/diagnosis"
	"github.com/polylane/polylane/causal/patch/patchtest"
)

// sharedDir returns the shared directory, or skips when it is absent
// (failing instead when CI=true).
func sharedDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("POLYLANE_SHARED_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared")
	}
	if _, err := os.Stat(filepath.Join(dir, "scenarios")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("shared scenarios not found at %s: %v", dir, err)
		}
		t.Skipf("shared scenarios not found at %s (set POLYLANE_SHARED_DIR)", dir)
	}
	return dir
}

// explainScenario diagnoses a scenario directory in place and explains its
// trigger class.
func explainScenario(t *testing.T, dir string) (*causal.Explanation, *scenario.Scenario) {
	t.Helper()
	in, s := scenarioInputs(t, dir)
	exp, err := causal.Explain(in)
	if err != nil {
		t.Fatalf("explain: %v", err)
	}
	return exp, s
}

func scenarioInput(tb testing.TB, dir string) causal.Input {
	in, _ := scenarioInputs(tb, dir)
	return in
}

// scenarioInputs builds the causal input of a scenario from its diagnosis.
func scenarioInputs(t testing.TB, dir string) (causal.Input, *scenario.Scenario) {
	t.Helper()
	out, s, err := diagnosis.DiagnoseScenario(os.DirFS(dir), diagnosis.Options{})
	if err != nil {
		t.Fatalf("diagnose %s: %v", dir, err)
	}
	d := out.Diagnosis
	jobs, err := s.Jobs(s.TriggerRunID)
	if err != nil {
		t.Fatalf("jobs of the trigger run: %v", err)
	}
	var job analysis.Job
	for _, j := range jobs {
		if j.ID == d.Failure.Job.ID {
			job = j
		}
	}
	var cls *history.Class
	for i := range out.Classes {
		if out.Classes[i].ID == d.TriggerClass {
			cls = &out.Classes[i]
		}
	}
	var occs []history.Occurrence
	for _, o := range out.Occurrences {
		if cls != nil && slices.Contains(cls.Runs, o.RunID) {
			occs = append(occs, o)
		}
	}
	in := causal.Input{
		Repo: s.Repo(), Repository: d.Repository, Branch: d.Run.Branch,
		WorkflowName: d.Run.Workflow, WorkflowPath: d.Run.WorkflowPath,
		Job: job, Step: d.Failure.Step, RunID: d.Run.ID,
		Result:  &analysis.Result{Lines: d.Failure.Lines, Signature: d.Failure.Signature, Step: &d.Failure.Step, ExitCode: d.Failure.ExitCode},
		OpenLog: func() (io.ReadCloser, error) { return s.OpenLog(job.ID) },
		Class:   cls, Classes: out.Classes, Window: d.Window, Verdict: d.Verdict,
		Cadence: d.Cadence, Occurrences: occs,
	}
	return in, s
}

// TestExampleScenarios checks the causal facts of every example scenario's
// expect.json and that the patch applies with git apply --check.
func TestExampleScenarios(t *testing.T) {
	root := filepath.Join(sharedDir(t), "scenarios")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		t.Run(e.Name(), func(t *testing.T) {
			exp, s := explainScenario(t, dir)
			if s.Expect == nil {
				t.Skip("no expect.json")
			}
			checkExpect(t, exp, s)
			if testing.Verbose() {
				b, _ := json.MarshalIndent(exp, "", "  ")
				t.Logf("%s", b)
			}
		})
	}
}

func checkExpect(t *testing.T, exp *causal.Explanation, s *scenario.Scenario) {
	t.Helper()
	x := s.Expect
	c := exp.Chain
	if x.Mechanism != nil && c.Mechanism.Category != *x.Mechanism {
		t.Errorf("mechanism = %q, want %q (%s)", c.Mechanism.Category, *x.Mechanism, c.Mechanism.Summary)
	}
	if len(x.MechanismAny) > 0 && !slices.Contains(x.MechanismAny, c.Mechanism.Category) {
		t.Errorf("mechanism = %q, want one of %v", c.Mechanism.Category, x.MechanismAny)
	}
	if x.ProducerFile.Set {
		want := ""
		if x.ProducerFile.Value != nil {
			want = *x.ProducerFile.Value
		}
		if c.Producer.File != want {
			t.Errorf("producer file = %q, want %q", c.Producer.File, want)
		}
	}
	if r := x.ProducerLineRange; len(r) == 2 && (c.Producer.Line < r[0] || c.Producer.Line > r[1]) {
		t.Errorf("producer line = %d, want within %v", c.Producer.Line, r)
	}
	if x.PatchExpected != nil && (exp.Patch != nil) != *x.PatchExpected {
		t.Fatalf("patch present = %v, want %v (%s)", exp.Patch != nil, *x.PatchExpected, exp.WhyThisFix)
	}
	if exp.Patch == nil {
		return
	}
	checkExpectPatch(t, exp, s)
}

// checkExpectPatch checks the patch facts of expect.json.
func checkExpectPatch(t *testing.T, exp *causal.Explanation, s *scenario.Scenario) {
	t.Helper()
	x := s.Expect
	var files []string
	for _, f := range exp.Patch.Files {
		files = append(files, f.Path)
	}
	switch {
	case len(x.PatchFilesAny) > 0:
		for _, f := range files {
			if !slices.Contains(x.PatchFilesAny, f) {
				t.Errorf("patch touches %s, not in %v", f, x.PatchFilesAny)
			}
		}
	case len(x.PatchFiles) > 0:
		if !slices.Equal(sorted(files), sorted(x.PatchFiles)) {
			t.Errorf("patch files = %v, want %v", files, x.PatchFiles)
		}
	}
	if err := patchtest.ApplyCheck(t, s.Repo(), exp.Patch.Diff); err != nil {
		t.Errorf("git apply --check: %v\n%s", err, exp.Patch.Diff)
	}
	if x.CIOnly != nil && exp.Impact != nil && exp.Impact.CIOnly != *x.CIOnly {
		t.Errorf("ci_only = %v, want %v", exp.Impact.CIOnly, *x.CIOnly)
	}
	if x.AffectedContains != nil && exp.Impact != nil {
		found := false
		for _, a := range exp.Impact.Affected {
			if a == *x.AffectedContains || len(a) >= len(*x.AffectedContains) && contains(a, *x.AffectedContains) {
				found = true
			}
		}
		if !found {
			t.Errorf("affected %v does not contain %q", exp.Impact.Affected, *x.AffectedContains)
		}
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	slices.Sort(out)
	return out
}

func contains(s, sub string) bool {
	return len(sub) == 0 || (len(s) >= len(sub) && (s[:len(sub)] == sub || contains(s[1:], sub)))
}

// BenchmarkExplainScenarios measures Explain alone (the diagnosis it needs
// is computed once) on every example scenario.
func BenchmarkExplainScenarios(b *testing.B) {
	dir := os.Getenv("POLYLANE_SHARED_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared")
	}
	entries, err := os.ReadDir(filepath.Join(dir, "scenarios"))
	if err != nil {
		b.Skipf("shared scenarios not found: %v", err)
	}
	for _, e := range entries {
		sdir := filepath.Join(dir, "scenarios", e.Name())
		b.Run(e.Name(), func(b *testing.B) {
			in := scenarioInput(b, sdir)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := causal.Explain(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

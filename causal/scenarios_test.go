package causal_test

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/polylane/polylane/analysis/gha"

	"github.com/polylane/polylane/analysis"
	"github.com/polylane/polylane/analysis/history"
	"github.com/polylane/polylane/analysis/scenario"
	"github.com/polylane/polylane/analysis/scenario/scenariotest"
	"github.com/polylane/polylane/causal"
	"github.com/polylane/polylane/causal/diagnosis"
)

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
	var job gha.Job
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

// BenchmarkExplainScenarios measures Explain alone (the diagnosis it needs
// is computed once) on every example scenario.
func BenchmarkExplainScenarios(b *testing.B) {
	dir := scenariotest.Path(b, "scenarios")
	entries, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range entries {
		sdir := filepath.Join(dir, e.Name())
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

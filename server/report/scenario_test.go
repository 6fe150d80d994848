package report

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/polylane/polylane/analysis"
	"github.com/polylane/polylane/analysis/history"
	"github.com/polylane/polylane/causal"
	"github.com/polylane/polylane/causal/diagnosis"
)

// scenarioRoots are the scenario directories the test renders: the
// project's synthetic scenarios and the shared examples (read in place).
func scenarioRoots(t *testing.T) []string {
	roots := []string{filepath.Join("..", "..", "causal", "diagnosis", "testdata", "scenarios")}
	shared := os.Getenv("POLYLANE_SHARED_DIR")
	if shared == "" {
		shared = filepath.Join("..", "..", "..", "shared")
	}
	dir := filepath.Join(shared, "scenarios")
	if _, err := os.Stat(dir); err == nil {
		roots = append(roots, dir)
	} else if os.Getenv("CI") == "true" {
		t.Fatalf("shared scenarios not found at %s: %v", dir, err)
	} else {
		t.Logf("shared scenarios not found at %s (set POLYLANE_SHARED_DIR); rendering the synthetic ones only", dir)
	}
	return roots
}

// explained diagnoses a scenario and adds the causal chain, the patch and
// the impact, as the server pipeline does.
func explained(t *testing.T, dir string) *diagnosis.Diagnosis {
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
	exp, err := causal.Explain(causal.Input{
		Repo: s.Repo(), Repository: d.Repository, Branch: d.Run.Branch,
		WorkflowName: d.Run.Workflow, WorkflowPath: d.Run.WorkflowPath,
		Job: job, Step: d.Failure.Step, RunID: d.Run.ID,
		Result:  &analysis.Result{Lines: d.Failure.Lines, Signature: d.Failure.Signature, Step: &d.Failure.Step, ExitCode: d.Failure.ExitCode},
		OpenLog: func() (io.ReadCloser, error) { return s.OpenLog(job.ID) },
		Class:   cls, Classes: out.Classes, Window: d.Window, Verdict: d.Verdict,
		Cadence: d.Cadence, Occurrences: occs,
	})
	if err != nil {
		t.Fatalf("explain: %v", err)
	}
	d.Chain, d.Patch, d.Impact = exp.Chain, exp.Patch, exp.Impact
	return d
}

// TestScenarios renders every scenario through the real pipeline and
// checks what must hold of any rendering: marker, size, safety, a valid
// flowchart, and the sections that the diagnosis calls for. With
// REPORT_DUMP=DIR it writes the comments there for reading.
func TestScenarios(t *testing.T) {
	for _, root := range scenarioRoots(t) {
		entries, err := os.ReadDir(root)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			dir := filepath.Join(root, e.Name())
			if _, err := os.Stat(filepath.Join(dir, "scenario.json")); err != nil {
				continue
			}
			t.Run(e.Name(), func(t *testing.T) {
				d := explained(t, dir)
				s := safety{repo: d.Repository}
				out, err := Comment(d, Options{})
				if err != nil {
					t.Fatalf("Comment: %v", err)
				}
				checkDocument(t, out, KindAssessment, d, s)
				wantSections(t, out, d)
				if dump := os.Getenv("REPORT_DUMP"); dump != "" {
					if err := os.WriteFile(filepath.Join(dump, e.Name()+".md"), []byte(out), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				if d.Patch != nil {
					_, body, err := PullRequest(d, Options{})
					if err != nil {
						t.Fatalf("PullRequest: %v", err)
					}
					checkDocument(t, body, KindFixPR, d, s)
				}
			})
		}
	}
}

// wantSections checks the sections a diagnosis calls for.
func wantSections(t *testing.T, out string, d *diagnosis.Diagnosis) {
	t.Helper()
	want := []string{"```mermaid\nflowchart TD", "#### Causal chain", "`@polylane help`"}
	if d.Patch != nil {
		want = append(want, "#### Why this fix", "#### The fix: ", "changed (+", "#### Production impact")
	}
	if d.Impact != nil {
		want = append(want, "#### Observability")
	}
	if d.Verdict.Kind == history.Regression {
		want = append(want, "#### Where it started")
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("comment lacks %q", w)
		}
	}
}

package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polylane/polylane/analysis/history"
	"github.com/polylane/polylane/analysis/scenario/scenariotest"
	"github.com/polylane/polylane/causal/diagnosis"
)

// scenarioRoots are the scenario directories the test renders: the
// project's synthetic scenarios and the shared examples (read in place).
func scenarioRoots(t *testing.T) []string {
	roots := []string{filepath.Join("..", "..", "causal", "diagnosis", "testdata", "scenarios")}
	if dir, ok := scenariotest.Optional(t, "scenarios"); ok {
		roots = append(roots, dir)
	}
	return roots
}

// explained diagnoses a scenario through the server pipeline's code path,
// which adds the causal chain, the patch and the impact.
func explained(t *testing.T, dir string) *diagnosis.Diagnosis {
	t.Helper()
	out, _, err := diagnosis.DiagnoseScenario(os.DirFS(dir), diagnosis.Options{})
	if err != nil {
		t.Fatalf("diagnose %s: %v", dir, err)
	}
	return out.Diagnosis
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

package history

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/polylane/polylane/analysis/gha"

	"github.com/polylane/polylane/analysis"
)

// mapSource serves jobs and logs from maps; absent keys are fs.ErrNotExist.
type mapSource struct {
	jobs map[int64][]gha.Job
	logs map[int64]string
	err  error
}

func (m mapSource) Jobs(id int64) ([]gha.Job, error) {
	if m.err != nil {
		return nil, m.err
	}
	j, ok := m.jobs[id]
	if !ok {
		return nil, fmt.Errorf("jobs of %d: %w", id, fs.ErrNotExist)
	}
	return j, nil
}

func (m mapSource) OpenLog(id int64) (io.ReadCloser, error) {
	l, ok := m.logs[id]
	if !ok {
		return nil, fmt.Errorf("log of %d: %w", id, fs.ErrNotExist)
	}
	return io.NopCloser(strings.NewReader(l)), nil
}

// lastLineAnalyzer takes the last non-empty line as the cause and signature.
func lastLineAnalyzer(r io.Reader, _ []gha.Step) (*analysis.Result, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	last := lines[len(lines)-1]
	code := 1
	return &analysis.Result{Lines: []analysis.Line{{N: len(lines), Text: last, Role: analysis.RoleCause}},
		Signature: last, SignatureID: "id-" + last, ExitCode: &code, Step: &analysis.StepRef{Number: 3, Name: "From log"}}, nil
}

func steps(conclusions ...string) []gha.Step {
	names := []string{"Set up job", "Checkout", "Install", "Test", "Post Checkout"}
	var out []gha.Step
	for i, c := range conclusions {
		out = append(out, gha.Step{Number: i + 1, Name: names[i], Status: "completed", Conclusion: c})
	}
	return out
}

func TestExtractRun(t *testing.T) {
	failed := gha.Run{ID: 1, RunAttempt: 1, Conclusion: "failure", HeadSHA: "abc"}
	src := mapSource{
		jobs: map[int64][]gha.Job{
			1: {
				{ID: 11, Name: "test (18)", Conclusion: "failure", Steps: steps("success", "success", "failure", "skipped", "success")},
				{ID: 12, Name: "test (20)", Conclusion: "failure", Steps: steps("success", "success", "success", "failure", "success")},
				{ID: 13, Name: "lint", Conclusion: "success", Steps: steps("success", "success")},
			},
			2: {{ID: 21, Name: "e2e", Conclusion: "cancelled", Steps: steps("success", "cancelled")}},
			3: {{ID: 31, Name: "e2e", Conclusion: "failure", Steps: steps("success", "failure")}},
			4: {{ID: 41, Name: "e2e", Conclusion: "failure"}},
			5: {{ID: 51, Name: "e2e", Conclusion: "timed_out", Steps: steps("success", "success", "cancelled")}},
		},
		logs: map[int64]string{11: "a\nnpm ERR! code ECONNRESET\n", 12: "x\nFAIL test/a.test.ts\n", 41: "boom\n", 51: "wait\n"},
	}
	occs, err := ExtractRun(failed, src, lastLineAnalyzer)
	if err != nil {
		t.Fatal(err)
	}
	if len(occs) != 2 {
		t.Fatalf("%d occurrences, want one per failed matrix job: %+v", len(occs), occs)
	}
	if occs[0].Step.Name != "Install" || occs[1].Step.Name != "Test" || occs[0].JobBase != "test" || occs[1].JobBase != "test" {
		t.Errorf("steps/jobs = %+v / %+v", occs[0], occs[1])
	}
	if occs[0].Signature != "npm ERR! code ECONNRESET" || occs[0].HeadSHA != "abc" || occs[0].ExitCode == nil {
		t.Errorf("occurrence = %+v", occs[0])
	}
	if !slices.Contains(occs[0].Passed, JobStep{Job: "lint", Step: "Checkout"}) || slices.Contains(occs[0].Passed, JobStep{Job: "test", Step: "Test"}) {
		t.Errorf("passed = %+v", occs[0].Passed)
	}
	tests := []struct {
		run                gha.Run
		unknown, cancelled bool
		step, signature    string
	}{
		{gha.Run{ID: 2, Conclusion: "cancelled"}, false, true, "", ""},
		{gha.Run{ID: 3, Conclusion: "failure"}, true, false, "Checkout", ""},      // log missing
		{gha.Run{ID: 4, Conclusion: "failure"}, false, false, "From log", "boom"}, // no steps from the API
		{gha.Run{ID: 5, Conclusion: "failure"}, false, false, "Install", "wait"},  // timed out
		{gha.Run{ID: 6, Conclusion: "failure"}, true, false, "", ""},              // jobs missing
	}
	for _, tt := range tests {
		occs, err := ExtractRun(tt.run, src, lastLineAnalyzer)
		if err != nil {
			t.Fatal(err)
		}
		o := occs[0]
		if len(occs) != 1 || o.Unknown != tt.unknown || o.Cancelled != tt.cancelled || o.Step.Name != tt.step || o.Signature != tt.signature {
			t.Errorf("run %d: %+v", tt.run.ID, occs)
		}
	}
	if _, err := ExtractRun(failed, mapSource{err: errors.New("disk on fire")}, lastLineAnalyzer); err == nil || !strings.Contains(err.Error(), "run 1") {
		t.Errorf("error = %v, want one naming run 1", err)
	}
}

func TestJobBases(t *testing.T) {
	s := steps("success", "failure")
	jobs := []gha.Job{
		{Name: "Test on ubuntu-latest", Steps: s}, {Name: "Test on macos-latest", Steps: s},
		{Name: "lint", Steps: steps("success")}, {Name: "link-check", Steps: steps("success")},
		{Name: "build (amd64, linux)"},
	}
	want := []string{"Test on", "Test on", "lint", "link-check", "build"}
	if got := jobBases(jobs); !slices.Equal(got, want) {
		t.Errorf("jobBases = %q, want %q", got, want)
	}
}

func TestKeepLines(t *testing.T) {
	var lines []analysis.Line
	lines = append(lines, analysis.Line{N: 50, Role: analysis.RoleCause})
	for i := range 20 {
		lines = append(lines, analysis.Line{N: 100 + i, Role: analysis.RoleContext})
	}
	lines = append(lines, analysis.Line{N: 398, Role: analysis.RoleContext})
	got := keepLines(lines, 400)
	if len(got) != maxOccurrenceLines || got[0].N != 50 || got[1].N != 398 {
		t.Errorf("keepLines kept %+v; want the cause, the tail line, then the first context lines", got)
	}
}

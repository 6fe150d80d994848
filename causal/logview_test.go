package causal

import (
	"io"
	"strings"
	"testing"

	"github.com/polylane/polylane/analysis/gha"

	"github.com/polylane/polylane/analysis"
)

// TestReadStepLogView checks which lines the failing step's view keeps.
func TestReadStepLogView(t *testing.T) {
	steps := []gha.Step{{Number: 1, Name: "Set up job", Conclusion: "success"}, {Number: 2, Name: "Initialize containers", Conclusion: "failure"},
		{Number: 3, Name: "Install", Conclusion: "failure"}, {Number: 4, Name: "Complete job", Conclusion: "success"}}
	ts := "2026-01-05T10:00:00.0000000Z "
	tests := []struct {
		name  string
		step  analysis.StepRef
		lines []string
		cause int
		want  []string
	}{
		{name: "log without group markers keeps every main line", step: analysis.StepRef{Number: 3, Name: "Install"},
			lines: []string{"Current runner version: '2.321.0'", "Collecting numpy (from -r requirements/dev.txt (line 3))",
				"ERROR: No matching distribution found for numpy", "##[error]Process completed with exit code 1.", "Post job cleanup.", "git version"},
			cause: 3, want: []string{"Collecting numpy (from -r requirements/dev.txt (line 3))", "ERROR: No matching distribution found for numpy"}},
		{name: "runner step without a Run header sees the lines up to the cause", step: analysis.StepRef{Number: 2, Name: "Initialize containers"},
			lines: []string{"Complete job name: test", "##[group]Starting redis service container", "##[command]/usr/bin/docker pull redis:7",
				"Error response from daemon: toomanyrequests: rate limit", "##[error]Docker pull failed with exit code 1"},
			cause: 4, want: []string{"##[command]/usr/bin/docker pull redis:7", "Error response from daemon: toomanyrequests: rate limit"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := "\ufeff" + ts + strings.Join(tt.lines, "\n"+ts) + "\n"
			in := Input{Job: gha.Job{ID: 1, Steps: steps}, Step: tt.step,
				OpenLog: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(raw)), nil }}
			sl, err := readStepLog(in, tt.cause)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range sl.Lines {
				got = append(got, l.Text)
			}
			for _, w := range tt.want {
				if !strings.Contains(strings.Join(got, "\n"), w) {
					t.Errorf("view lacks %q: %q", w, got)
				}
			}
			if sl.Cause < 0 || sl.Lines[sl.Cause].N != tt.cause {
				t.Errorf("cause index %d in %q", sl.Cause, got)
			}
		})
	}
}

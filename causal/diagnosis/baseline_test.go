package diagnosis

import (
	"testing"
	"time"

	"github.com/polylane/polylane/analysis/gha"
)

// TestPassingRunPicksTheLastGreenRunBeforeTheTrigger holds which run's log
// is the trigger's baseline: the newest success created before the trigger
// on its branch, else on the default branch; never a later run, a failure, a
// run whose latest attempt failed, or a run of another branch.
func TestPassingRunPicksTheLastGreenRunBeforeTheTrigger(t *testing.T) {
	at := func(h int) time.Time { return time.Date(2026, 1, 1, h, 0, 0, 0, time.UTC) }
	run := func(id int64, branch, conclusion string, h, attempt int) gha.Run {
		return gha.Run{ID: id, HeadBranch: branch, Conclusion: conclusion, Status: "completed", CreatedAt: at(h), RunAttempt: attempt}
	}
	trigger := run(100, "feature", "failure", 10, 1)
	tests := []struct {
		name string
		runs []gha.Run
		want int64
	}{
		{"same branch first", []gha.Run{run(1, "main", "success", 9, 1), run(2, "feature", "success", 5, 1), trigger}, 2},
		{"newest on the branch", []gha.Run{run(2, "feature", "success", 5, 1), run(3, "feature", "success", 7, 1), trigger}, 3},
		{"default branch when the branch has none", []gha.Run{run(1, "main", "success", 8, 1), run(4, "other", "success", 9, 1), trigger}, 1},
		{"not after the trigger", []gha.Run{run(5, "feature", "success", 11, 1), run(1, "main", "success", 3, 1), trigger}, 1},
		{"not a failure", []gha.Run{run(6, "feature", "failure", 9, 1), trigger}, 0},
		{"the latest attempt counts", []gha.Run{run(7, "feature", "success", 9, 1), run(7, "feature", "failure", 9, 2), trigger}, 0},
	}
	for _, tt := range tests {
		got, ok := passingRun(tt.runs, trigger, "main")
		if got.ID != tt.want || ok != (tt.want != 0) {
			t.Errorf("%s: run %d (%v), want %d", tt.name, got.ID, ok, tt.want)
		}
	}
}

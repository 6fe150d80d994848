package history

import (
	"slices"
	"testing"
	"time"

	"github.com/polylane/polylane/analysis/gha"
)

func run(id int64, hour int, branch, event, conclusion string) gha.Run {
	return gha.Run{ID: id, RunNumber: int(id), RunAttempt: 1, WorkflowID: 7, HeadBranch: branch, Event: event,
		Status: "completed", Conclusion: conclusion, CreatedAt: t0.Add(time.Duration(hour) * time.Hour)}
}

func ids(runs []gha.Run) []int64 {
	out := make([]int64, len(runs))
	for i, r := range runs {
		out[i] = r.ID
	}
	return out
}

func TestSelectWindow(t *testing.T) {
	rerun := run(4, 4, "main", "push", "success")
	rerun.RunAttempt = 2
	firstAttempt := run(4, 4, "main", "push", "failure")
	inProgress := run(9, 9, "main", "push", "")
	inProgress.Status = "in_progress"
	otherWorkflow := run(10, 3, "main", "push", "failure")
	otherWorkflow.WorkflowID = 8
	runs := []gha.Run{ // newest first, as GitHub lists them
		run(12, 12, "main", "push", "success"), // after the trigger
		run(11, 11, "main", "push", "failure"), // the trigger
		otherWorkflow, inProgress,
		run(8, 8, "main", "pull_request", "failure"), // a PR from a branch named main
		run(7, 7, "feature", "push", "failure"),
		run(6, 6, "main", "workflow_dispatch", "success"),
		run(5, 5, "main", "schedule", "skipped"),
		rerun, firstAttempt,
		run(3, 3, "main", "push", "cancelled"),
		run(2, 2, "main", "push", "failure"),
		run(1, 1, "main", "push", "success"),
	}
	trigger := runs[1]
	tests := []struct {
		n    int
		want []int64
	}{
		{0, []int64{1, 2, 3, 4, 6, 11}},
		{3, []int64{4, 6, 11}},
		{1, []int64{11}},
	}
	for _, tt := range tests {
		w := SelectWindow(runs, trigger, tt.n)
		if !slices.Equal(ids(w), tt.want) {
			t.Errorf("window(%d) = %v, want %v", tt.n, ids(w), tt.want)
		}
	}
	w := SelectWindow(runs, trigger, 0)
	if w[3].RunAttempt != 2 || w[3].Conclusion != "success" {
		t.Errorf("re-run counted by %+v, want its latest attempt", w[3])
	}
	s := Summarize(w)
	if s.Runs != 6 || s.Failed != 3 || s.Cancelled != 1 || s.Branch != "main" || !s.From.Equal(runs[12].CreatedAt) || !s.To.Equal(trigger.CreatedAt) {
		t.Errorf("summary = %+v", s)
	}
	// A pull-request trigger gets a window of pull-request runs only.
	pr := SelectWindow(runs, runs[4], 0)
	if !slices.Equal(ids(pr), []int64{8}) {
		t.Errorf("PR window = %v, want [8]", ids(pr))
	}
}

func TestSelectWindowTiesByID(t *testing.T) {
	runs := []gha.Run{run(3, 1, "main", "push", "failure"), run(2, 1, "main", "push", "success"), run(1, 1, "main", "push", "success")}
	if got := ids(SelectWindow(runs, runs[1], 0)); !slices.Equal(got, []int64{1, 2}) {
		t.Errorf("window = %v, want [1 2]", got)
	}
}

// TestSelectWindowKeepsForksOut: runs whose head repository is a fork
// never join the window of the base repository's branch of the same name,
// whatever their event (a fork's workflow_run or pull request from "main").
func TestSelectWindowKeepsForksOut(t *testing.T) {
	base := &gha.Repository{ID: 10, FullName: "acme/widgets"}
	fork := &gha.Repository{ID: 99, FullName: "mallory/widgets"}
	from := func(r gha.Run, repo *gha.Repository) gha.Run { r.HeadRepository = repo; return r }
	runs := []gha.Run{
		from(run(5, 5, "main", "push", "failure"), base), // the trigger
		from(run(4, 4, "main", "workflow_run", "success"), fork),
		from(run(3, 3, "main", "push", "success"), fork),
		from(run(2, 2, "main", "push", "success"), base),
		run(1, 1, "main", "push", "success"), // no head repository: the base's
	}
	if got := ids(SelectWindow(runs, runs[0], 0)); !slices.Equal(got, []int64{1, 2, 5}) {
		t.Fatalf("window = %v, want [1 2 5]", got)
	}
	forkPR := []gha.Run{
		from(run(8, 8, "main", "pull_request", "failure"), fork),
		from(run(7, 7, "main", "pull_request", "success"), &gha.Repository{ID: 77, FullName: "eve/widgets"}),
		from(run(6, 6, "main", "pull_request", "success"), fork),
	}
	if got := ids(SelectWindow(forkPR, forkPR[0], 0)); !slices.Equal(got, []int64{6, 8}) {
		t.Fatalf("fork window = %v, want [6 8]", got)
	}
}

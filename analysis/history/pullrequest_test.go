package history

import (
	"slices"
	"testing"
	"time"

	"github.com/polylane/polylane/analysis/gha"
)

func prRun(id int64, hour int, number int, branch string, repo int64, conclusion string) gha.Run {
	r := run(id, hour, branch, "pull_request", conclusion)
	r.HeadRepository = &gha.Repository{ID: repo}
	if number != 0 {
		r.PullRequests = []gha.PullRequest{{Number: number, Base: gha.PullRequestRef{Ref: "main"}}}
	}
	return r
}

func TestElsewhere(t *testing.T) {
	trigger := prRun(20, 20, 0, "patch-1", 501, "failure") // a fork's pull request
	ownEarlier := prRun(19, 19, 0, "patch-1", 501, "success")
	otherFork := prRun(18, 18, 0, "patch-1", 502, "failure") // same branch name, another fork
	rerunFirst := prRun(17, 17, 7, "feature", 99, "failure")
	rerun := rerunFirst
	rerun.RunAttempt, rerun.Conclusion = 2, "success"
	closed := prRun(16, 16, 6, "old", 99, "failure") // a closed pull request still counts
	base := run(15, 15, "main", "push", "failure")
	base.HeadRepository = &gha.Repository{ID: 99}
	forkMain := run(14, 14, "main", "push", "failure") // a push to a fork's main is not the base
	forkMain.HeadRepository = &gha.Repository{ID: 501}
	cancelled := run(13, 13, "main", "push", "cancelled")
	otherBranch := run(12, 12, "develop", "push", "failure")
	tooOld := run(2, 2, "main", "push", "failure")
	after := run(21, 21, "main", "push", "failure")
	runs := []gha.Run{after, trigger, ownEarlier, otherFork, rerun, rerunFirst, closed, base, forkMain, cancelled, otherBranch, tooOld}
	got := Elsewhere(runs, trigger, BaseBranch(trigger, "main"), 99, t0.Add(10*time.Hour), 0)
	want := []int64{13, 15, 16, 17, 18}
	if !slices.Equal(ids(got), want) {
		t.Fatalf("Elsewhere = %v, want %v", ids(got), want)
	}
	if got[3].RunAttempt != 2 {
		t.Errorf("run 17 counted by attempt %d, want its latest (2)", got[3].RunAttempt)
	}
}

func TestSamePullRequest(t *testing.T) {
	a := prRun(1, 1, 4, "x", 99, "failure")
	b := prRun(2, 2, 4, "renamed", 99, "failure")
	if !SamePullRequest(a, b) {
		t.Error("same number, different branch: one pull request")
	}
	c := prRun(3, 3, 0, "x", 99, "failure") // listed without its number (closed since)
	if !SamePullRequest(a, c) {
		t.Error("same head repository and branch: one pull request")
	}
	if SamePullRequest(prRun(4, 4, 0, "patch-1", 501, ""), prRun(5, 5, 0, "patch-1", 502, "")) {
		t.Error("two forks' patch-1 are two pull requests")
	}
}

func TestIntroducedBy(t *testing.T) {
	for msg, want := range map[string]int{
		"Merge pull request #42 from acme/fix\n\nfix it": 42,
		"cart: round totals (#108)\n\n* more":            108,
		"Merge branch 'main' into feature":               0,
		"see #12 for details":                            0,
	} {
		r := gha.Run{HeadCommit: &gha.HeadCommit{Message: msg}}
		if got := IntroducedBy(r); got != want {
			t.Errorf("IntroducedBy(%q) = %d, want %d", msg, got, want)
		}
	}
}

package history

import (
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/polylane/polylane/analysis/gha"
)

// PullRequestLookback is the least span of time, before a pull-request
// run, over which the runs of other pull requests and of the base branch are
// read: a pull request with a short history of its own is still compared
// with the repository's last thirty days.
const PullRequestLookback = 30 * 24 * time.Hour

// IsPullRequestRun reports whether a run was started by a pull-request event.
func IsPullRequestRun(r gha.Run) bool { return pullRequestEvent(r.Event) }

// PullRequestNumber returns the number of the pull request a run belongs to,
// 0 when GitHub did not list one (a fork's pull request, or one closed since).
func PullRequestNumber(r gha.Run) int {
	if len(r.PullRequests) > 0 {
		return r.PullRequests[0].Number
	}
	return 0
}

// BaseBranch returns the base branch of a pull-request run: the one GitHub
// lists with it, else the repository's default branch.
func BaseBranch(r gha.Run, defaultBranch string) string {
	if len(r.PullRequests) > 0 && r.PullRequests[0].Base.Ref != "" {
		return r.PullRequests[0].Base.Ref
	}
	return defaultBranch
}

// SamePullRequest reports whether two pull-request runs belong to one pull
// request: by number when GitHub listed one for both, else by head
// repository and branch (a fork's pull request lists none).
func SamePullRequest(a, b gha.Run) bool {
	if na, nb := PullRequestNumber(a), PullRequestNumber(b); na != 0 && nb != 0 {
		return na == nb
	}
	return a.HeadBranch == b.HeadBranch && gha.SameHeadRepository(a, b)
}

// Elsewhere returns the runs of the trigger's workflow outside the trigger's
// pull request over [from, trigger]: the runs of the base branch (events
// other than pull requests, from the base repository repoID when known) and
// the runs of other pull requests. A run counts once, by its latest attempt;
// runs that did not complete or were skipped are left out. Oldest first; the
// newest n are kept (n <= 0 means DefaultWindow). Cancelled runs are kept:
// they mark gaps in the base branch's history.
func Elsewhere(runs []gha.Run, trigger gha.Run, base string, repoID int64, from time.Time, n int) []gha.Run {
	if n <= 0 {
		n = DefaultWindow
	}
	var out []gha.Run
	for _, r := range LatestAttempts(runs) {
		if r.ID == trigger.ID || !r.Completed() || r.Conclusion == "skipped" || r.Conclusion == "" {
			continue
		}
		if !sameWorkflow(r, trigger) || compareRunTime(r, trigger) > 0 || r.CreatedAt.Before(from) {
			continue
		}
		switch {
		case pullRequestEvent(r.Event):
			if SamePullRequest(r, trigger) {
				continue
			}
		case !OnBase(r, base, repoID):
			continue
		}
		out = append(out, r)
	}
	slices.SortFunc(out, compareRunTime)
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// OnBase reports whether r is a run of the base branch itself: not a pull
// request's, on the branch, from the base repository (when ids are known).
func OnBase(r gha.Run, base string, repoID int64) bool {
	if pullRequestEvent(r.Event) || r.HeadBranch != base {
		return false
	}
	return repoID == 0 || r.HeadRepository == nil || r.HeadRepository.ID == 0 || r.HeadRepository.ID == repoID
}

// mergedPR finds the pull request a merge commit's message names: "Merge
// pull request #12 from …" or a squash merge's "title (#12)".
var mergedPR = regexp.MustCompile(`^Merge pull request #(\d+)|\(#(\d+)\)\s*(?:\n|$)`)

// IntroducedBy returns the pull request whose merge made the run's head
// commit, 0 when its message does not say.
func IntroducedBy(r gha.Run) int {
	if r.HeadCommit == nil {
		return 0
	}
	m := mergedPR.FindStringSubmatch(r.HeadCommit.Message)
	if m == nil {
		return 0
	}
	s := m[1]
	if s == "" {
		s = m[2]
	}
	n, _ := strconv.Atoi(s)
	return n
}

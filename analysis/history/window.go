package history

import (
	"cmp"
	"slices"
	"strings"

	"github.com/polylane/polylane/analysis/gha"
)

// DefaultWindow is the number of runs a diagnosis looks at by default.
const DefaultWindow = 100

// SelectWindow returns the last n completed runs of the trigger's workflow on
// the trigger's branch, at or before the trigger (by created_at, ties by id),
// oldest first. A run listed with several attempts counts once, by its latest
// attempt. Runs of the other event group are ignored: pull-request events
// (pull_request, pull_request_target, ...) never share a window with push,
// dispatch or schedule runs, even on a branch of the same name, and runs
// whose head repositories differ (a fork's "main" and the base's) never
// share one either. Skipped runs
// did not execute and are left out. The trigger itself is always included.
// n <= 0 means DefaultWindow.
func SelectWindow(runs []gha.Run, trigger gha.Run, n int) []gha.Run {
	if n <= 0 {
		n = DefaultWindow
	}
	latest := LatestAttempts(runs)
	out := make([]gha.Run, 0, min(len(latest), n+1))
	for _, r := range latest {
		if r.ID == trigger.ID {
			out = append(out, trigger)
			continue
		}
		if inWindow(r, trigger) {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, compareRunTime)
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// LatestAttempts keeps one entry per run id, the one with the highest
// run_attempt (ties: the later updated_at), in the order of first appearance.
func LatestAttempts(runs []gha.Run) []gha.Run {
	index := make(map[int64]int, len(runs))
	out := make([]gha.Run, 0, len(runs))
	for _, r := range runs {
		i, seen := index[r.ID]
		if !seen {
			index[r.ID] = len(out)
			out = append(out, r)
			continue
		}
		cur := out[i]
		if r.RunAttempt > cur.RunAttempt || r.RunAttempt == cur.RunAttempt && r.UpdatedAt.After(cur.UpdatedAt) {
			out[i] = r
		}
	}
	return out
}

// inWindow reports whether r belongs to the trigger's window (before the
// count limit is applied).
func inWindow(r, trigger gha.Run) bool {
	if !r.Completed() || r.Conclusion == "skipped" || r.Conclusion == "" {
		return false
	}
	if r.HeadBranch != trigger.HeadBranch || pullRequestEvent(r.Event) != pullRequestEvent(trigger.Event) ||
		!gha.SameHeadRepository(r, trigger) {
		return false
	}
	if !sameWorkflow(r, trigger) {
		return false
	}
	return compareRunTime(r, trigger) <= 0
}

// sameWorkflow compares workflow ids when both runs carry one, else paths.
func sameWorkflow(a, b gha.Run) bool {
	if a.WorkflowID != 0 && b.WorkflowID != 0 {
		return a.WorkflowID == b.WorkflowID
	}
	pa, pb := workflowPath(a.Path), workflowPath(b.Path)
	return pa == "" || pb == "" || pa == pb
}

// workflowPath drops the "@ref" suffix GitHub adds to some run paths.
func workflowPath(p string) string {
	p, _, _ = strings.Cut(p, "@")
	return p
}

// pullRequestEvent reports whether an event is one of the pull-request events.
func pullRequestEvent(event string) bool {
	return strings.HasPrefix(event, "pull_request")
}

// compareRunTime orders runs by created_at, then id.
func compareRunTime(a, b gha.Run) int {
	return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
}

// Summarize describes a window (oldest run first): its branch, the number of
// runs, the number whose conclusion is not success, and the creation times of
// the oldest and newest run.
func Summarize(window []gha.Run) Window {
	var w Window
	if len(window) == 0 {
		return w
	}
	w.Branch = window[len(window)-1].HeadBranch
	w.Runs = len(window)
	w.From, w.To = window[0].CreatedAt, window[len(window)-1].CreatedAt
	for _, r := range window {
		if r.Conclusion != "success" {
			w.Failed++
		}
		if r.Conclusion == "cancelled" {
			w.Cancelled++
		}
	}
	return w
}

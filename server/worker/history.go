package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/polylane/polylane/analysis/gha"
	"github.com/polylane/polylane/analysis/history"

	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/store"
)

// History listing bounds.
const (
	runsPerPage   = 100
	maxRunPages   = 12
	storedRunsCap = 5000
)

// syncState is kept in the cache entry of a run listing: the first page's
// validator is the entry's ETag, and Backfilled says that the history was
// read back as far as the window reaches (or to its start).
type syncState struct {
	Backfilled bool `json:"backfilled"`
}

// runHistory returns the runs of a workflow on a branch, from the store's
// history cache brought up to date with as few GitHub calls as possible:
//
//   - first sight (no backfill recorded): pages of runs are listed until the
//     window is full or the history ends, and stored;
//   - later: the first page is listed conditionally; a 304 costs nothing and
//     means the stored history is current; otherwise the page's runs are
//     stored, and older pages follow only while none of a page's runs were
//     known (a gap).
//
// The trigger run, from the delivery, is always part of the result. For a
// pull-request run the listing is of every branch (one listing, cached like
// a branch's): the diagnosis compares the run with the base branch and the
// other pull requests over the same span of time.
func (w *Worker) runHistory(ctx context.Context, gh *ghclient.Repo, repoID, workflowID int64, trigger gha.Run, window int) ([]gha.Run, error) {
	branch := historyBranch(trigger)
	key := fmt.Sprintf("runs:%d:%d:%s", repoID, workflowID, branch)
	if branch == "" {
		key = fmt.Sprintf("runs:%d:%d:*", repoID, workflowID)
	}
	var state syncState
	entry, err := w.st.GetCacheEntry(ctx, key)
	switch {
	case err == nil:
		_ = json.Unmarshal(entry.Body, &state)
	case !isNotFound(err):
		return nil, err
	}
	known, err := w.storedRunIDs(ctx, repoID, workflowID, branch)
	if err != nil {
		return nil, err
	}
	etag := entry.ETag
	if !state.Backfilled {
		etag = "" // read everything the window needs
		// A first sight lists pages of runs and then reads their logs:
		// with the installation's budget low it waits for the reset
		// rather than spend the rest (and fail other work on the way).
		if b, known := gh.Budget(); known && b.Low(time.Now()) {
			return nil, &ghclient.RateLimitedError{Wait: time.Until(b.Reset) + time.Second,
				Err: fmt.Errorf("history of workflow %d deferred: %d of the installation's %d API calls left until %s",
					workflowID, b.Remaining, b.Limit, b.Reset.UTC().Format(time.RFC3339))}
		}
	}
	newETag := etag
	inWindow := 0 // listed runs that belong to the trigger's window
	for page := 1; page > 0 && page <= maxRunPages; {
		res, err := gh.ListRuns(ctx, ghclient.RunsQuery{WorkflowID: workflowID, Branch: branch,
			PerPage: runsPerPage, Page: page, ETag: etagFor(page, etag)})
		if err != nil {
			return nil, err
		}
		if page == 1 {
			newETag = res.ETag
		}
		if res.NotModified {
			break
		}
		fresh, err := w.storeRuns(ctx, repoID, res.Runs, known)
		if err != nil {
			return nil, err
		}
		inWindow += windowMembers(res.Runs, trigger)
		next := res.NextPage
		switch {
		case state.Backfilled && fresh < len(res.Runs):
			next = 0 // reached runs already stored: no gap
		case !state.Backfilled && inWindow >= window:
			next = 0 // the window is full
		case !state.Backfilled && branch == "" && pastLookback(res.Runs, trigger):
			next = 0 // older than the span a pull request is compared over
		}
		page = next
	}
	if err := w.storeRuns1(ctx, repoID, trigger); err != nil {
		return nil, err
	}
	body, _ := json.Marshal(syncState{Backfilled: true})
	if err := w.st.PutCacheEntry(ctx, store.CacheEntry{Key: key, ETag: newETag, Body: body}); err != nil {
		return nil, err
	}
	return w.loadRuns(ctx, repoID, workflowID, trigger, window)
}

// historyBranch is the branch whose runs are listed for the trigger: its
// own, or "" (every branch) for a pull-request run.
func historyBranch(trigger gha.Run) string {
	if history.IsPullRequestRun(trigger) {
		return ""
	}
	return trigger.HeadBranch
}

// pastLookback reports whether a page (newest first) reaches back beyond
// the span a pull-request run is compared over.
func pastLookback(runs []gha.Run, trigger gha.Run) bool {
	return len(runs) > 0 && runs[len(runs)-1].CreatedAt.Before(trigger.CreatedAt.Add(-history.PullRequestLookback))
}

// windowMembers counts the runs that may fall in the trigger's window:
// completed, of the same event group and head repository, not newer than
// the trigger; for a pull-request run, any completed run up to it.
func windowMembers(runs []gha.Run, trigger gha.Run) int {
	n := 0
	for _, r := range runs {
		if historyBranch(trigger) == "" {
			if r.Completed() && !r.CreatedAt.After(trigger.CreatedAt) {
				n++
			}
			continue
		}
		if r.Completed() && pullRequestEvent(r.Event) == pullRequestEvent(trigger.Event) && gha.SameHeadRepository(r, trigger) &&
			!r.CreatedAt.After(trigger.CreatedAt) {
			n++
		}
	}
	return n
}

// etagFor sends the validator with the first page only.
func etagFor(page int, etag string) string {
	if page == 1 {
		return etag
	}
	return ""
}

// storedRunIDs lists the run attempts the store has for a workflow and
// branch.
func (w *Worker) storedRunIDs(ctx context.Context, repoID, workflowID int64, branch string) (map[store.RunKey]bool, error) {
	page, err := w.st.ListRuns(ctx, store.RunQuery{RepositoryID: repoID, WorkflowID: workflowID, Branch: branch, Limit: 500})
	if err != nil {
		return nil, err
	}
	known := make(map[store.RunKey]bool, len(page.Runs))
	for _, r := range page.Runs {
		if r.Status == "completed" {
			known[r.Key()] = true
		}
	}
	return known, nil
}

// storeRuns stores listed runs and returns how many were not known
// (completed) before; it adds them to known.
func (w *Worker) storeRuns(ctx context.Context, repoID int64, runs []gha.Run, known map[store.RunKey]bool) (int, error) {
	recs := make([]store.WorkflowRun, 0, len(runs))
	fresh := 0
	for _, r := range runs {
		rec, err := runRecord(repoID, r)
		if err != nil {
			return 0, err
		}
		if !known[rec.Key()] {
			fresh++
		}
		if r.Status == "completed" {
			known[rec.Key()] = true
		}
		recs = append(recs, rec)
	}
	if err := w.st.UpsertRuns(ctx, recs); err != nil {
		return 0, err
	}
	return fresh, nil
}

// storeRuns1 stores one run.
func (w *Worker) storeRuns1(ctx context.Context, repoID int64, r gha.Run) error {
	rec, err := runRecord(repoID, r)
	if err != nil {
		return err
	}
	return w.st.UpsertRun(ctx, rec)
}

// runRecord is the store's record of a run, with the run itself as detail.
func runRecord(repoID int64, r gha.Run) (store.WorkflowRun, error) {
	detail, err := json.Marshal(r)
	if err != nil {
		return store.WorkflowRun{}, fmt.Errorf("encode run %d: %w", r.ID, err)
	}
	created := r.CreatedAt
	if created.IsZero() {
		created = r.RunStartedAt
	}
	path, _, _ := strings.Cut(r.Path, "@")
	return store.WorkflowRun{RepositoryID: repoID, RunID: r.ID, Attempt: max(r.RunAttempt, 1), WorkflowID: r.WorkflowID,
		WorkflowPath: path, WorkflowName: r.Name, RunNumber: r.RunNumber, HeadSHA: r.HeadSHA, Branch: r.HeadBranch,
		Event: r.Event, Status: r.Status, Conclusion: r.Conclusion, CreatedAt: created, HTMLURL: r.HTMLURL,
		Detail: detail}, nil
}

// loadRuns reads the stored history of the trigger's workflow and branch
// (the newest runs, enough for the window).
func (w *Worker) loadRuns(ctx context.Context, repoID, workflowID int64, trigger gha.Run, window int) ([]gha.Run, error) {
	var out []gha.Run
	q := store.RunQuery{RepositoryID: repoID, WorkflowID: workflowID, Branch: historyBranch(trigger), Limit: 500}
	for len(out) < storedRunsCap {
		page, err := w.st.ListRuns(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, rec := range page.Runs {
			out = append(out, runOf(rec))
		}
		if page.Next == nil || len(out) >= max(window*4, 400) {
			break
		}
		q.After = page.Next
	}
	return out, nil
}

// runOf turns a stored run back into the pipeline's run.
func runOf(rec store.WorkflowRun) gha.Run {
	var r gha.Run
	if len(rec.Detail) > 0 && json.Unmarshal(rec.Detail, &r) == nil && r.ID == rec.RunID {
		r.RunAttempt = rec.Attempt
		return r
	}
	return gha.Run{ID: rec.RunID, Name: rec.WorkflowName, RunNumber: rec.RunNumber, RunAttempt: rec.Attempt,
		WorkflowID: rec.WorkflowID, Path: rec.WorkflowPath, HeadSHA: rec.HeadSHA, HeadBranch: rec.Branch,
		Event: rec.Event, Status: rec.Status, Conclusion: rec.Conclusion, HTMLURL: rec.HTMLURL, CreatedAt: rec.CreatedAt}
}

package worker

import (
	"context"
	"fmt"
	"time"

	"github.com/polylane/polylane/server/jobs"

	"github.com/polylane/polylane/analysis/gha"

	"github.com/rs/zerolog"

	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/server/report"
	"github.com/polylane/polylane/store"
)

// commentClosing is the store's kind of the comment Polylane leaves on a
// fix pull request it closes.
const commentClosing = "closing"

// enqueueLifecycle queues the fix pull request check after a failure on the
// default branch: a failure of another class is a run in which an open fix
// pull request's class did not recur.
func (w *Worker) enqueueLifecycle(ctx context.Context, a jobs.PublishArgs, pub *published) error {
	open, err := w.openFixes(ctx, pub.repo.ID)
	if err != nil || len(open) == 0 {
		return err
	}
	return w.st.Enqueue(ctx, store.Job{Args: jobs.LifecycleArgs{InstallationID: a.InstallationID,
		RepositoryID: a.RepositoryID, WorkflowID: pub.p.Workflow.ID, RunID: a.RunID, Attempt: a.Attempt}})
}

// openFixes lists a repository's open fix pull requests.
func (w *Worker) openFixes(ctx context.Context, repoID int64) ([]store.FixPullRequest, error) {
	list, err := w.st.ListFixPullRequests(ctx, repoID)
	if err != nil {
		return nil, err
	}
	var open []store.FixPullRequest
	for _, f := range list {
		if f.State == store.FixOpen {
			open = append(open, f)
		}
	}
	return open, nil
}

// lifecycle works a lifecycle job: after a run of a workflow on the default
// branch, each open fix pull request whose class belongs to the workflow
// and has not recurred in the configured number of completed runs since it
// was last seen is commented on and closed: the class stopped without
// Polylane's change, so someone else fixed it.
func (w *Worker) lifecycle(ctx context.Context, a jobs.LifecycleArgs) error {
	open, err := w.openFixes(ctx, a.RepositoryID)
	if err != nil || len(open) == 0 {
		return err
	}
	key := store.RunKey{RepositoryID: a.RepositoryID, RunID: a.RunID, Attempt: a.Attempt}
	p, err := w.runOfJob(ctx, a.DeliveryGUID, key)
	if err != nil {
		return err
	}
	repo, err := w.st.GetRepository(ctx, a.RepositoryID)
	if err != nil {
		return err
	}
	if !onDefaultBranch(repo, p.Run) {
		zerolog.Ctx(ctx).Debug().Int64("run_id", a.RunID).Msg("run is not a default-branch run: fix pull requests not checked")
		return nil
	}
	gh, err := w.gh.Repo(a.InstallationID, repo.FullName)
	if err != nil {
		return permanent{err}
	}
	if ok, err := w.fixesOfWorkflow(ctx, repo.ID, a.WorkflowID, open); !ok || err != nil {
		return err
	}
	set, err := w.settingsOf(ctx, gh, repo.ID, repo.DefaultBranch)
	if err != nil || set.CloseAfterRuns <= 0 {
		return err
	}
	// The history is brought up to date as a diagnosis would (the same
	// window), so that a later diagnosis finds it complete.
	if _, err := w.runHistory(ctx, gh, repo.ID, a.WorkflowID, p.Run, max(set.CloseAfterRuns, w.opts.WindowSize, set.Window)); err != nil {
		return err
	}
	for _, f := range open {
		if err := w.closeIfRecovered(ctx, gh, repo, a.WorkflowID, f, set.CloseAfterRuns); err != nil {
			return err
		}
	}
	return nil
}

// fixesOfWorkflow reports whether an open fix pull request's class belongs
// to the workflow.
func (w *Worker) fixesOfWorkflow(ctx context.Context, repoID, workflowID int64, open []store.FixPullRequest) (bool, error) {
	for _, f := range open {
		c, err := w.st.GetClass(ctx, repoID, f.ClassID)
		switch {
		case err == nil && c.WorkflowID == workflowID:
			return true, nil
		case err != nil && !isNotFound(err):
			return false, err
		}
	}
	return false, nil
}

// closeIfRecovered closes one fix pull request when its class has not
// recurred for n runs of the workflow on the default branch and the pull
// request is still open (not merged).
func (w *Worker) closeIfRecovered(ctx context.Context, gh *ghclient.Repo, repo store.Repository, workflowID int64, f store.FixPullRequest, n int) error {
	class, err := w.st.GetClass(ctx, repo.ID, f.ClassID)
	if isNotFound(err) || err == nil && class.WorkflowID != workflowID {
		return nil
	}
	if err != nil {
		return err
	}
	clean, err := w.runsSince(ctx, repo, workflowID, class.LastSeen, n)
	if err != nil || clean < n {
		return err
	}
	pr, err := gh.GetPull(ctx, f.Number)
	if err != nil {
		return err
	}
	if pr.State != "open" {
		return w.recordEnded(ctx, f, pr)
	}
	bot, err := w.gh.BotLogin(ctx)
	if err != nil {
		return err
	}
	m := report.Marker{Kind: commentClosing, Repo: fmt.Sprint(repo.ID), Class: f.ClassID}
	body := m.String() + "\n" + closingText(class, repo.DefaultBranch, clean)
	s := sticky{repoID: repo.ID, number: f.Number, kind: commentClosing, body: body, bot: bot}
	if _, err := w.upsertComment(ctx, gh, s); err != nil {
		return err
	}
	closed, err := gh.ClosePull(ctx, f.Number)
	if err != nil {
		return err
	}
	zerolog.Ctx(ctx).Info().Int("number", f.Number).Str("class", f.ClassID).Int("clean_runs", clean).Msg("fix pull request closed: the class stopped without it")
	f.State, f.ClosedAt = store.FixClosed, closed.ClosedAt
	if f.ClosedAt.IsZero() {
		f.ClosedAt = time.Now()
	}
	return w.st.UpsertFixPullRequest(ctx, f)
}

// closingText explains why Polylane closes its fix pull request.
func closingText(c store.FailureClass, branch string, clean int) string {
	return fmt.Sprintf("The failure class `%s` has not recurred in the last %d completed runs of this workflow on `%s` "+
		"(last seen %s), so it was fixed another way. Polylane is closing this pull request; "+
		"if the failure comes back, it will open a new one.\n",
		clipText(inertCode(c.ID), 120), clean, clipText(inertCode(branch), 120), c.LastSeen.UTC().Format("2006-01-02 15:04 MST"))
}

// onDefaultBranch reports whether run is a run of the repository's default
// branch (gha.OnDefaultBranch: never a pull request's run, a fork's
// "main" included).
func onDefaultBranch(repo store.Repository, run gha.Run) bool {
	return gha.OnDefaultBranch(run, gha.Repository{ID: repo.ID, FullName: repo.FullName}, repo.DefaultBranch)
}

// runsSince counts the completed runs of a workflow on the default branch
// that started after since, stopping at limit. Runs of pull requests on a
// branch of the same name (a fork's "main") are not counted.
func (w *Worker) runsSince(ctx context.Context, repo store.Repository, workflowID int64, since time.Time, limit int) (int, error) {
	q := store.RunQuery{RepositoryID: repo.ID, WorkflowID: workflowID, Branch: repo.DefaultBranch, Limit: 200}
	seen := map[int64]bool{}
	for {
		page, err := w.st.ListRuns(ctx, q)
		if err != nil {
			return 0, err
		}
		for _, r := range page.Runs {
			if !r.CreatedAt.After(since) {
				return len(seen), nil
			}
			if r.Status == "completed" && r.Conclusion != "cancelled" && r.Conclusion != "skipped" && !seen[r.RunID] &&
				onDefaultBranch(repo, runOf(r)) {
				seen[r.RunID] = true
				if len(seen) >= limit {
					return len(seen), nil
				}
			}
		}
		if page.Next == nil {
			return len(seen), nil
		}
		q.After = page.Next
	}
}

// recordEnded records a fix pull request that GitHub says is closed or
// merged, with the time it ended.
func (w *Worker) recordEnded(ctx context.Context, f store.FixPullRequest, pr ghclient.PullRequest) error {
	f.State, f.ClosedAt = store.FixClosed, pr.ClosedAt
	if pr.Merged {
		f.State = store.FixMerged
		if !pr.MergedAt.IsZero() {
			f.ClosedAt = pr.MergedAt
		}
	}
	return w.st.UpsertFixPullRequest(ctx, f)
}

// pullRequestEvent works a pull request job: a new head marks the pull
// request's assessment stale and re-renders its comment with a note; the
// closing of a fix pull request is recorded with its merge time.
func (w *Worker) pullRequestEvent(ctx context.Context, a jobs.PullRequestArgs) error {
	switch a.Action {
	case jobs.PullSynchronize:
		return w.markStale(ctx, a)
	case jobs.PullClosed:
		return w.recordFixClosed(ctx, a)
	}
	return nil
}

// recordFixClosed records how one of Polylane's fix pull requests ended.
func (w *Worker) recordFixClosed(ctx context.Context, a jobs.PullRequestArgs) error {
	list, err := w.st.ListFixPullRequests(ctx, a.RepositoryID)
	if err != nil {
		return err
	}
	for _, f := range list {
		if f.Number != a.Number || f.Branch != a.HeadRef {
			continue
		}
		f.State, f.ClosedAt = store.FixClosed, a.ClosedAt
		if a.Merged {
			f.State = store.FixMerged
		}
		zerolog.Ctx(ctx).Info().Int("number", f.Number).Str("class", f.ClassID).Str("state", f.State).Msg("fix pull request ended")
		return w.st.UpsertFixPullRequest(ctx, f)
	}
	return nil // not one Polylane opened (or not recorded)
}

// markStale flags the diagnosis behind a pull request's assessment as stale
// when the pull request's head moved past the diagnosed commit, and
// re-renders the comment with the stale note until the next diagnosis.
func (w *Worker) markStale(ctx context.Context, a jobs.PullRequestArgs) error {
	c, err := w.st.GetComment(ctx, a.RepositoryID, a.Number, store.CommentDiagnosis)
	if isNotFound(err) || err == nil && c.DiagnosisID == 0 {
		return nil // no assessment on this pull request
	}
	if err != nil {
		return err
	}
	rec, err := w.st.GetDiagnosisByID(ctx, c.DiagnosisID)
	if isNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	pub, err := w.load(ctx, "", a.InstallationID, rec.Key())
	if err != nil {
		return err
	}
	if pub.doc.Run.HeadSHA == a.HeadSHA {
		return nil // the assessment is of this head
	}
	if !rec.Stale {
		if err := w.st.SetDiagnosisStale(ctx, rec.ID, true); err != nil {
			return err
		}
	}
	release, err := w.st.LockRepository(ctx, a.RepositoryID)
	if err != nil {
		return err
	}
	defer release()
	opts := w.reportOptions(ctx, pub)
	opts.Stale, opts.CurrentHead = true, a.HeadSHA
	body, err := report.Comment(pub.doc, opts)
	if err != nil {
		return permanent{err}
	}
	s := sticky{repoID: a.RepositoryID, number: a.Number, kind: store.CommentDiagnosis, body: body, diagnosisID: rec.ID, bot: pub.bot}
	_, err = w.upsertComment(ctx, pub.gh, s)
	return err
}

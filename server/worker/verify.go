package worker

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/server/jobs"
	"github.com/polylane/polylane/server/report"
	"github.com/polylane/polylane/store"
)

// verify works a verify job: a run on a fix pull request's branch that was
// not diagnosed (a success, a cancelled run) joins the fix's verification,
// and the fix pull request's description and assessment say so.
func (w *Worker) verify(ctx context.Context, a jobs.VerifyArgs) error {
	var p *runPayload
	if !a.Rerun {
		key := store.RunKey{RepositoryID: a.RepositoryID, RunID: a.RunID, Attempt: a.Attempt}
		var err error
		if p, err = w.runOfJob(ctx, a.DeliveryGUID, key); err != nil {
			return err
		}
	}
	release, err := w.st.LockRepository(ctx, a.RepositoryID)
	if err != nil {
		return err
	}
	defer release()
	if a.Rerun {
		return w.rerunCheck(ctx, a)
	}
	f, ok, err := w.fixOfRun(ctx, a.RepositoryID, p)
	if err != nil || !ok {
		return w.verifyDone(ctx, a, err)
	}
	rec := verificationRun(f, p)
	err = w.recordVerification(ctx, a.InstallationID, f, rec)
	return w.verifyDone(ctx, a, err)
}

// verifyDone marks the verify job's delivery done when the job is.
func (w *Worker) verifyDone(ctx context.Context, a jobs.VerifyArgs, err error) error {
	if err != nil || a.DeliveryGUID == "" {
		return err
	}
	return w.st.SetDeliveryState(ctx, a.DeliveryGUID, store.DeliveryDone, "")
}

// verifyFailure records a diagnosed failure on a fix pull request's branch
// in the fix's verification, in place of an assessment comment: the run is
// the fix's own CI, not a new failure. It reports false when the run is not
// of an open fix pull request's branch. The caller holds the repository
// lock.
func (w *Worker) verifyFailure(ctx context.Context, pub *published) (bool, error) {
	f, ok, err := w.fixOfRun(ctx, pub.repo.ID, pub.p)
	if err != nil || !ok {
		return false, err
	}
	rec := verificationRun(f, pub.p)
	rec.FailedJob = pub.doc.Failure.Job.Name
	if l, ok := report.CauseLine(pub.doc); ok {
		rec.Cause = clipText(strings.TrimSpace(l.Text), 500)
	}
	rec.FailureClass = pub.doc.TriggerClass
	rec.InClass = pub.doc.TriggerClass == f.ClassID || w.sameSignature(ctx, f, pub)
	zerolog.Ctx(ctx).Info().Str("class", f.ClassID).Int("number", f.Number).Bool("in_class", rec.InClass).
		Msg("failure on the fix branch recorded as its verification")
	return true, w.recordVerification(ctx, pub.inst, f, rec)
}

// sameSignature reports whether the failure has the signature of the
// failure the fix was opened for: the class's way of failing, even when
// the fix branch's history filed it under another class id.
func (w *Worker) sameSignature(ctx context.Context, f store.FixPullRequest, pub *published) bool {
	origin, err := w.fixDiagnosis(ctx, f)
	if err != nil || origin == nil {
		return false
	}
	sig := pub.doc.Failure.SignatureID
	return sig != "" && sig == origin.doc.Failure.SignatureID
}

// ownFixBranch reports a run of a fix pull request's branch in the
// repository itself (a fork's branch of the same name is not one). Such a
// run is diagnosed whatever branches the configuration watches.
func (p *runPayload) ownFixBranch() bool {
	run := p.Run
	return strings.HasPrefix(run.HeadBranch, report.FixBranchPrefix) &&
		(run.HeadRepository == nil || run.HeadRepository.ID == 0 || run.HeadRepository.ID == p.Repository.ID)
}

// fixOfRun finds the open fix pull request whose branch the run is of: the
// repository's own branch, never a fork's of the same name.
func (w *Worker) fixOfRun(ctx context.Context, repoID int64, p *runPayload) (store.FixPullRequest, bool, error) {
	run := p.Run
	if !p.ownFixBranch() || p.Repository.ID != repoID {
		return store.FixPullRequest{}, false, nil
	}
	list, err := w.st.ListFixPullRequests(ctx, repoID)
	if err != nil {
		return store.FixPullRequest{}, false, err
	}
	for _, f := range list {
		if f.Branch == run.HeadBranch && f.State == store.FixOpen {
			return f, true, nil
		}
	}
	return store.FixPullRequest{}, false, nil
}

// verificationRun is the record of a run on the fix's branch, without the
// analysis of a failure.
func verificationRun(f store.FixPullRequest, p *runPayload) store.FixVerificationRun {
	name := p.Workflow.Name
	if name == "" {
		name = p.Run.Name
	}
	done := p.Run.UpdatedAt
	if done.IsZero() {
		done = p.Run.CreatedAt
	}
	return store.FixVerificationRun{RepositoryID: f.RepositoryID, ClassID: f.ClassID, RunID: p.Run.ID,
		Attempt: max(p.Run.RunAttempt, 1), WorkflowID: p.Workflow.ID, WorkflowName: name, HeadSHA: p.Run.HeadSHA,
		Conclusion: p.Run.Conclusion, CompletedAt: done}
}

// recordVerification stores a run of the fix's branch and brings the fix
// pull request's description and assessment up to date. A redelivered run
// changes no record and, the texts being the same, writes nothing.
func (w *Worker) recordVerification(ctx context.Context, inst int64, f store.FixPullRequest, rec store.FixVerificationRun) error {
	if _, err := w.st.PutFixVerificationRun(ctx, rec); err != nil {
		return err
	}
	return w.refreshAndRerun(ctx, inst, f)
}

// refreshAndRerun brings the fix's Verification section up to date and,
// when the repository opted in, asks for the next rerun (rerun.go),
// showing its outcome.
func (w *Worker) refreshAndRerun(ctx context.Context, inst int64, f store.FixPullRequest) error {
	pub, v, err := w.refreshVerification(ctx, inst, f)
	if err != nil || pub == nil {
		return err
	}
	changed, err := w.maybeRerun(ctx, pub, f, v)
	if err != nil || !changed {
		return err
	}
	_, _, err = w.refreshVerification(ctx, inst, f)
	return err
}

// fixDiagnosis is the diagnosis the fix pull request's assessment shows,
// loaded for publishing; nil when the fix has no assessment comment yet.
func (w *Worker) fixDiagnosis(ctx context.Context, f store.FixPullRequest) (*published, error) {
	c, err := w.st.GetComment(ctx, f.RepositoryID, f.Number, store.CommentDiagnosis)
	if isNotFound(err) || err == nil && c.DiagnosisID == 0 {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	d, err := w.st.GetDiagnosisByID(ctx, c.DiagnosisID)
	if err != nil {
		return nil, err
	}
	repo, err := w.st.GetRepository(ctx, f.RepositoryID)
	if err != nil {
		return nil, err
	}
	return w.load(ctx, "", repo.InstallationID, d.Key())
}

// refreshVerification re-renders the fix pull request's description and
// its assessment comment with the Verification section, writing only what
// changed.
func (w *Worker) refreshVerification(ctx context.Context, inst int64, f store.FixPullRequest) (*published, *report.Verification, error) {
	pub, err := w.fixDiagnosis(ctx, f)
	if err != nil || pub == nil {
		return nil, nil, err
	}
	if inst != 0 {
		pub.inst = inst
	}
	pr, err := pub.gh.GetPull(ctx, f.Number)
	if err != nil || pr.State != "open" {
		return nil, nil, err
	}
	opts := w.reportOptions(ctx, pub)
	opts.FixWithheld = nil // it is open
	if opts.Verification, err = w.verificationOf(ctx, pub, f); err != nil {
		return nil, nil, err
	}
	title, body, err := report.PullRequest(pub.doc, opts)
	if err != nil {
		return nil, nil, permanent{err}
	}
	if _, err := w.ensurePull(ctx, pub, &pr, ghclient.NewPull{Title: title, Body: body, Head: f.Branch, Base: pub.repo.DefaultBranch}); err != nil {
		return nil, nil, err
	}
	comment, err := report.Comment(pub.doc, opts)
	if err != nil {
		return nil, nil, permanent{err}
	}
	_, err = w.upsertComment(ctx, pub.gh, sticky{repoID: f.RepositoryID, number: f.Number, kind: store.CommentDiagnosis,
		body: comment, diagnosisID: pub.rec.ID, bot: pub.bot})
	return pub, opts.Verification, err
}

// fixVerification is the Verification section of a fix pull request being
// opened or updated to carry head: the recorded runs of the branch when the
// open pull request is the recorded one, none for a new one.
func (w *Worker) fixVerification(ctx context.Context, pub *published, classID, branch, head string, existing *ghclient.PullRequest) (*report.Verification, error) {
	rec, err := w.st.GetFixPullRequest(ctx, pub.repo.ID, classID)
	switch {
	case err != nil && !isNotFound(err):
		return nil, err
	case err != nil || existing == nil || rec.Number != existing.Number:
		rec = store.FixPullRequest{RepositoryID: pub.repo.ID, ClassID: classID, Branch: branch}
	}
	if rec.HeadSHA != head { // the branch moves: no run of the new head yet
		rec.HeadSHA, rec.UpdatedAt = head, time.Now()
	}
	return w.verificationOf(ctx, pub, rec)
}

// verificationOf builds the Verification section of a fix from the runs
// recorded on its branch: each workflow's latest attempt at the branch's
// current head, the failure that refutes the fix, and the green runs of
// the class's workflow at that head.
func (w *Worker) verificationOf(ctx context.Context, pub *published, f store.FixPullRequest) (*report.Verification, error) {
	runs, err := w.st.ListFixVerificationRuns(ctx, f.RepositoryID, f.ClassID)
	if err != nil {
		return nil, err
	}
	state, err := w.st.GetFixVerification(ctx, f.RepositoryID, f.ClassID)
	if err != nil {
		return nil, err
	}
	v := report.BuildVerification(f, runs, pub.doc.Run.Workflow, pub.p.Workflow.ID)
	v.Rate, v.RateKnown = pub.doc.FailureRate.Rate, pub.doc.FailureRate.Runs > 0
	v.RerunLimit, v.Reruns, v.RerunRefused = pub.set.VerifyReruns, state.Reruns, state.Refused
	return v, nil
}

// Reruns of a fix branch's run (fix_pull_requests.verify_reruns) are
// spaced rerunSpacing apart, and asked only while the installation has
// more than rerunReserve of its hourly budget left: verifying a fix must
// not starve the diagnoses.
const (
	rerunSpacing = 10 * time.Minute
	rerunReserve = 0.2
)

// rerunStep is what planRerun decides.
type rerunStep int

const (
	rerunNone  rerunStep = iota // nothing to ask: off, spent, refused, refuted or evidence enough
	rerunNow                    // ask now
	rerunLater                  // ask at the returned time
)

// planRerun decides whether to re-run the class's failing job on the fix
// branch: while the repository allows reruns and some are left, GitHub has
// not refused one, the fix is not refuted and its newest run passed, and
// the green runs would still happen by chance 5% of the time or more; no
// sooner than rerunSpacing after the last one.
func planRerun(limit int, st store.FixVerification, v *report.Verification, now time.Time) (rerunStep, time.Time) {
	switch {
	case limit <= 0 || st.Refused != "" || st.Reruns >= limit || v == nil || v.Refuted():
		return rerunNone, time.Time{}
	case v.WorkflowRun == 0 || !v.WorkflowGreen || !v.RateKnown || v.Rate <= 0:
		return rerunNone, time.Time{}
	case report.Chance(v.Rate, v.Green) < report.EvidenceChance:
		return rerunNone, time.Time{}
	}
	if next := st.LastRerunAt.Add(rerunSpacing); !st.LastRerunAt.IsZero() && now.Before(next) {
		return rerunLater, next
	}
	return rerunNow, now
}

// maybeRerun asks GitHub for the next rerun when planRerun says so, or
// schedules the check for later, and reports whether the fix's
// verification state changed. A refusal (no actions: write) is recorded
// once and answered in the Verification section; no rerun is asked again.
func (w *Worker) maybeRerun(ctx context.Context, pub *published, f store.FixPullRequest, v *report.Verification) (bool, error) {
	st, err := w.st.GetFixVerification(ctx, f.RepositoryID, f.ClassID)
	if err != nil {
		return false, err
	}
	now := time.Now()
	step, at := planRerun(pub.set.VerifyReruns, st, v, now)
	var jobID int64
	if step == rerunNow {
		if step, at, jobID, err = w.rerunReady(ctx, pub, v.WorkflowRun, now); err != nil {
			return false, err
		}
	}
	switch step {
	case rerunNone:
		return false, nil
	case rerunLater:
		opts := jobs.VerifyArgs{}.InsertOpts()
		opts.ScheduledAt = at
		return false, w.st.Enqueue(ctx, store.Job{Args: jobs.VerifyArgs{InstallationID: pub.inst, RepositoryID: f.RepositoryID,
			RunID: v.WorkflowRun, Attempt: st.Reruns, Rerun: true, ClassID: f.ClassID}, Opts: &opts})
	}
	// The count is spent before asking: a lost answer is not asked again.
	st.Reruns, st.LastRerunAt = st.Reruns+1, now
	if err := w.st.PutFixVerification(ctx, st); err != nil {
		return false, err
	}
	if jobID != 0 {
		err = pub.gh.RerunJob(ctx, jobID)
	} else {
		err = pub.gh.RerunRun(ctx, v.WorkflowRun)
	}
	var apiErr *ghclient.APIError
	switch {
	case errors.Is(err, ghclient.ErrNoPermission):
		st.Reruns--
		st.Refused = "no permission to re-run workflows"
		if errors.As(err, &apiErr) && apiErr.Message != "" {
			st.Refused = clipText(apiErr.Message, 200)
		}
		zerolog.Ctx(ctx).Warn().Err(err).Int("number", f.Number).Msg("rerun of the fix branch refused; not asked again")
		return true, w.st.PutFixVerification(ctx, st)
	case err != nil:
		return true, err
	}
	zerolog.Ctx(ctx).Info().Int64("run_id", v.WorkflowRun).Int("reruns", st.Reruns).Int("number", f.Number).Msg("fix branch run re-run to verify the fix")
	return true, nil
}

// rerunReady defers a rerun that is due when the installation's rate
// budget is low, or when the run is not completed (an earlier rerun still
// running): GitHub refuses to re-run a running workflow. Else it returns
// the run's job that the class failed in (by name), to re-run alone; 0
// re-runs the whole run, when the run has no job of that name.
func (w *Worker) rerunReady(ctx context.Context, pub *published, runID int64, now time.Time) (rerunStep, time.Time, int64, error) {
	remaining, limit, err := pub.gh.CoreRate(ctx)
	if err != nil {
		return rerunNone, time.Time{}, 0, err
	}
	if float64(remaining) <= rerunReserve*float64(limit) {
		zerolog.Ctx(ctx).Info().Int("remaining", remaining).Int("limit", limit).Msg("rerun of the fix branch deferred: rate budget low")
		return rerunLater, now.Add(rerunSpacing), 0, nil
	}
	run, err := pub.gh.GetRunState(ctx, runID)
	if err != nil {
		return rerunNone, time.Time{}, 0, err
	}
	if run.Status != "completed" {
		return rerunLater, now.Add(rerunSpacing), 0, nil
	}
	if name := pub.doc.Failure.Job.Name; name != "" {
		list, err := pub.gh.ListJobs(ctx, runID, run.Attempt)
		if err != nil {
			return rerunNone, time.Time{}, 0, err
		}
		for _, j := range list {
			if j.Name == name {
				return rerunNow, now, j.ID, nil
			}
		}
	}
	return rerunNow, now, 0, nil
}

// rerunCheck works a scheduled rerun check: the class's open fix pull
// request, if any, is refreshed and may get its next rerun. The caller
// holds the repository lock.
func (w *Worker) rerunCheck(ctx context.Context, a jobs.VerifyArgs) error {
	f, err := w.st.GetFixPullRequest(ctx, a.RepositoryID, a.ClassID)
	if isNotFound(err) || err == nil && f.State != store.FixOpen {
		return nil
	}
	if err != nil {
		return err
	}
	return w.refreshAndRerun(ctx, a.InstallationID, f)
}

package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/polylane/polylane/server/jobs"

	"github.com/rs/zerolog"

	"github.com/polylane/polylane/analysis/history"
	"github.com/polylane/polylane/causal/diagnosis"
	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/server/report"
	"github.com/polylane/polylane/store"
)

// Store comment kinds besides store.CommentDiagnosis.
const commentRegression = "regression"

// published is what a publish or fix job works from: the stored diagnosis,
// the delivery's run, the repository and the app's bot.
type published struct {
	rec  store.Diagnosis
	doc  *diagnosis.Diagnosis
	p    *runPayload
	repo store.Repository
	gh   *ghclient.Repo
	bot  string
	inst int64
	set  settings
	// noWorkflows is set when GitHub refused a ref write onto the fix's
	// workflow change; installURL is the installation's settings page,
	// looked up for a reply that asks an owner to grant a permission.
	noWorkflows bool
	installURL  string
}

// load reads what publishing a run attempt's diagnosis needs: the
// diagnosis, the run (from the workflow_run delivery guid names, else, for
// a job started by a comment or a pull request event, from the stored
// run), the repository, its configuration and the app's bot.
func (w *Worker) load(ctx context.Context, guid string, installationID int64, key store.RunKey) (*published, error) {
	rec, err := w.st.GetDiagnosis(ctx, key)
	if isNotFound(err) {
		return nil, fail("no diagnosis of run %d attempt %d is stored", key.RunID, key.Attempt)
	}
	if err != nil {
		return nil, err
	}
	doc := &diagnosis.Diagnosis{}
	if err := json.Unmarshal(rec.Document, doc); err != nil {
		return nil, fail("stored diagnosis %d is not readable: %v", rec.ID, err)
	}
	p, err := w.runOfJob(ctx, guid, key)
	if err != nil {
		return nil, err
	}
	repo, err := w.st.GetRepository(ctx, key.RepositoryID)
	if err != nil {
		return nil, err
	}
	if repo.Removed {
		return nil, fail("repository %s was removed from the installation", repo.FullName)
	}
	if repo.DefaultBranch == "" {
		repo.DefaultBranch = p.Repository.DefaultBranch
	}
	gh, err := w.gh.Repo(installationID, repo.FullName)
	if err != nil {
		return nil, permanent{err}
	}
	bot, err := w.gh.BotLogin(ctx)
	if err != nil {
		return nil, err
	}
	set, err := w.settingsOf(ctx, gh, repo.ID, repo.DefaultBranch)
	if err != nil {
		return nil, err
	}
	return &published{rec: rec, doc: doc, p: p, repo: repo, gh: gh, bot: bot, inst: installationID, set: set}, nil
}

// runOfJob reads the run of a job: from its workflow_run delivery, or from
// the store when the job did not start with one.
func (w *Worker) runOfJob(ctx context.Context, guid string, key store.RunKey) (*runPayload, error) {
	if guid != "" {
		d, err := w.st.GetDelivery(ctx, guid)
		switch {
		case err == nil && d.Event == "workflow_run":
			p, err := parseRunPayload(d.Payload)
			if err != nil {
				return nil, permanent{err}
			}
			return p, nil
		case isNotFound(err):
			return nil, fail("delivery %s is not stored", guid)
		case err != nil:
			return nil, err
		}
	}
	run, err := w.st.GetRun(ctx, key)
	if isNotFound(err) {
		return nil, fail("run %d attempt %d is not stored", key.RunID, key.Attempt)
	}
	if err != nil {
		return nil, err
	}
	repo, err := w.st.GetRepository(ctx, key.RepositoryID)
	if err != nil {
		return nil, err
	}
	r := runOf(run)
	p := &runPayload{Run: r, Workflow: workflowRef{ID: run.WorkflowID, Name: run.WorkflowName, Path: run.WorkflowPath},
		Repository: repoRef{ID: repo.ID, FullName: repo.FullName, DefaultBranch: repo.DefaultBranch}}
	if r.Actor != nil {
		p.Triggerer = r.Actor.Login
	}
	return p, nil
}

// reportOptions are the rendering options of a diagnosis.
func (w *Worker) reportOptions(ctx context.Context, pub *published) report.Options {
	opts := report.Options{RepoID: pub.repo.ID, BotLogin: pub.bot}
	if root := strings.TrimSuffix(w.opts.DashboardURL, "/"); root != "" {
		owner, name, _ := strings.Cut(pub.repo.FullName, "/")
		opts.DashboardURL = fmt.Sprintf("%s/repos/%s/%s/diagnoses/%d", root, url.PathEscape(owner), url.PathEscape(name), pub.rec.ID)
	}
	if c, err := w.st.GetClass(ctx, pub.repo.ID, pub.doc.TriggerClass); err == nil && c.Muted {
		opts.Muted, opts.MuteReason = true, c.MuteReason
	} else if reason, ok := pub.set.MutedReason(pub.doc.TriggerClass); ok && pub.doc.TriggerClass != "" {
		opts.Muted, opts.MuteReason = true, reason
	}
	opts.ConfigWarnings = pub.set.Warnings
	opts.FixWithheld = pub.withheld()
	opts.Stale = pub.rec.Stale
	return opts
}

// publish works a publish job: one sticky assessment comment on each pull
// request of the run; for a failure on the default branch, the fix pull
// request job (a patch) or the regression comment (no patch). Mutations of
// one repository are serialised across workers by the repository lock.
func (w *Worker) publish(ctx context.Context, a jobs.PublishArgs) error {
	pub, err := w.load(ctx, a.DeliveryGUID, a.InstallationID, store.RunKey{RepositoryID: a.RepositoryID, RunID: a.RunID, Attempt: a.Attempt})
	if err != nil {
		return err
	}
	release, err := w.st.LockRepository(ctx, a.RepositoryID)
	if err != nil {
		return err
	}
	defer release()
	// A failure on a fix pull request's own branch is its verification,
	// not a new failure to assess (verify.go).
	if done, err := w.verifyFailure(ctx, pub); done || err != nil {
		return err
	}
	// The dashboard shows as muted the classes that the configuration in
	// effect mutes; a failure here costs that display, not the publication.
	if err := w.st.SetConfigMutes(ctx, a.RepositoryID, pub.set.MutedClasses()); err != nil {
		zerolog.Ctx(ctx).Warn().Err(err).Msg("the configuration's muted classes were not recorded")
	}
	opts := w.reportOptions(ctx, pub)
	prs, err := w.pullRequestsOf(ctx, pub)
	if err != nil {
		return err
	}
	if len(prs) > 0 && pub.set.CommentOnPullRequests {
		w.narrate(ctx, pub, &opts)
		body, err := report.Comment(pub.doc, opts)
		if err != nil {
			return permanent{err}
		}
		for _, n := range prs {
			s := sticky{repoID: a.RepositoryID, number: n, kind: store.CommentDiagnosis, body: body, diagnosisID: pub.rec.ID, bot: pub.bot}
			if _, err := w.upsertComment(ctx, pub.gh, s); err != nil {
				return err
			}
		}
	}
	if len(prs) > 0 || !onDefaultBranch(pub.repo, pub.p.Run) {
		return nil
	}
	if err := w.enqueueLifecycle(ctx, a, pub); err != nil {
		return err
	}
	switch {
	case pub.doc.Patch != nil && pub.doc.Verdict.Kind != history.Regression:
		return w.enqueueFix(ctx, a, pub, opts)
	case pub.doc.Verdict.Kind == history.Regression && pub.doc.Patch == nil && pub.set.CommentOnDefaultBranch:
		return w.regressionComment(ctx, pub, opts)
	}
	return nil
}

// enqueueFix queues the fix pull request job of a default-branch failure
// with a patch: when fix pull requests are automatic, or to refresh the
// class's open fix pull request with the new evidence. Polylane's own runs,
// muted classes and withheld fixes (fixgate.go) get none.
func (w *Worker) enqueueFix(ctx context.Context, a jobs.PublishArgs, pub *published, opts report.Options) error {
	log := zerolog.Ctx(ctx)
	withheld := pub.fixBlocked(false)
	switch {
	case pub.p.loopGuarded(pub.bot):
		log.Info().Msg("run of Polylane's own branch or bot: no fix pull request")
		return nil
	case opts.Muted:
		log.Info().Str("class", pub.doc.TriggerClass).Msg("class muted: no fix pull request")
		return nil
	case withheld != "":
		log.Info().Str("class", pub.doc.TriggerClass).Str("withheld", withheld).Msg("fix shown in the comment only: no fix pull request")
		return nil
	case !pub.set.AutomaticFixes:
		f, err := w.st.GetFixPullRequest(ctx, pub.repo.ID, pub.doc.TriggerClass)
		if isNotFound(err) || err == nil && f.State != store.FixOpen {
			log.Info().Str("class", pub.doc.TriggerClass).Msg("fix pull requests are not automatic here: none opened")
			return nil
		}
		if err != nil {
			return err
		}
	}
	return w.st.Enqueue(ctx, store.Job{Args: jobs.FixArgs{DeliveryGUID: a.DeliveryGUID, InstallationID: a.InstallationID,
		RepositoryID: a.RepositoryID, ClassID: pub.doc.TriggerClass, RunID: a.RunID, Attempt: a.Attempt}})
}

// pullRequestsOf finds the pull requests of the run in this repository:
// those the run lists (whose base is this repository), else for a pull
// request event the open ones from its head branch, else those containing
// its head commit (fork pull requests are not listed in the run).
func (w *Worker) pullRequestsOf(ctx context.Context, pub *published) ([]int, error) {
	run := pub.p.Run
	var out []int
	seen := map[int]bool{}
	add := func(n int) {
		if n > 0 && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, pr := range run.PullRequests {
		if pr.Base.Repo.ID == pub.repo.ID {
			add(pr.Number)
		}
	}
	if len(out) > 0 || !pullRequestEvent(run.Event) {
		return out, nil
	}
	if pub.p.HeadOwner != "" && run.HeadBranch != "" {
		list, err := pub.gh.ListPulls(ctx, ghclient.PullQuery{Head: pub.p.HeadOwner + ":" + run.HeadBranch, State: "open"})
		if err != nil {
			return nil, err
		}
		for _, pr := range list {
			if pr.BaseRepoID == 0 || pr.BaseRepoID == pub.repo.ID {
				add(pr.Number)
			}
		}
	}
	if len(out) == 0 && run.HeadSHA != "" {
		list, err := pub.gh.PullsWithCommit(ctx, run.HeadSHA)
		if err != nil {
			return nil, err
		}
		for _, pr := range list {
			if pr.State == "open" && (pr.BaseRepoID == 0 || pr.BaseRepoID == pub.repo.ID) {
				add(pr.Number)
			}
		}
	}
	return out, nil
}

// regressionComment comments on the pull request that introduced the first
// bad commit, or on the commit itself when no pull request has it.
func (w *Worker) regressionComment(ctx context.Context, pub *published, opts report.Options) error {
	sha := pub.doc.Verdict.FirstBadSHA
	if sha == nil || *sha == "" {
		return nil
	}
	body, err := report.RegressionComment(pub.doc, opts)
	if err != nil {
		return permanent{err}
	}
	list, err := pub.gh.PullsWithCommit(ctx, *sha)
	if err != nil {
		return err
	}
	for _, pr := range list {
		if pr.BaseRepoID == 0 || pr.BaseRepoID == pub.repo.ID {
			s := sticky{repoID: pub.repo.ID, number: pr.Number, kind: commentRegression, body: body, diagnosisID: pub.rec.ID, bot: pub.bot}
			_, err := w.upsertComment(ctx, pub.gh, s)
			return err
		}
	}
	want, _ := report.ParseMarker(body)
	comments, err := pub.gh.ListCommitComments(ctx, *sha)
	if err != nil {
		return err
	}
	for _, c := range comments {
		if ours(c, pub.bot, want) {
			return nil // commented already; commit comments are not edited
		}
	}
	_, err = pub.gh.CreateCommitComment(ctx, *sha, body)
	return err
}

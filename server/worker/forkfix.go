package worker

import (
	"cmp"
	"context"

	"github.com/polylane/polylane/server/jobs"

	"github.com/polylane/polylane/analysis/gha"

	"github.com/rs/zerolog"

	"github.com/polylane/polylane/store"
)

// forkRun reports whether a run's head commit came from another repository
// than repo: the run of a fork's pull request. A pull request's run that
// does not name its head repository (one stored by an older version)
// counts as one too, since building its fix from the default branch is the
// safe choice.
func forkRun(repo store.Repository, run gha.Run) bool {
	if run.HeadRepository == nil {
		return pullRequestEvent(run.Event)
	}
	return gha.HeadFromFork(run, gha.Repository{ID: repo.ID, FullName: repo.FullName})
}

// fromDefaultBranch returns pub itself, unless its run is a fork's: then
// the files a fork's pull request wrote must not become a branch of the
// base repository, so the diagnosis is run again with the causal stage
// reading the default branch's files at its head, and the returned copy of
// pub carries that diagnosis (its patch, chain and impact). The stored
// diagnosis of the fork's run is left as it is.
func (w *Worker) fromDefaultBranch(ctx context.Context, pub *published, a jobs.FixArgs) (*published, error) {
	if !forkRun(pub.repo, pub.p.Run) {
		return pub, nil
	}
	head, err := pub.gh.BranchHead(ctx, pub.repo.DefaultBranch)
	if err != nil {
		return nil, err
	}
	da := jobs.DiagnoseArgs{DeliveryGUID: a.DeliveryGUID, InstallationID: a.InstallationID, RepositoryID: a.RepositoryID,
		RunID: a.RunID, Attempt: a.Attempt}
	out, err := w.runPipeline(ctx, pub.gh, da, pub.p, cmp.Or(pub.set.Window, w.opts.WindowSize), head)
	if err != nil {
		return nil, err
	}
	zerolog.Ctx(ctx).Info().Int64("run_id", a.RunID).Str("base", short(head)).Bool("patch", out.Diagnosis.Patch != nil).
		Msg("run of a fork's pull request: fix built from the default branch's files")
	rebuilt := *pub
	rebuilt.doc = out.Diagnosis
	return &rebuilt, nil
}

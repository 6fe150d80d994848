package ghclient

import (
	"context"
	"fmt"

	"github.com/google/go-github/v66/github"
)

// RerunRun starts a new attempt of a whole run (all its jobs), as a
// person's "Re-run all jobs" does; it needs the installation's actions
// write permission. Each call starts an attempt, so it is not repeated
// after an unknown outcome.
func (r *Repo) RerunRun(ctx context.Context, runID int64) error {
	op := fmt.Sprintf("re-run run %d of %s", runID, r.FullName())
	return r.c.do(ctx, op, once, func(ctx context.Context) (*github.Response, error) {
		return r.gh.Actions.RerunWorkflowByID(ctx, r.owner, r.name, runID)
	})
}

// RerunJob starts a new attempt of a job's run with that job (and the jobs
// that need it), as a person's "Re-run this job" does; it needs the
// installation's actions write permission. Not repeated after an unknown
// outcome.
func (r *Repo) RerunJob(ctx context.Context, jobID int64) error {
	op := fmt.Sprintf("re-run job %d of %s", jobID, r.FullName())
	return r.c.do(ctx, op, once, func(ctx context.Context) (*github.Response, error) {
		return r.gh.Actions.RerunJobByID(ctx, r.owner, r.name, jobID)
	})
}

// CoreRate reads the installation's core REST rate budget: the requests
// left in the current hour and the hour's limit. Reading it does not count.
func (r *Repo) CoreRate(ctx context.Context) (remaining, limit int, err error) {
	err = r.c.do(ctx, "read the rate limit of "+r.FullName(), idempotent, func(ctx context.Context) (*github.Response, error) {
		rl, resp, err := r.gh.RateLimit.Get(ctx)
		if err != nil {
			return resp, err
		}
		if core := rl.GetCore(); core != nil {
			remaining, limit = core.Remaining, core.Limit
		}
		return resp, nil
	})
	return remaining, limit, err
}

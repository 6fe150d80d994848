package worker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/polylane/polylane/server/jobs"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/rs/zerolog"

	"github.com/polylane/polylane/server"
	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/server/narrator"
	"github.com/polylane/polylane/store"
)

// DefaultJobTimeout bounds one job: a cold diagnosis reads a whole window.
const DefaultJobTimeout = 10 * time.Minute

// Options configure the workers.
type Options struct {
	Store store.Store
	// GitHub is the client of the app; nil makes every job fail with an
	// explanation (no credentials configured).
	GitHub *ghclient.Client
	// Logger is the base logger; each job logs with its delivery, repository
	// and run.
	Logger zerolog.Logger
	// Metrics count job outcomes (nil: not counted).
	Metrics *server.Metrics
	// GitHubMetrics record the GitHub calls of each diagnosis (nil: none).
	GitHubMetrics *ghclient.Metrics
	// WindowSize is the number of runs a diagnosis looks at (0: 100).
	WindowSize int
	// Publish posts comments and fix pull requests; false stores the
	// diagnosis only.
	Publish bool
	// DashboardURL is the dashboard's public root; comments link to it when
	// set.
	DashboardURL string
	// JobTimeout bounds one job (0: DefaultJobTimeout).
	JobTimeout time.Duration
	// MaxBlobs bounds the repository files one diagnosis downloads (0: 400).
	MaxBlobs int
	// FailingConclusions are the run conclusions diagnosed in repositories
	// whose .github/polylane.yml does not choose (nil:
	// jobs.DefaultFailingConclusions).
	FailingConclusions []string
	// Narrator words comments and answers "@polylane why" for repositories
	// that opted in (nil: Polylane's own text everywhere).
	Narrator *narrator.Narrator
	// Around, when set, runs around the work of every job, with its kind
	// (the reliability sweep labels each GitHub call with the job that made
	// it); nil runs the work alone.
	Around func(ctx context.Context, kind string, work func(context.Context) error) error
}

// Cache retention: entries of the GitHub response cache not written for
// cacheRetention are deleted, at most once per pruneEvery in a process.
const (
	cacheRetention = 30 * 24 * time.Hour
	pruneEvery     = time.Hour
)

// Worker works Polylane's queued jobs.
type Worker struct {
	opts      Options
	st        store.Store
	gh        *ghclient.Client
	log       zerolog.Logger
	lastPrune atomic.Int64 // unix seconds
	baselines baselineCache
}

// pruneCache drops old cache entries (trees of old commits, blobs of old
// file versions) now and then; a failure is logged and left for next time.
func (w *Worker) pruneCache(ctx context.Context) {
	now := time.Now()
	last := w.lastPrune.Load()
	if now.Unix()-last < int64(pruneEvery/time.Second) || !w.lastPrune.CompareAndSwap(last, now.Unix()) {
		return
	}
	n, err := w.st.PruneCache(ctx, now.Add(-cacheRetention))
	log := zerolog.Ctx(ctx)
	if err != nil {
		log.Warn().Err(err).Msg("prune the GitHub response cache")
		return
	}
	if n > 0 {
		log.Info().Int64("entries", n).Msg("pruned the GitHub response cache")
	}
}

// Register adds the diagnose, publish, fix, mention, pull request and
// lifecycle workers to workers.
func Register(workers *river.Workers, opts Options) (*Worker, error) {
	if opts.Store == nil {
		return nil, errors.New("worker: no store")
	}
	if opts.WindowSize <= 0 {
		opts.WindowSize = 100
	}
	if opts.JobTimeout <= 0 {
		opts.JobTimeout = DefaultJobTimeout
	}
	if opts.MaxBlobs <= 0 {
		opts.MaxBlobs = 400
	}
	if opts.FailingConclusions == nil {
		opts.FailingConclusions = jobs.DefaultFailingConclusions
	}
	w := &Worker{opts: opts, st: opts.Store, gh: opts.GitHub, log: opts.Logger}
	if err := register(workers, w); err != nil {
		return nil, err
	}
	return w, nil
}

// register adds one worker per job kind, each the generic adapter around
// the step that works it.
func register(workers *river.Workers, w *Worker) error {
	for _, err := range []error{
		add(workers, w, func(jobs.DiagnoseArgs) string { return "diagnose" }, (*Worker).diagnose),
		add(workers, w, func(jobs.PublishArgs) string { return "publish" }, (*Worker).publish),
		add(workers, w, func(jobs.FixArgs) string { return "fix pull request" }, (*Worker).fix),
		add(workers, w, func(jobs.MentionArgs) string { return "answer the comment" }, (*Worker).mention),
		add(workers, w, func(a jobs.PullRequestArgs) string { return "pull request " + a.Action }, (*Worker).pullRequestDone),
		add(workers, w, func(jobs.LifecycleArgs) string { return "fix pull request check" }, (*Worker).lifecycleDone),
		add(workers, w, func(jobs.VerifyArgs) string { return "fix verification" }, (*Worker).verify),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}

// adapter works one kind of job: it puts the job's keys in the logger and
// hands the step to run, which turns its error into River's verdict.
type adapter[A jobs.Args] struct {
	river.WorkerDefaults[A]
	w    *Worker
	step func(A) string
	do   func(*Worker, context.Context, A) error
}

func add[A jobs.Args](workers *river.Workers, w *Worker, step func(A) string, do func(*Worker, context.Context, A) error) error {
	if err := river.AddWorkerSafely(workers, &adapter[A]{w: w, step: step, do: do}); err != nil {
		var zero A
		return fmt.Errorf("register the %s worker: %w", zero.Kind(), err)
	}
	return nil
}

// Timeout bounds one attempt.
func (a *adapter[A]) Timeout(*river.Job[A]) time.Duration { return a.w.opts.JobTimeout }

// Work works one job.
func (a *adapter[A]) Work(ctx context.Context, job *river.Job[A]) error {
	k := job.Args.Keys()
	ctx = a.w.jobContext(ctx, k.DeliveryGUID, k.InstallationID, k.RepositoryID, k.RunID)
	work := func(ctx context.Context) error { return a.do(a.w, ctx, job.Args) }
	if around := a.w.opts.Around; around != nil {
		inner := work
		work = func(ctx context.Context) error { return around(ctx, job.Args.Kind(), inner) }
	}
	return a.w.run(ctx, job.JobRow, k.DeliveryGUID, a.step(job.Args), work)
}

// jobContext puts a logger with the job's keys in ctx.
func (w *Worker) jobContext(ctx context.Context, guid string, installation, repo, run int64) context.Context {
	l := w.log.With().Str(server.LogKeyDeliveryID, guid).Int64(server.LogKeyInstallationID, installation).
		Int64("repository_id", repo).Int64(server.LogKeyRunID, run).Logger()
	return l.WithContext(ctx)
}

// permanent marks an error that retrying cannot fix: the job is cancelled
// and its delivery marked failed at once.
type permanent struct{ err error }

func (p permanent) Error() string { return p.err.Error() }
func (p permanent) Unwrap() error { return p.err }

// fail returns a permanent error.
func fail(format string, args ...any) error { return permanent{fmt.Errorf(format, args...)} }

// maxCrashes is how many attempts of one job may end with their process
// gone before the job is handed out no more: the first crash may be a
// replica stopped for a deploy, so the job gets one recovery attempt; a
// second is most likely the job itself (hostile input that kills the
// process), and retrying it again would stop the server once more.
const maxCrashes = 2

// crashes counts the attempts of a job that ended with their process gone:
// River's rescuer records one for each job it takes back from a dead
// worker.
func crashes(errs []rivertype.AttemptError) int {
	n := 0
	for _, e := range errs {
		if strings.Contains(e.Error, "rescued by") {
			n++
		}
	}
	return n
}

// run works one job: it turns the step's error into River's verdict
// (retry, snooze after a long rate limit, cancel when retrying cannot help),
// keeps the delivery's state visible, and counts the outcome. A job whose
// process died maxCrashes times is not run again.
func (w *Worker) run(ctx context.Context, job *rivertype.JobRow, guid, step string, fn func(context.Context) error) error {
	start := time.Now()
	kind, attempt, maxAttempts := job.Kind, job.Attempt, job.MaxAttempts
	if w.gh == nil {
		err := fail("no GitHub App credentials are configured (POLYLANE_GITHUB_APP_ID and a private key)")
		return w.finish(ctx, kind, start, guid, step, river.JobCancel(err), err, true)
	}
	if n := crashes(job.Errors); n >= maxCrashes {
		err := fail("the process working on it stopped %d times before it finished (the replica was killed or crashed); Polylane does not run it again, so that it cannot stop the server again", n)
		zerolog.Ctx(ctx).Error().Int64("job_id", job.ID).Int("crashes", n).Msg(step + " is not run again: its process died on each of its last attempts")
		return w.finish(ctx, kind, start, guid, step, river.JobCancel(err), err, true)
	}
	err := fn(ctx)
	var rl *ghclient.RateLimitedError
	var perm permanent
	switch {
	case err == nil:
		return w.finish(ctx, kind, start, guid, step, nil, nil, false)
	case errors.As(err, &rl):
		return w.finish(ctx, kind, start, guid, step, river.JobSnooze(rl.Wait), err, false)
	case errors.As(err, &perm) || errors.Is(err, ghclient.ErrNoPermission) || errors.Is(err, ghclient.ErrNotFound) ||
		errors.Is(err, ghclient.ErrUnprocessable): // GitHub refused the request as invalid: the same request fails again
		return w.finish(ctx, kind, start, guid, step, river.JobCancel(err), err, true)
	default:
		return w.finish(ctx, kind, start, guid, step, err, err, attempt >= maxAttempts)
	}
}

// finish records a job's end: the metric, the log line, and for a final
// failure the delivery's failed state with the reason.
func (w *Worker) finish(ctx context.Context, kind string, start time.Time, guid, step string, verdict, cause error, final bool) error {
	log := zerolog.Ctx(ctx)
	outcome := server.JobSucceeded
	var snooze *river.JobSnoozeError
	switch {
	case verdict == nil:
	case errors.As(verdict, &snooze):
		outcome = server.JobSnoozed
	case final:
		outcome = server.JobDiscarded
		if errors.As(verdict, new(*river.JobCancelError)) {
			outcome = server.JobCancelled
		}
	default:
		outcome = server.JobFailed
	}
	if w.opts.Metrics != nil {
		w.opts.Metrics.JobDone(kind, outcome, time.Since(start))
	}
	if cause != nil {
		log.Warn().Err(cause).Str("job", kind).Str("outcome", outcome).Msg(step + " did not finish")
	}
	if final && guid != "" {
		text := step + " failed: " + cause.Error()
		if err := w.st.SetDeliveryState(context.WithoutCancel(ctx), guid, store.DeliveryFailed, clipText(text, 2000)); err != nil {
			log.Warn().Err(err).Msg("record the failed delivery")
		}
	}
	return verdict
}

// clipText bounds a text kept in the store.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

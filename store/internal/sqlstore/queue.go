package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/polylane/polylane/store"
)

// cancelGrace bounds how long StopQueue waits for cancelled jobs to return
// once its own deadline has passed.
const cancelGrace = 5 * time.Second

// Queue owns the River clients of a backend: an insert-only client created
// with the store, and a working client between StartQueue and StopQueue.
type Queue[TTx any] struct {
	driver   riverdriver.Driver[TTx]
	logger   *slog.Logger
	pollOnly bool
	inserter *river.Client[TTx]

	mu      sync.Mutex
	working *river.Client[TTx]
}

// NewQueue returns the queue of a backend. pollOnly is for databases without
// LISTEN/NOTIFY.
func NewQueue[TTx any](driver riverdriver.Driver[TTx], logger *slog.Logger, pollOnly bool) (*Queue[TTx], error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	inserter, err := river.NewClient(driver, &river.Config{Logger: logger, PollOnly: pollOnly})
	if err != nil {
		return nil, fmt.Errorf("create queue client: %w", err)
	}
	return &Queue[TTx]{driver: driver, logger: logger, pollOnly: pollOnly, inserter: inserter}, nil
}

// client returns the working client when it runs (its inserts wake local
// workers at once) and the insert-only client otherwise.
func (q *Queue[TTx]) client() *river.Client[TTx] {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.working != nil {
		return q.working
	}
	return q.inserter
}

// InsertTx inserts a job inside the backend's transaction tx; skipped
// reports a unique job that already existed.
func (q *Queue[TTx]) InsertTx(ctx context.Context, tx TTx, args river.JobArgs, opts *river.InsertOpts) (skipped bool, err error) {
	res, err := q.client().InsertTx(ctx, tx, args, opts)
	if err != nil {
		return false, err
	}
	return res.UniqueSkippedAsDuplicate, nil
}

// InsertManyTx inserts jobs inside tx with one statement; skipped reports,
// per job, a unique job that already existed.
func (q *Queue[TTx]) InsertManyTx(ctx context.Context, tx TTx, jobs []river.InsertManyParams) ([]bool, error) {
	res, err := q.client().InsertManyTx(ctx, tx, jobs)
	if err != nil {
		return nil, err
	}
	skipped := make([]bool, len(res))
	for i, r := range res {
		skipped[i] = r.UniqueSkippedAsDuplicate
	}
	return skipped, nil
}

// InsertManyFastTx inserts jobs inside tx without reading them back and
// returns how many it inserted. On SQLite a unique job that exists is
// skipped; River's PostgreSQL driver copies the rows instead and fails on
// one, so the PostgreSQL store does not call it.
func (q *Queue[TTx]) InsertManyFastTx(ctx context.Context, tx TTx, jobs []river.InsertManyParams) (int, error) {
	return q.client().InsertManyFastTx(ctx, tx, jobs)
}

// Start creates the working client and starts it.
func (q *Queue[TTx]) Start(ctx context.Context, opts store.QueueOptions) error {
	if opts.Workers == nil {
		return fmt.Errorf("start queue: no workers: %w", store.ErrInvalid)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.working != nil {
		return errors.New("start queue: already running")
	}
	maxWorkers := opts.MaxWorkers
	if maxWorkers <= 0 {
		maxWorkers = 4
	}
	queues := map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: maxWorkers}}
	for name, n := range opts.Queues {
		queues[name] = river.QueueConfig{MaxWorkers: max(n, 1)}
	}
	poll := opts.PollInterval
	if poll <= 0 {
		poll = time.Second
	}
	client, err := river.NewClient(q.driver, &river.Config{
		Logger:               q.logger,
		PollOnly:             q.pollOnly,
		Queues:               queues,
		Workers:              opts.Workers,
		JobTimeout:           opts.JobTimeout,
		RescueStuckJobsAfter: opts.RescueAfter,
		RetryPolicy:          opts.RetryPolicy,
		FetchPollInterval:    poll,
		FetchCooldown:        min(poll, 100*time.Millisecond),
		// Inserts go through this client while it runs; they must accept the
		// same kinds as the insert-only client (another replica may work them).
		SkipUnknownJobCheck: true,
	})
	if err != nil {
		return fmt.Errorf("create queue workers: %w", err)
	}
	// The workers outlive the caller's context: StopQueue ends them gracefully.
	if err := client.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("start queue workers: %w", err)
	}
	q.working = client
	return nil
}

// Stop stops the working client: running jobs may finish until ctx is done,
// then they are cancelled.
func (q *Queue[TTx]) Stop(ctx context.Context) error {
	q.mu.Lock()
	client := q.working
	q.working = nil
	q.mu.Unlock()
	if client == nil {
		return nil
	}
	err := client.Stop(ctx)
	if err == nil {
		return nil
	}
	hard, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelGrace)
	defer cancel()
	if herr := client.StopAndCancel(hard); herr != nil {
		return fmt.Errorf("stop queue: %w (cancelling jobs: %v)", err, herr)
	}
	return fmt.Errorf("stop queue: jobs cancelled at the deadline: %w", err)
}

// Running reports whether the working client runs.
func (q *Queue[TTx]) Running() bool {
	q.mu.Lock()
	client := q.working
	q.mu.Unlock()
	if client == nil {
		return false
	}
	select {
	case <-client.Stopped():
		return false
	default:
		return true
	}
}

// Migrate applies River's pending migrations and returns the resulting
// version and how many were applied.
func (q *Queue[TTx]) Migrate(ctx context.Context) (version, applied int, err error) {
	m, err := rivermigrate.New(q.driver, &rivermigrate.Config{Logger: q.logger})
	if err != nil {
		return 0, 0, fmt.Errorf("river migrator: %w", err)
	}
	res, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return 0, 0, fmt.Errorf("river migrations: %w", err)
	}
	all := m.AllVersions()
	if len(all) > 0 {
		version = all[len(all)-1].Version
	}
	return version, len(res.Versions), nil
}

// CheckMigrations returns an error when River's schema is not current.
func (q *Queue[TTx]) CheckMigrations(ctx context.Context) error {
	m, err := rivermigrate.New(q.driver, &rivermigrate.Config{Logger: q.logger})
	if err != nil {
		return fmt.Errorf("river migrator: %w", err)
	}
	res, err := m.Validate(ctx, nil)
	if err != nil {
		return fmt.Errorf("check queue migrations: %w", err)
	}
	if !res.OK {
		return fmt.Errorf("queue migrations not applied: %v", res.Messages)
	}
	return nil
}

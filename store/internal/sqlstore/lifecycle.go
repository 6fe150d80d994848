package sqlstore

import (
	"context"
	"database/sql"
	"sync/atomic"
	"time"

	"github.com/polylane/polylane/store"
)

// closeQueueWait bounds how long Close waits for running jobs.
const closeQueueWait = 5 * time.Second

// Lifecycle is what the two backends share besides their record methods:
// applying and checking migrations and running the queue. A backend's Store
// embeds it beside its Records.
type Lifecycle[TTx any] struct {
	records *Records
	queue   *Queue[TTx]
	dialect string
	current atomic.Bool // migrations were found current once
}

// NewLifecycle returns the lifecycle of a store whose records are records,
// whose queue is queue and whose migrations are those of dialect (a
// migrations constant).
func NewLifecycle[TTx any](records *Records, queue *Queue[TTx], dialect string) *Lifecycle[TTx] {
	return &Lifecycle[TTx]{records: records, queue: queue, dialect: dialect}
}

// MigrateOn applies Polylane's pending migrations on db, then River's. The
// caller serialises concurrent migrators.
func (l *Lifecycle[TTx]) MigrateOn(ctx context.Context, db *sql.DB) (store.MigrationReport, error) {
	var rep store.MigrationReport
	var err error
	if rep.SchemaVersion, rep.SchemaApplied, err = MigrateSchema(ctx, db, l.dialect); err != nil {
		return rep, err
	}
	if rep.QueueVersion, rep.QueueApplied, err = l.queue.Migrate(ctx); err != nil {
		return rep, err
	}
	return rep, nil
}

// CheckMigrations reports whether every migration is applied. Once they
// are, it answers without reading again.
func (l *Lifecycle[TTx]) CheckMigrations(ctx context.Context) error {
	if l.current.Load() {
		return nil
	}
	err := l.records.db.Read(ctx, func(tx Tx) error { return CheckSchema(ctx, tx, l.dialect) })
	if err != nil {
		return err
	}
	if err := l.queue.CheckMigrations(ctx); err != nil {
		return err
	}
	l.current.Store(true)
	return nil
}

// StartQueue starts working jobs.
func (l *Lifecycle[TTx]) StartQueue(ctx context.Context, opts store.QueueOptions) error {
	return l.queue.Start(ctx, opts)
}

// StopQueue stops working jobs, waiting for running ones until ctx is done.
func (l *Lifecycle[TTx]) StopQueue(ctx context.Context) error { return l.queue.Stop(ctx) }

// QueueStats counts jobs by state.
func (l *Lifecycle[TTx]) QueueStats(ctx context.Context) (store.QueueStats, error) {
	counts, err := l.records.JobCounts(ctx)
	if err != nil {
		return store.QueueStats{}, err
	}
	return store.QueueStats{Running: l.queue.Running(), Jobs: counts}, nil
}

// CloseQueue stops the queue for Close, waiting up to 5 s for running jobs.
func (l *Lifecycle[TTx]) CloseQueue() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeQueueWait)
	defer cancel()
	return l.queue.Stop(ctx)
}

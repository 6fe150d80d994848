package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/riverqueue/river"

	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/store/internal/sqlstore"
)

// txRunner gives the shared record code its transactions.
type txRunner struct{ s *Store }

// Read runs fn in a read-only transaction.
func (r txRunner) Read(ctx context.Context, fn func(sqlstore.Tx) error) error {
	return r.s.run(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly}, fn)
}

// Write runs fn in a read-write transaction.
func (r txRunner) Write(ctx context.Context, fn func(sqlstore.Tx) error) error {
	return r.s.run(ctx, pgx.TxOptions{}, fn)
}

func (s *Store) run(ctx context.Context, opts pgx.TxOptions, fn func(sqlstore.Tx) error) error {
	pgTx, err := s.pool.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	if err := fn(&tx{tx: pgTx, store: s}); err != nil {
		_ = pgTx.Rollback(context.WithoutCancel(ctx))
		return err
	}
	if err := pgTx.Commit(ctx); err != nil {
		return classify(fmt.Errorf("commit: %w", err))
	}
	return nil
}

// tx adapts pgx.Tx to sqlstore.Tx and classifies errors.
type tx struct {
	tx    pgx.Tx
	store *Store
}

func (t *tx) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := t.tx.Exec(ctx, query, args...)
	if err != nil {
		return 0, classify(err)
	}
	return tag.RowsAffected(), nil
}

func (t *tx) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	rows, err := t.tx.Query(ctx, query, args...)
	if err != nil {
		return nil, classify(err)
	}
	return rows, nil
}

func (t *tx) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return pgRow{t.tx.QueryRow(ctx, query, args...)}
}

func (t *tx) Enqueue(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (bool, error) {
	return t.store.queue.InsertTx(ctx, t.tx, args, opts)
}

func (t *tx) EnqueueMany(ctx context.Context, jobs []river.InsertManyParams) ([]bool, error) {
	return t.store.queue.InsertManyTx(ctx, t.tx, jobs)
}

// EnqueueManyFast inserts with EnqueueMany and counts: River's fast insert
// on PostgreSQL copies the rows and would fail on an existing unique job
// instead of skipping it.
func (t *tx) EnqueueManyFast(ctx context.Context, jobs []river.InsertManyParams) (int, error) {
	skipped, err := t.EnqueueMany(ctx, jobs)
	n := 0
	for _, sk := range skipped {
		if !sk {
			n++
		}
	}
	return n, err
}

type pgRow struct{ row pgx.Row }

func (r pgRow) Scan(dest ...any) error { return classify(r.row.Scan(dest...)) }

// classify maps PostgreSQL errors to the store's sentinel errors.
func classify(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return store.ErrNotFound
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "23505": // unique_violation
			return fmt.Errorf("%w: %v", store.ErrConflict, err)
		case "23503": // foreign_key_violation
			return fmt.Errorf("%w: a referenced record is missing: %v", store.ErrNotFound, err)
		}
	}
	return err
}

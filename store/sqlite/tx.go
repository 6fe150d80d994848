package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/store/internal/sqlstore"
)

// txRunner gives the shared record code its transactions.
type txRunner struct{ s *Store }

// InProcess says that statements cost no round trip and that connections
// keep compiled statements (stmtcache.go).
func (txRunner) InProcess() bool { return true }

// Read runs fn in a transaction on the read pool.
func (r txRunner) Read(ctx context.Context, fn func(sqlstore.Tx) error) error {
	return r.s.run(ctx, r.s.reader, fn)
}

// Write runs fn in an IMMEDIATE transaction on the writer connection.
func (r txRunner) Write(ctx context.Context, fn func(sqlstore.Tx) error) error {
	return r.s.run(ctx, r.s.writer, fn)
}

func (s *Store) run(ctx context.Context, db *sql.DB, fn func(sqlstore.Tx) error) error {
	sqlTx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return classify(fmt.Errorf("begin transaction: %w", err))
	}
	if err := fn(&tx{tx: sqlTx, store: s}); err != nil {
		_ = sqlTx.Rollback()
		return err
	}
	if err := sqlTx.Commit(); err != nil {
		return classify(fmt.Errorf("commit: %w", err))
	}
	return nil
}

// tx adapts *sql.Tx to sqlstore.Tx: it rewrites $N placeholders to ?N,
// stores times as INTEGER microseconds and classifies errors.
type tx struct {
	tx    *sql.Tx
	store *Store
}

func rebind(query string) string { return strings.ReplaceAll(query, "$", "?") }

func convertArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case time.Time:
			out[i] = v.UnixMicro()
		case *time.Time:
			if v == nil {
				out[i] = nil
			} else {
				out[i] = v.UnixMicro()
			}
		default:
			out[i] = a
		}
	}
	return out
}

func (t *tx) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := t.tx.ExecContext(ctx, rebind(query), convertArgs(args)...)
	if err != nil {
		return 0, classify(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("rows affected: %w", err)
	}
	return n, nil
}

func (t *tx) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	rows, err := t.tx.QueryContext(ctx, rebind(query), convertArgs(args)...)
	if err != nil {
		return nil, classify(err)
	}
	return sqlRows{rows}, nil
}

func (t *tx) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return sqlRow{t.tx.QueryRowContext(ctx, rebind(query), convertArgs(args)...)}
}

func (t *tx) Enqueue(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (bool, error) {
	return t.store.queue.InsertTx(ctx, t.tx, args, opts)
}

func (t *tx) EnqueueMany(ctx context.Context, jobs []river.InsertManyParams) ([]bool, error) {
	return t.store.queue.InsertManyTx(ctx, t.tx, jobs)
}

func (t *tx) EnqueueManyFast(ctx context.Context, jobs []river.InsertManyParams) (int, error) {
	return t.store.queue.InsertManyFastTx(ctx, t.tx, jobs)
}

type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { _ = r.Rows.Close() }

type sqlRow struct{ row *sql.Row }

func (r sqlRow) Scan(dest ...any) error { return classify(r.row.Scan(dest...)) }

// classify maps SQLite errors to the store's sentinel errors.
func classify(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return store.ErrNotFound
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return fmt.Errorf("%w: %v", store.ErrConflict, err)
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return fmt.Errorf("%w: a referenced record is missing: %v", store.ErrNotFound, err)
		}
	}
	return err
}

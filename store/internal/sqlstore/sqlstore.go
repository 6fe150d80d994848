// Package sqlstore holds what store/sqlite and store/postgres share: the SQL of
// every record method (written once, with $N placeholders that the SQLite
// backend rewrites), the River queue wrapper and the migration helpers. A
// backend supplies transactions through the DB interface and translates its
// driver's errors into the store package's sentinel errors.
package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/polylane/polylane/store"
)

// Tx is one open transaction of a backend. Errors come back already
// classified: a missing row or a dangling reference wraps store.ErrNotFound, a
// unique violation wraps store.ErrConflict.
type Tx interface {
	// Exec runs a statement and returns the number of rows it affected.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	Query(ctx context.Context, query string, args ...any) (Rows, error)
	QueryRow(ctx context.Context, query string, args ...any) Row
	// Enqueue inserts a River job inside this transaction. skipped is true
	// when the job is unique and an equal one already exists.
	Enqueue(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (skipped bool, err error)
	// EnqueueMany inserts River jobs inside this transaction with one
	// statement; skipped[i] reports a unique job that already existed.
	EnqueueMany(ctx context.Context, jobs []river.InsertManyParams) (skipped []bool, err error)
	// EnqueueManyFast inserts River jobs inside this transaction without
	// reading them back and returns how many it inserted: a unique job
	// that already exists is skipped, and not counted.
	EnqueueManyFast(ctx context.Context, jobs []river.InsertManyParams) (inserted int, err error)
}

// Rows iterates over a query's result.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// Row is the result of a query that returns at most one row.
type Row interface {
	Scan(dest ...any) error
}

// DB runs functions in transactions: Read may use a read-only connection,
// Write is serialised with the other writers as the backend requires. A
// function's error rolls the transaction back and is returned as is.
type DB interface {
	Read(ctx context.Context, fn func(Tx) error) error
	Write(ctx context.Context, fn func(Tx) error) error
}

// InProcess is implemented by a DB whose statements cost no round trip
// (SQLite, in the process) and whose connections keep compiled statements:
// a batch is cheaper written one row per statement, with a statement
// compiled once, than with a multi-row statement compiled for each batch
// size. (SQLite also looks each numbered parameter up by a linear scan when
// binding, so a statement of n parameters binds in O(n²).)
type InProcess interface {
	InProcess() bool
}

func inProcess(db DB) bool {
	p, ok := db.(InProcess)
	return ok && p.InProcess()
}

// Records implements the record methods of store.Store on a DB.
type Records struct {
	db  DB
	now func() time.Time
}

// NewRecords returns Records over db; now is the clock (nil: time.Now).
func NewRecords(db DB, now func() time.Time) *Records {
	if now == nil {
		now = time.Now
	}
	return &Records{db: db, now: now}
}

// clock returns the current time at the stores' precision.
func (s *Records) clock() time.Time { return norm(s.now()) }

// norm puts a time in UTC at microsecond precision, the precision both
// backends keep.
func norm(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC().Truncate(time.Microsecond)
}

// optTime is the SQL argument of an optional time: NULL when zero.
func optTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return norm(t)
}

// timeDest scans a time column of either backend (a time.Time from
// PostgreSQL, INTEGER microseconds from SQLite, or NULL) into a time.Time.
type timeDest struct{ t *time.Time }

// at returns a scan destination for a time column.
func at(t *time.Time) timeDest { return timeDest{t} }

// Scan implements sql.Scanner.
func (d timeDest) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*d.t = time.Time{}
	case time.Time:
		*d.t = norm(v)
	case int64:
		*d.t = time.UnixMicro(v).UTC()
	default:
		return fmt.Errorf("scan time: unsupported column value %T", src)
	}
	return nil
}

// invalid returns an error wrapping store.ErrInvalid.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), store.ErrInvalid)
}

// enqueueAll inserts jobs in tx.
func enqueueAll(ctx context.Context, tx Tx, jobs []store.Job) error {
	for i, j := range jobs {
		if j.Args == nil {
			return invalid("job %d has no arguments", i)
		}
		if _, err := tx.Enqueue(ctx, j.Args, j.Opts); err != nil {
			return fmt.Errorf("enqueue %s job: %w", j.Args.Kind(), err)
		}
	}
	return nil
}

// Enqueue inserts jobs in one transaction.
func (s *Records) Enqueue(ctx context.Context, jobs ...store.Job) error {
	if len(jobs) == 0 {
		return nil
	}
	return s.db.Write(ctx, func(tx Tx) error { return enqueueAll(ctx, tx, jobs) })
}

// JobCounts counts River jobs by state.
func (s *Records) JobCounts(ctx context.Context) (map[string]int64, error) {
	counts := map[string]int64{}
	err := s.db.Read(ctx, func(tx Tx) error {
		rows, err := tx.Query(ctx, `SELECT state, count(*) FROM river_job GROUP BY state`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var state string
			var n int64
			if err := rows.Scan(&state, &n); err != nil {
				return err
			}
			counts[state] = n
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("count queued jobs: %w", err)
	}
	return counts, nil
}

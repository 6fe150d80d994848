// Package postgres implements store.Store on PostgreSQL through pgx/v5; it is the
// backend for production and for more than one replica. River's queue lives in
// the same database (riverpgxv5 on the same pool), so a delivery and its job
// commit together.
package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/polylane/polylane/migrations"
	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/store/internal/sqlstore"
)

// migrateLockKey is the advisory lock that serialises concurrent migrators
// (several replicas starting at once).
const migrateLockKey int64 = 0x706f6c796c616e65 // "polylane"

// Options configure Open.
type Options struct {
	// URL is a postgres:// or postgresql:// connection URL.
	URL string
	// Schema, when set, becomes the search_path of every connection (tests
	// use one schema each).
	Schema string
	// Logger receives the queue's logs (nil: discarded).
	Logger *slog.Logger
	// Now is the clock for the times the store sets (nil: time.Now).
	Now func() time.Time
	// MaxConns bounds the pool (0: pgx's default).
	MaxConns int32
}

// Store is the PostgreSQL implementation of store.Store.
type Store struct {
	*sqlstore.Records
	*sqlstore.Lifecycle[pgx.Tx]
	pool  *pgxpool.Pool
	sqlDB *sql.DB // the same pool through database/sql, for goose
	queue *sqlstore.Queue[pgx.Tx]
}

var _ store.Store = (*Store)(nil)

// Redact returns the URL with its password replaced, for messages.
func Redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// Open connects and pings the database; it creates nothing. Call Migrate to
// create the schema.
func Open(ctx context.Context, opts Options) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(opts.URL)
	if err != nil {
		return nil, fmt.Errorf("parse PostgreSQL URL: %w", err)
	}
	if opts.Schema != "" {
		cfg.ConnConfig.RuntimeParams["search_path"] = opts.Schema
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pingCtx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	queue, err := sqlstore.NewQueue(riverpgxv5.New(pool), opts.Logger, false)
	if err != nil {
		pool.Close()
		return nil, err
	}
	s := &Store{pool: pool, sqlDB: stdlib.OpenDBFromPool(pool), queue: queue}
	s.Records = sqlstore.NewRecords(txRunner{s}, opts.Now)
	s.Lifecycle = sqlstore.NewLifecycle(s.Records, queue, migrations.Postgres)
	return s, nil
}

// Pool returns the connection pool.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Backend returns "postgres".
func (s *Store) Backend() string { return "postgres" }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("ping PostgreSQL: %w", err)
	}
	return nil
}

// Migrate applies Polylane's and River's pending migrations under an advisory
// lock, so replicas that start together migrate one at a time.
func (s *Store) Migrate(ctx context.Context) (rep store.MigrationReport, err error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return rep, fmt.Errorf("migrate: acquire connection: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, migrateLockKey); err != nil {
		return rep, fmt.Errorf("migrate: take lock: %w", err)
	}
	defer func() {
		_, uerr := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrateLockKey)
		if uerr != nil && err == nil {
			err = fmt.Errorf("migrate: release lock: %w", uerr)
		}
	}()
	return s.MigrateOn(ctx, s.sqlDB)
}

// Close stops the queue (waiting up to 5 s for running jobs) and closes the
// pool.
func (s *Store) Close() error {
	qerr := s.CloseQueue()
	serr := s.sqlDB.Close()
	s.pool.Close()
	return errors.Join(qerr, serr)
}

// Package sqlite implements store.Store on an embedded, pure-Go SQLite database
// (modernc.org/sqlite, no cgo); it is the default backend of a single binary.
//
// Concurrency: all writes, Polylane's and River's, go through one connection
// whose transactions begin IMMEDIATE, so writers queue inside the process
// instead of failing with "database is locked"; reads use a separate pool of
// query-only connections, which WAL mode lets run beside the writer. The
// writer does not checkpoint the write-ahead log; a goroutine of the store
// does, on a connection of its own (see checkpointer). A busy timeout covers
// a second process (such as "polylane migrate") on the same file.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/riverqueue/river/riverdriver/riversqlite"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/polylane/polylane/migrations"
	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/store/internal/sqlstore"
)

// busyTimeout is how long a connection waits for another process's lock.
const busyTimeout = 10 * time.Second

// Options configure Open.
type Options struct {
	// Path is the database file; it is created if missing, but its directory
	// must exist.
	Path string
	// Logger receives the queue's logs (nil: discarded).
	Logger *slog.Logger
	// Now is the clock for the times the store sets (nil: time.Now).
	Now func() time.Time
	// ReadConns is the size of the read pool (0: 4).
	ReadConns int
	// CheckpointInterval is how often a background checkpoint copies the
	// write-ahead log into the database file (0: DefaultCheckpointInterval).
	CheckpointInterval time.Duration
}

// Store is the SQLite implementation of store.Store.
type Store struct {
	*sqlstore.Records
	*sqlstore.Lifecycle[*sql.Tx]
	path   string
	writer *sql.DB
	reader *sql.DB
	queue  *sqlstore.Queue[*sql.Tx]
	locks  sqlstore.KeyLocks
	ckpt   *checkpointer
}

var _ store.Store = (*Store)(nil)

// CheckPath validates a database path without creating anything: it must not
// be empty or contain '?', and its directory must exist.
func CheckPath(path string) error {
	if path == "" {
		return errors.New("empty SQLite path")
	}
	if strings.ContainsAny(path, "?#") {
		return fmt.Errorf("SQLite path %q must not contain '?' or '#'", path)
	}
	dir := filepath.Dir(path)
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("directory of SQLite file %s: %w", path, err)
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	return nil
}

func dsn(path string, pragmas ...string) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	return path + "?" + q.Encode()
}

// Open opens (creating if needed) the database file and its queue client. It
// does not migrate: call Migrate.
func Open(ctx context.Context, opts Options) (*Store, error) {
	if err := CheckPath(opts.Path); err != nil {
		return nil, err
	}
	writer, err := openDB(dsn(opts.Path, "journal_mode(WAL)", "synchronous(NORMAL)", "wal_autocheckpoint(0)") + "&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("open SQLite %s: %w", opts.Path, err)
	}
	writer.SetMaxOpenConns(1)
	writer.SetConnMaxIdleTime(0)
	if err := writer.PingContext(ctx); err != nil {
		writer.Close()
		return nil, fmt.Errorf("open SQLite %s: %w", opts.Path, err)
	}
	reader, err := openDB(dsn(opts.Path, "query_only(1)"))
	if err != nil {
		writer.Close()
		return nil, fmt.Errorf("open SQLite %s for reading: %w", opts.Path, err)
	}
	readConns := opts.ReadConns
	if readConns <= 0 {
		readConns = 4
	}
	reader.SetMaxOpenConns(readConns)
	queue, err := sqlstore.NewQueue(riversqlite.New(writer), opts.Logger, true)
	if err != nil {
		reader.Close()
		writer.Close()
		return nil, err
	}
	ckpt, err := startCheckpointer(opts.Path, writer, opts.CheckpointInterval, opts.Logger)
	if err != nil {
		reader.Close()
		writer.Close()
		return nil, fmt.Errorf("open SQLite %s for checkpoints: %w", opts.Path, err)
	}
	s := &Store{path: opts.Path, writer: writer, reader: reader, queue: queue, ckpt: ckpt}
	s.Records = sqlstore.NewRecords(txRunner{s}, opts.Now)
	s.Lifecycle = sqlstore.NewLifecycle(s.Records, queue, migrations.SQLite)
	return s, nil
}

// DB returns the writer connection pool (one connection), for tools and tests.
func (s *Store) DB() *sql.DB { return s.writer }

// Path returns the database file.
func (s *Store) Path() string { return s.path }

// Backend returns "sqlite".
func (s *Store) Backend() string { return "sqlite" }

// Ping checks that the database file can be read.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	if err := s.reader.QueryRowContext(ctx, `SELECT 1`).Scan(&one); err != nil {
		return fmt.Errorf("ping SQLite %s: %w", s.path, err)
	}
	return nil
}

// Migrate applies Polylane's and River's pending migrations.
func (s *Store) Migrate(ctx context.Context) (store.MigrationReport, error) {
	return s.MigrateOn(ctx, s.writer)
}

// Close stops the queue (waiting up to 5 s for running jobs) and closes the
// database.
func (s *Store) Close() error {
	qerr := s.CloseQueue()
	return errors.Join(qerr, s.ckpt.close(), s.reader.Close(), s.writer.Close())
}

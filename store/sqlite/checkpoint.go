package sqlite

import (
	"context"
	"database/sql"
	"log/slog"
	"sync"
	"time"
)

// DefaultCheckpointInterval is how often the write-ahead log is copied back
// into the database file.
const DefaultCheckpointInterval = 100 * time.Millisecond

// restartFrames is the size of the log (in pages) past which a checkpoint
// finishes on the writer's connection, so that the log starts again from
// its beginning; SQLite's own automatic checkpoint starts at 1,000.
const restartFrames = 1000

// checkpointer copies the write-ahead log back into the database file,
// mostly away from the writer.
//
// SQLite's automatic checkpoint runs inside the commit that takes the log
// past 1,000 pages, and every other writer waits for it. A checkpoint on a
// connection of its own waits for nobody and blocks nobody, but under a
// steady stream of commits it never catches up, so the log is never started
// again: it grew to 130 MB in two seconds at 2,000 webhook deliveries a
// second on the project's 2-core machine, and the 100–170 ms stalls came
// back (why the growing log stalls commits was not established; see
// docs/performance.md).
//
// So the writer's automatic checkpoint is off, and at each tick this
// goroutine copies what it can on its own connection; when the log is past
// restartFrames it copies the little that is left on the writer's
// connection, where no commit can add pages meanwhile, and the writer's
// next transaction starts the log from its beginning. Like the automatic
// checkpoint, it cannot pass a reader that still holds an older snapshot;
// it catches up when that reader ends.
type checkpointer struct {
	db       *sql.DB // the checkpointer's own connection
	writer   *sql.DB
	interval time.Duration
	log      *slog.Logger
	stop     chan struct{}
	done     chan struct{}
	once     sync.Once
}

func startCheckpointer(path string, writer *sql.DB, interval time.Duration, log *slog.Logger) (*checkpointer, error) {
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetConnMaxIdleTime(0)
	if interval <= 0 {
		interval = DefaultCheckpointInterval
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &checkpointer{db: db, writer: writer, interval: interval, log: log, stop: make(chan struct{}), done: make(chan struct{})}
	go c.run()
	return c, nil
}

func (c *checkpointer) run() {
	defer close(c.done)
	t := time.NewTicker(c.interval)
	defer t.Stop()
	failing := false
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		err := c.tick(context.Background())
		switch {
		case err != nil && !failing:
			// Logged once per spell of failures, not at every tick.
			c.log.Warn("SQLite checkpoint failed; the write-ahead log grows until one succeeds", "error", err)
			failing = true
		case err == nil && failing:
			c.log.Info("SQLite checkpoint succeeded again")
			failing = false
		}
	}
}

// tick copies what it can of the log on the checkpointer's connection and,
// when the log has grown past restartFrames, the rest on the writer's.
func (c *checkpointer) tick(ctx context.Context) error {
	logFrames, err := checkpoint(ctx, c.db)
	if err != nil || logFrames < restartFrames {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, err := c.writer.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	_, err = checkpoint(ctx, conn)
	return err
}

type queryRower interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// checkpoint runs one PASSIVE checkpoint and returns the log's size in
// pages.
func checkpoint(ctx context.Context, db queryRower) (int, error) {
	var busy, logFrames, done int
	err := db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &logFrames, &done)
	return logFrames, err
}

// close stops the goroutine and closes its connection; closing again does
// nothing, as Store.Close may be called twice.
func (c *checkpointer) close() error {
	c.once.Do(func() { close(c.stop) })
	<-c.done
	return c.db.Close()
}

package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"reflect"
	"sync"

	moderncsqlite "modernc.org/sqlite"
)

// Prepared statements are kept per connection. SQLite compiles every
// statement before it runs it, and database/sql prepares anew for each
// ExecContext and QueryContext made outside a *sql.Stmt, which is how River's
// driver and the store issue theirs. Compiling River's job insert (an INSERT
// … SELECT over json_each with an ON CONFLICT clause and RETURNING *) took
// about 240 µs on the reference machine, half of recording a single webhook
// delivery, and it happened inside the single writer's transaction. The
// cache compiles each statement text once per connection and then only
// binds and steps it.
const (
	// stmtCacheSize bounds the statements one connection keeps.
	stmtCacheSize = 128
	// maxCachedParams: a statement with more parameters than this is a
	// multi-row statement built for one batch size, which seldom repeats;
	// it is compiled, run once and finalized, as without the cache.
	maxCachedParams = 32
)

// openDB opens a database/sql pool on the modernc driver whose connections
// cache their prepared statements.
func openDB(dsn string) (*sql.DB, error) {
	inner, err := moderncsqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(cachingConnector{inner}), nil
}

type cachingConnector struct{ inner driver.Connector }

func (c cachingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	base, ok := conn.(baseConn)
	if !ok {
		_ = conn.Close()
		return nil, fmt.Errorf("sqlite: the driver's connection %T lacks the context methods", conn)
	}
	return &cachingConn{base: base, stmts: map[string]*cachedStmt{}}, nil
}

func (c cachingConnector) Driver() driver.Driver { return c.inner.Driver() }

// baseConn is what the modernc connection implements and the cache
// forwards; a wrapper that dropped one of these would make database/sql fall
// back to the methods without a context.
type baseConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// preparedStmt is a statement compiled once and run many times.
type preparedStmt interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

type cachedStmt struct {
	stmt    preparedStmt
	busy    bool   // rows of it are open: it cannot be run again until closed
	lastUse uint64 // for eviction
}

// cachingConn is one connection with its statement cache. database/sql
// uses a connection from one goroutine at a time; the mutex guards the
// cache against a Rows closed from its context watcher all the same.
type cachingConn struct {
	base baseConn

	mu    sync.Mutex
	stmts map[string]*cachedStmt
	clock uint64
}

var (
	_ baseConn                      = (*cachingConn)(nil)
	_ driver.RowsColumnTypeScanType = (*cachedRows)(nil)
)

func (c *cachingConn) Prepare(query string) (driver.Stmt, error) { return c.base.Prepare(query) }

func (c *cachingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.base.PrepareContext(ctx, query)
}

func (c *cachingConn) Begin() (driver.Tx, error) { return c.base.Begin() }

func (c *cachingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.base.BeginTx(ctx, opts)
}

func (c *cachingConn) Ping(ctx context.Context) error { return c.base.Ping(ctx) }

func (c *cachingConn) ResetSession(ctx context.Context) error { return c.base.ResetSession(ctx) }

func (c *cachingConn) IsValid() bool { return c.base.IsValid() }

// Close finalizes the cached statements, then closes the connection.
func (c *cachingConn) Close() error {
	c.mu.Lock()
	stmts := c.stmts
	c.stmts = map[string]*cachedStmt{}
	c.mu.Unlock()
	var first error
	for _, s := range stmts {
		if err := s.stmt.Close(); err != nil && first == nil {
			first = err
		}
	}
	if err := c.base.Close(); err != nil {
		return err
	}
	return first
}

// acquire returns the cached statement for a query run with nargs
// arguments, compiling and caching it on first use, and marks it busy; nil
// (and no error) means "run it uncached": it is busy with open rows, or has
// too many parameters.
func (c *cachingConn) acquire(ctx context.Context, query string, nargs int) (*cachedStmt, error) {
	if nargs > maxCachedParams {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clock++
	if s, ok := c.stmts[query]; ok {
		if s.busy {
			return nil, nil
		}
		s.busy, s.lastUse = true, c.clock
		return s, nil
	}
	st, err := c.base.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	ps, ok := st.(preparedStmt)
	if !ok {
		_ = st.Close()
		return nil, nil
	}
	if len(c.stmts) >= stmtCacheSize {
		c.evictLocked()
	}
	s := &cachedStmt{stmt: ps, busy: true, lastUse: c.clock}
	c.stmts[query] = s
	return s, nil
}

// evictLocked finalizes the least recently used statement that is not busy.
func (c *cachingConn) evictLocked() {
	var oldest string
	var found *cachedStmt
	for q, s := range c.stmts {
		if !s.busy && (found == nil || s.lastUse < found.lastUse) {
			oldest, found = q, s
		}
	}
	if found != nil {
		delete(c.stmts, oldest)
		_ = found.stmt.Close()
	}
}

func (c *cachingConn) release(s *cachedStmt) {
	c.mu.Lock()
	s.busy = false
	c.mu.Unlock()
}

func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	s, err := c.acquire(ctx, query, len(args))
	if err != nil {
		return nil, err
	}
	if s == nil {
		return c.base.ExecContext(ctx, query, args)
	}
	defer c.release(s)
	return s.stmt.ExecContext(ctx, args)
}

func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	s, err := c.acquire(ctx, query, len(args))
	if err != nil {
		return nil, err
	}
	if s == nil {
		return c.base.QueryContext(ctx, query, args)
	}
	rows, err := s.stmt.QueryContext(ctx, args)
	if err != nil {
		c.release(s)
		return nil, err
	}
	return &cachedRows{Rows: rows, release: func() { c.release(s) }}, nil
}

// cachedRows frees its statement for the next run when closed, and passes
// on the column type information the modernc rows give.
type cachedRows struct {
	driver.Rows
	release func()
	once    sync.Once
}

func (r *cachedRows) Close() error {
	err := r.Rows.Close()
	r.once.Do(r.release)
	return err
}

func (r *cachedRows) ColumnTypeDatabaseTypeName(i int) string {
	if t, ok := r.Rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(i)
	}
	return ""
}

func (r *cachedRows) ColumnTypeLength(i int) (int64, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeLength); ok {
		return t.ColumnTypeLength(i)
	}
	return 0, false
}

func (r *cachedRows) ColumnTypeNullable(i int) (bool, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeNullable); ok {
		return t.ColumnTypeNullable(i)
	}
	return false, false
}

func (r *cachedRows) ColumnTypePrecisionScale(i int) (int64, int64, bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypePrecisionScale); ok {
		return t.ColumnTypePrecisionScale(i)
	}
	return 0, 0, false
}

func (r *cachedRows) ColumnTypeScanType(i int) reflect.Type {
	if t, ok := r.Rows.(driver.RowsColumnTypeScanType); ok {
		return t.ColumnTypeScanType(i)
	}
	return reflect.TypeFor[any]()
}

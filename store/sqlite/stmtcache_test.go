package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// cacheDB opens a one-connection pool through the statement cache, with a
// table t(id INTEGER PRIMARY KEY, v TEXT).
func cacheDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := openDB(dsn(filepath.Join(t.TempDir(), "c.db"), "journal_mode(WAL)"))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { _ = db.Close() })
	if _, err := db.Exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	return db
}

// cached returns the statements the pool's one connection holds.
func cached(t *testing.T, db *sql.DB) map[string]*cachedStmt {
	t.Helper()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var out map[string]*cachedStmt
	err = c.Raw(func(dc any) error {
		cc, ok := dc.(*cachingConn)
		if !ok {
			return fmt.Errorf("connection is %T, not the caching one", dc)
		}
		cc.mu.Lock()
		defer cc.mu.Unlock()
		out = map[string]*cachedStmt{}
		for q, s := range cc.stmts {
			out[q] = s
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestStatementCacheReusesAStatement(t *testing.T) {
	db := cacheDB(t)
	const insert = `INSERT INTO t (id, v) VALUES ($1, $2)`
	for i := range 50 {
		if _, err := db.Exec(insert, i, "x"); err != nil {
			t.Fatal(err)
		}
	}
	first := cached(t, db)[insert]
	if first == nil {
		t.Fatal("the insert is not cached")
	}
	if _, err := db.Exec(insert, 50, "y"); err != nil {
		t.Fatal(err)
	}
	if again := cached(t, db)[insert]; again != first {
		t.Fatal("the insert was compiled again")
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM t`).Scan(&n); err != nil || n != 51 {
		t.Fatalf("count = %d, %v; want 51", n, err)
	}
}

// TestStatementCacheSameQueryNested runs a query while rows of the same
// text are open: the second run must not reset the first one's statement.
func TestStatementCacheSameQueryNested(t *testing.T) {
	db := cacheDB(t)
	for i := range 10 {
		if _, err := db.Exec(`INSERT INTO t (id, v) VALUES ($1, $2)`, i, fmt.Sprint("v", i)); err != nil {
			t.Fatal(err)
		}
	}
	const q = `SELECT id, v FROM t WHERE id >= $1 ORDER BY id`
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	outer, err := tx.Query(q, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for outer.Next() {
		var id int
		var v string
		if err := outer.Scan(&id, &v); err != nil {
			t.Fatal(err)
		}
		inner, err := tx.Query(q, id)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for inner.Next() {
			n++
		}
		if err := inner.Close(); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s:%d", v, n))
	}
	if err := outer.Err(); err != nil {
		t.Fatal(err)
	}
	outer.Close()
	want := "v0:10 v1:9 v2:8 v3:7 v4:6 v5:5 v6:4 v7:3 v8:2 v9:1"
	if strings.Join(got, " ") != want {
		t.Fatalf("nested runs gave %q, want %q", strings.Join(got, " "), want)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if s := cached(t, db)[q]; s == nil || s.busy {
		t.Fatalf("after the rows closed the query is cached %v, busy %v", s != nil, s != nil && s.busy)
	}
}

func TestStatementCacheBounds(t *testing.T) {
	db := cacheDB(t)
	for i := range stmtCacheSize + 40 {
		var n int
		if err := db.QueryRow(fmt.Sprintf(`SELECT %d + count(*) FROM t`, i)).Scan(&n); err != nil || n != i {
			t.Fatalf("query %d: %d, %v", i, n, err)
		}
	}
	if n := len(cached(t, db)); n > stmtCacheSize {
		t.Fatalf("%d statements cached, bound %d", n, stmtCacheSize)
	}
	// A statement with many parameters (a multi-row insert built for one
	// batch) runs, and is not kept.
	var b strings.Builder
	var args []any
	b.WriteString(`INSERT INTO t (id, v) VALUES `)
	for i := range 40 {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "($%d, $%d)", 2*i+1, 2*i+2)
		args = append(args, 1000+i, "many")
	}
	if _, err := db.Exec(b.String(), args...); err != nil {
		t.Fatal(err)
	}
	if _, ok := cached(t, db)[b.String()]; ok {
		t.Fatal("a statement of 80 parameters was cached")
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM t WHERE v = 'many'`).Scan(&n); err != nil || n != 40 {
		t.Fatalf("multi-row insert stored %d rows, %v", n, err)
	}
}

// TestStatementCacheAfterErrors: a failed run, a canceled context and a
// schema change leave the cached statement usable.
func TestStatementCacheAfterErrors(t *testing.T) {
	db := cacheDB(t)
	const insert = `INSERT INTO t (id, v) VALUES ($1, $2)`
	if _, err := db.Exec(insert, 1, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(insert, 1, "again"); err == nil {
		t.Fatal("a duplicate key was accepted")
	}
	if _, err := db.Exec(insert, 2, "b"); err != nil {
		t.Fatalf("after a constraint error: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := db.ExecContext(ctx, insert, 3, "c"); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled context: %v", err)
	}
	if _, err := db.Exec(insert, 3, "c"); err != nil {
		t.Fatalf("after a canceled run: %v", err)
	}
	const all = `SELECT * FROM t ORDER BY id LIMIT 1`
	cols := func() int {
		rows, err := db.Query(all)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		c, err := rows.Columns()
		if err != nil {
			t.Fatal(err)
		}
		return len(c)
	}
	if n := cols(); n != 2 {
		t.Fatalf("%d columns, want 2", n)
	}
	if _, err := db.Exec(`ALTER TABLE t ADD COLUMN w TEXT NOT NULL DEFAULT 'w'`); err != nil {
		t.Fatal(err)
	}
	if n := cols(); n != 3 {
		t.Fatalf("after ALTER TABLE the cached SELECT * gives %d columns, want 3", n)
	}
}

// TestStatementCacheClose finalizes what the connection holds: closing the
// pool reports no error and the file can be opened again.
func TestStatementCacheClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "close.db")
	db, err := openDB(dsn(path, "journal_mode(WAL)"))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`CREATE TABLE u (x)`, `INSERT INTO u VALUES (1)`, `INSERT INTO u VALUES (2)`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := db.Query(`SELECT x FROM u`)
	if err != nil {
		t.Fatal(err)
	}
	rows.Next()
	rows.Close()
	if err := db.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	again, err := openDB(dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	var n int
	if err := again.QueryRow(`SELECT count(*) FROM u`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("reopened: %d rows, %v", n, err)
	}
}

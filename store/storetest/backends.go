package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/store/postgres"
	"github.com/polylane/polylane/store/sqlite"
)

// DatabaseURLEnv names the PostgreSQL URL of the tests.
const DatabaseURLEnv = "POLYLANE_TEST_DATABASE_URL"

// Backend opens fresh, migrated stores of one kind for the tests of other
// packages (webhook, worker, end to end).
type Backend struct {
	Name string
	// Open returns a new migrated store, closed (and its schema dropped)
	// when the test ends. The PostgreSQL backend skips the test when
	// POLYLANE_TEST_DATABASE_URL is unset, and fails it when CI=true.
	Open func(t testing.TB) store.Store
}

// Backends returns the SQLite and PostgreSQL backends.
func Backends() []Backend {
	return []Backend{{Name: "sqlite", Open: OpenSQLite}, {Name: "postgres", Open: OpenPostgres}}
}

// OpenSQLite opens a migrated SQLite store in a temporary directory.
func OpenSQLite(t testing.TB) store.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), sqlite.Options{Path: filepath.Join(t.TempDir(), "polylane.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if _, err := s.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

// PostgresURL returns POLYLANE_TEST_DATABASE_URL, skipping the test when it
// is unset (failing it when CI=true).
func PostgresURL(t testing.TB) string {
	t.Helper()
	url := os.Getenv(DatabaseURLEnv)
	if url == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but " + DatabaseURLEnv + " is not set")
		}
		t.Skip("set " + DatabaseURLEnv + " (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable) to run against PostgreSQL")
	}
	return url
}

// NewSchema creates a schema of its own for one test on the database at
// url and drops it when the test ends.
func NewSchema(t testing.TB, url string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("PostgreSQL at %s is unreachable: %v", DatabaseURLEnv, err)
	}
	defer conn.Close(ctx)
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "polylane_t_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	return schema
}

// OpenPostgres opens a migrated PostgreSQL store in a schema of its own.
func OpenPostgres(t testing.TB) store.Store {
	t.Helper()
	url := PostgresURL(t)
	s, err := postgres.Open(context.Background(), postgres.Options{URL: url, Schema: NewSchema(t, url), MaxConns: 16})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if _, err := s.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/store/postgres"
	"github.com/polylane/polylane/store/storetest"
)

const enableHint = "set POLYLANE_TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable) to run the PostgreSQL tests"

// testURL returns the test database URL; it skips the test when none is set,
// unless CI=true, where a missing or unreachable database fails.
func testURL(t *testing.T) string {
	t.Helper()
	url := os.Getenv("POLYLANE_TEST_DATABASE_URL")
	if url == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but POLYLANE_TEST_DATABASE_URL is not set; " + enableHint)
		}
		t.Skip(enableHint)
	}
	return url
}

// newSchema creates a schema of its own for one test and drops it afterwards.
func newSchema(t *testing.T, url string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("PostgreSQL at POLYLANE_TEST_DATABASE_URL is unreachable: %v", err)
	}
	defer conn.Close(ctx)
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "polylane_test_" + hex.EncodeToString(b[:])
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

func open(t *testing.T) *postgres.Store {
	t.Helper()
	url := testURL(t)
	schema := newSchema(t, url)
	s, err := postgres.Open(context.Background(), postgres.Options{URL: url, Schema: schema, MaxConns: 6})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

func newStore(t *testing.T) store.Store {
	s := open(t)
	if _, err := s.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformance(t *testing.T) {
	testURL(t)
	storetest.Run(t, newStore)
}

func TestUnmigratedIsNotReadyAndNotWritten(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	if err := s.CheckMigrations(ctx); err == nil {
		t.Fatal("CheckMigrations on an empty schema succeeded")
	}
	var n int
	if err := s.Pool().QueryRow(ctx, `SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("CheckMigrations created %d tables", n)
	}
	// Two migrators at once (two replicas starting): the advisory lock
	// serialises them and both succeed.
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := s.Migrate(ctx)
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CheckMigrations(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestOpenUnreachable(t *testing.T) {
	start := time.Now()
	_, err := postgres.Open(context.Background(), postgres.Options{URL: "postgres://nobody:hunter2@127.0.0.1:1/x"})
	if err == nil {
		t.Fatal("Open of an unreachable database succeeded")
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("error leaks the password: %v", err)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Fatalf("Open took %v to fail", d)
	}
}

func TestRedact(t *testing.T) {
	got := postgres.Redact("postgres://u:secret@h:5432/db?sslmode=disable")
	if strings.Contains(got, "secret") || !strings.Contains(got, "h:5432/db") {
		t.Fatalf("Redact = %q", got)
	}
}

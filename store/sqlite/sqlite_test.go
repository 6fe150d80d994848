package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/store/sqlite"
	"github.com/polylane/polylane/store/storetest"
)

func open(t *testing.T, path string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), sqlite.Options{Path: path})
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
	s := open(t, filepath.Join(t.TempDir(), "polylane.db"))
	if _, err := s.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, newStore)
}

// TestTwoStoresOneFile writes to one file from two Store values at once, as
// "polylane serve" and a second process would: the busy timeout and
// IMMEDIATE transactions must prevent "database is locked".
func TestTwoStoresOneFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.db")
	a := newStoreAt(t, path)
	b := open(t, path)
	ctx := context.Background()
	if err := a.UpsertRepository(ctx, store.Repository{ID: 1, InstallationID: 1, FullName: "acme/one"}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 400)
	for g := range 8 {
		s := a
		if g%2 == 1 {
			s = b
		}
		wg.Go(func() {
			for i := range 50 {
				errs <- s.UpsertRun(ctx, store.WorkflowRun{RepositoryID: 1, RunID: int64(g*1000 + i + 1), Attempt: 1,
					CreatedAt: time.Unix(int64(i), 0)})
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	page, err := b.ListRuns(ctx, store.RunQuery{RepositoryID: 1, Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Runs) != 400 {
		t.Fatalf("%d runs, want 400", len(page.Runs))
	}
}

func newStoreAt(t *testing.T, path string) *sqlite.Store {
	s := open(t, path)
	if _, err := s.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestUnmigratedIsNotReadyAndNotWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fresh.db")
	s := open(t, path)
	ctx := context.Background()
	if err := s.CheckMigrations(ctx); err == nil {
		t.Fatal("CheckMigrations on a fresh file succeeded")
	}
	var n int
	db := s.DB()
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("CheckMigrations created %d tables", n)
	}
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckMigrations(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestPragmas(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "p.db"))
	tests := []struct{ pragma, want string }{
		{"journal_mode", "wal"},
		{"foreign_keys", "1"},
		{"busy_timeout", "10000"},
		{"synchronous", "1"},        // NORMAL
		{"wal_autocheckpoint", "0"}, // the store's own goroutine checkpoints
	}
	for _, tc := range tests {
		var got string
		if err := s.DB().QueryRowContext(context.Background(), "PRAGMA "+tc.pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("PRAGMA %s = %s, want %s", tc.pragma, got, tc.want)
		}
	}
}

func TestCheckPath(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		path string
		ok   bool
	}{
		{filepath.Join(dir, "ok.db"), true},
		{filepath.Join(dir, "missing", "x.db"), false},
		{"", false},
		{filepath.Join(dir, "q?.db"), false},
	}
	for _, tc := range tests {
		err := sqlite.CheckPath(tc.path)
		if (err == nil) != tc.ok {
			t.Errorf("CheckPath(%q) = %v, want ok=%v", tc.path, err, tc.ok)
		}
		if _, err := sqlite.Open(context.Background(), sqlite.Options{Path: tc.path}); !tc.ok && err == nil {
			t.Errorf("Open(%q) succeeded", tc.path)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Fatalf("Open created a directory: %v", err)
	}
}

// TestWALIsCheckpointedInTheBackground writes about 48 MB through the
// writer, whose automatic checkpoint is off, and checks that the store's
// background checkpoints keep the write-ahead log from growing with it:
// without them the log would hold every page written.
func TestWALIsCheckpointedInTheBackground(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wal.db")
	s, err := sqlite.Open(context.Background(), sqlite.Options{Path: path, CheckpointInterval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	db := s.DB()
	if _, err := db.ExecContext(ctx, `CREATE TABLE blobs (id INTEGER PRIMARY KEY, b BLOB)`); err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 64<<10)
	var largest int64
	for i := range 768 {
		chunk[0] = byte(i)
		// Rows are replaced, so the database itself stays small.
		if _, err := db.ExecContext(ctx, `INSERT OR REPLACE INTO blobs (id, b) VALUES (?, ?)`, i%16, chunk); err != nil {
			t.Fatal(err)
		}
		if i%16 == 15 {
			time.Sleep(10 * time.Millisecond) // time for a checkpoint, as between bursts
		}
		if info, err := os.Stat(path + "-wal"); err == nil {
			largest = max(largest, info.Size())
		}
	}
	t.Logf("largest write-ahead log: %.1f MB after 48 MB written", float64(largest)/(1<<20))
	if largest > 16<<20 {
		t.Fatalf("the write-ahead log grew to %d bytes: it is not checkpointed", largest)
	}
}

// TestCloseTwice: closing a store again is harmless, as database/sql's
// Close is.
func TestCloseTwice(t *testing.T) {
	s, err := sqlite.Open(context.Background(), sqlite.Options{Path: filepath.Join(t.TempDir(), "twice.db")})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
}

// TestPayloadsAreStoredCompressed looks at the rows themselves: a
// GitHub-sized payload takes a fraction of its size in the file, and a row
// written before payloads were compressed (the JSON as received) still
// reads back.
func TestPayloadsAreStoredCompressed(t *testing.T) {
	s := newStoreAt(t, filepath.Join(t.TempDir(), "p.db"))
	ctx := context.Background()
	var b strings.Builder
	for i := 0; b.Len() < 25_000; i++ {
		fmt.Fprintf(&b, `"https://api.github.com/repos/acme/widget/actions/runs/%d",`, 19894337324+i)
	}
	payload := []byte(`{"urls":[` + b.String() + `""]}`)
	if _, err := s.RecordDelivery(ctx, store.Delivery{GUID: "one", Event: "push", Payload: payload}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecordDeliveries(ctx, []store.DeliveryJob{{Delivery: store.Delivery{GUID: "two", Event: "push", Payload: payload}}}); err != nil {
		t.Fatal(err)
	}
	for _, guid := range []string{"one", "two"} {
		var n int
		if err := s.DB().QueryRowContext(ctx, `SELECT length(payload) FROM webhook_deliveries WHERE guid = ?`, guid).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > len(payload)/4 {
			t.Errorf("%s: the %d-byte payload takes %d bytes in its row", guid, len(payload), n)
		}
	}
	if _, err := s.DB().ExecContext(ctx, `INSERT INTO webhook_deliveries (guid, event, received_at, payload, state, updated_at)
VALUES ('legacy', 'push', 0, ?, 'done', 0)`, payload); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetDelivery(ctx, "legacy")
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Payload) != string(payload) {
		t.Fatalf("a raw row read back as %d bytes, want the %d written", len(got.Payload), len(payload))
	}
}

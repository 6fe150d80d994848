// Package storetest is the conformance suite that every store.Store
// implementation runs: one set of tests, two real backends. A backend's test
// calls Run with a function that returns a fresh, migrated store.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/polylane/polylane/store"
)

// NewStore returns a fresh, migrated, empty store for one test and registers
// its cleanup (closing it, dropping its schema) with t.Cleanup.
type NewStore func(t *testing.T) store.Store

// Run runs the whole conformance suite against the stores newStore makes.
// Subtests run in parallel, each on its own store.
func Run(t *testing.T, newStore NewStore) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"Migrations", testMigrations},
		{"Installations", testInstallations},
		{"Repositories", testRepositories},
		{"Deliveries", testDeliveries},
		{"DeliveryPayloads", testDeliveryPayloads},
		{"DeliveryReplays", testDeliveryReplays},
		{"FailedDeliveries", testFailedDeliveries},
		{"TransactionalEnqueue", testTransactionalEnqueue},
		{"Runs", testRuns},
		{"RunHistoryPagination", testRunHistoryPagination},
		{"Jobs", testJobs},
		{"Occurrences", testOccurrences},
		{"Classes", testClasses},
		{"ConfigMutes", testConfigMutes},
		{"Diagnoses", testDiagnoses},
		{"Comments", testComments},
		{"FixPullRequests", testFixPullRequests},
		{"FixVerification", testFixVerification},
		{"ConcurrentWriters", testConcurrentWriters},
		{"QueueWorksJobs", testQueueWorksJobs},
		{"Details", testDetails},
		{"Cache", testCache},
		{"UniqueDelivery", testUniqueDelivery},
		{"RecordDeliveries", testRecordDeliveries},
		{"RepositoryLock", testRepositoryLock},
		{"Dashboard", testDashboard},
		{"Conversations", testConversations},
		{"Sessions", testSessions},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStore(t))
		})
	}
}

// ctxFor returns a context bounded for one test.
func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// base is a fixed instant with microsecond precision, in UTC.
var base = time.Date(2026, 3, 14, 9, 26, 53, 589793000, time.UTC)

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantErr(t *testing.T, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error = %v, want %v", err, target)
	}
}

func equal(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got  %+v\n want %+v", what, got, want)
	}
}

// sameJSON compares two documents by value (PostgreSQL's jsonb does not keep
// key order or spacing).
func sameJSON(t *testing.T, what string, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: stored document is not JSON: %v (%q)", what, err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("%s: test document is not JSON: %v", what, err)
	}
	equal(t, what, g, w)
}

// seedRepo stores installation 1 and repository 101 (acme/widgets).
func seedRepo(t *testing.T, s store.Store) store.Repository {
	t.Helper()
	ctx := ctxFor(t)
	must(t, s.UpsertInstallation(ctx, store.Installation{ID: 1, AccountLogin: "acme", AccountType: "Organization"}))
	r := store.Repository{ID: 101, InstallationID: 1, FullName: "acme/widgets", DefaultBranch: "main"}
	must(t, s.UpsertRepository(ctx, r))
	return r
}

// seedRun stores a failed run attempt of repository repo.
func seedRun(t *testing.T, s store.Store, repo, runID int64, attempt int, created time.Time) store.WorkflowRun {
	t.Helper()
	r := store.WorkflowRun{
		RepositoryID: repo, RunID: runID, Attempt: attempt, WorkflowID: 7, WorkflowPath: ".github/workflows/ci.yml",
		WorkflowName: "CI", RunNumber: int(runID % 1000), HeadSHA: "0123456789abcdef0123456789abcdef01234567",
		Branch: "main", Event: "push", Status: "completed", Conclusion: "failure", CreatedAt: created,
		HTMLURL: "https://github.com/acme/widgets/actions/runs/1",
	}
	must(t, s.UpsertRun(ctxFor(t), r))
	return r
}

func testMigrations(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	if s.Backend() != "sqlite" && s.Backend() != "postgres" {
		t.Fatalf("Backend() = %q", s.Backend())
	}
	must(t, s.Ping(ctx))
	must(t, s.CheckMigrations(ctx))
	rep, err := s.Migrate(ctx)
	must(t, err)
	if rep.SchemaApplied != 0 || rep.QueueApplied != 0 {
		t.Fatalf("second Migrate applied %d schema and %d queue migrations, want 0", rep.SchemaApplied, rep.QueueApplied)
	}
	if rep.SchemaVersion < 1 || rep.QueueVersion < 1 {
		t.Fatalf("Migrate report %+v: versions must be at least 1", rep)
	}
	must(t, s.CheckMigrations(ctx))
}

package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/polylane/polylane/store"
)

// uniqueArgs is a job that River keeps unique by its Key.
type uniqueArgs struct {
	Key   int    `json:"key" river:"unique"`
	Extra string `json:"extra"`
}

func (uniqueArgs) Kind() string { return "storetest_unique" }

func (uniqueArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// testDetails checks that the detail documents of runs, occurrences and
// classes round-trip, and that an upsert without one keeps the stored one.
func testDetails(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	repo := seedRepo(t, s)
	r := seedRun(t, s, repo.ID, 6001, 1, base)
	r.Detail = json.RawMessage(`{"id":6001,"pull_requests":[{"number":7}]}`)
	must(t, s.UpsertRun(ctx, r))
	r.Detail = nil
	r.Conclusion = "timed_out"
	must(t, s.UpsertRun(ctx, r)) // no detail: the stored one stays
	got, err := s.GetRun(ctx, r.Key())
	must(t, err)
	if string(got.Detail) != `{"id":6001,"pull_requests":[{"number":7}]}` || got.Conclusion != "timed_out" {
		t.Fatalf("run detail after an upsert without one: %s (%s)", got.Detail, got.Conclusion)
	}
	bad := r
	bad.Detail = json.RawMessage(`{`)
	wantErr(t, s.UpsertRun(ctx, bad), store.ErrInvalid)

	// UpsertRuns writes a page at once, all or nothing.
	page := []store.WorkflowRun{r, r, r}
	page[1].RunID, page[2].RunID = 6002, 6003
	page[2].Detail = json.RawMessage(`{"id":6003}`)
	must(t, s.UpsertRuns(ctx, page))
	list, err := s.ListRuns(ctx, store.RunQuery{RepositoryID: repo.ID, WorkflowID: 7, Branch: "main"})
	must(t, err)
	if len(list.Runs) != 3 || string(list.Runs[0].Detail) != `{"id":6003}` {
		t.Fatalf("after UpsertRuns: %d runs, newest detail %s", len(list.Runs), list.Runs[0].Detail)
	}
	page[0].RunID, page[1].Attempt = 6004, 0
	wantErr(t, s.UpsertRuns(ctx, page), store.ErrInvalid)
	if _, err := s.GetRun(ctx, store.RunKey{RepositoryID: repo.ID, RunID: 6004, Attempt: 1}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a failed UpsertRuns stored a run: %v", err)
	}

	occ := store.Occurrence{JobID: 1, StepNumber: 2, Signature: "sig", ClassID: "c1",
		Detail: json.RawMessage(`{"run_id":6001,"passed":[{"job":"e2e","step":"Build"}]}`)}
	must(t, s.PutOccurrences(ctx, r.Key(), []store.Occurrence{occ}))
	occs, err := s.ListOccurrences(ctx, store.OccurrenceQuery{RepositoryID: repo.ID})
	must(t, err)
	if len(occs) != 1 || string(occs[0].Detail) != string(occ.Detail) {
		t.Fatalf("occurrence detail: %+v", occs)
	}

	c := store.FailureClass{RepositoryID: repo.ID, ID: "c1", LastSeen: base, Detail: json.RawMessage(`{"runs":[6001]}`)}
	must(t, s.UpsertClass(ctx, c))
	c.Detail, c.Count = nil, 3
	must(t, s.UpsertClass(ctx, c))
	gotC, err := s.GetClass(ctx, repo.ID, "c1")
	must(t, err)
	if string(gotC.Detail) != `{"runs":[6001]}` || gotC.Count != 3 {
		t.Fatalf("class detail after an upsert without one: %s (count %d)", gotC.Detail, gotC.Count)
	}
}

func testCache(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	_, err := s.GetCacheEntry(ctx, "runs:1")
	wantErr(t, err, store.ErrNotFound)
	body := []byte("\x00binary\xffbody")
	must(t, s.PutCacheEntry(ctx, store.CacheEntry{Key: "runs:1", ETag: `W/"abc"`, Body: body}))
	got, err := s.GetCacheEntry(ctx, "runs:1")
	must(t, err)
	if got.ETag != `W/"abc"` || string(got.Body) != string(body) || got.UpdatedAt.IsZero() {
		t.Fatalf("cache entry: %+v", got)
	}
	must(t, s.PutCacheEntry(ctx, store.CacheEntry{Key: "runs:1", ETag: `"def"`}))
	got, err = s.GetCacheEntry(ctx, "runs:1")
	must(t, err)
	if got.ETag != `"def"` || got.Body == nil || len(got.Body) != 0 {
		t.Fatalf("replaced cache entry: %+v", got)
	}
	wantErr(t, s.PutCacheEntry(ctx, store.CacheEntry{}), store.ErrInvalid)
	n, err := s.PruneCache(ctx, time.Now().Add(-time.Hour))
	must(t, err)
	if n != 0 {
		t.Fatalf("pruned %d fresh entries", n)
	}
	n, err = s.PruneCache(ctx, time.Now().Add(time.Hour))
	must(t, err)
	if n != 1 {
		t.Fatalf("pruned %d entries, want 1", n)
	}
}

// testUniqueDelivery records two deliveries whose unique jobs are equal: the
// second is stored as ignored, with a reason, and adds no job.
func testUniqueDelivery(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	for i, guid := range []string{"u-1", "u-2"} {
		dup, err := s.RecordDelivery(ctx, store.Delivery{GUID: guid, Event: "workflow_run", Payload: []byte("{}")},
			uniqueArgs{Key: 1, Extra: guid}, nil)
		must(t, err)
		if dup {
			t.Fatalf("delivery %d reported as a duplicate GUID", i)
		}
	}
	if n := jobCount(t, s); n != 1 {
		t.Fatalf("jobs after two deliveries of one unique job = %d, want 1", n)
	}
	first, err := s.GetDelivery(ctx, "u-1")
	must(t, err)
	second, err := s.GetDelivery(ctx, "u-2")
	must(t, err)
	if first.State != store.DeliveryQueued || second.State != store.DeliveryIgnored || second.Error == "" {
		t.Fatalf("states: first %s, second %s %q", first.State, second.State, second.Error)
	}
}

// testRepositoryLock checks that the repository lock excludes a second
// holder, frees other repositories, and that a wait ends with its context.
func testRepositoryLock(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	release, err := s.LockRepository(ctx, 101)
	must(t, err)
	other, err := s.LockRepository(ctx, 102) // another repository is free
	must(t, err)
	other()

	short, cancel := context.WithTimeout(ctx, 150*time.Millisecond)
	defer cancel()
	if r2, err := s.LockRepository(short, 101); err == nil {
		r2()
		t.Fatal("a second holder took a held repository lock")
	}
	release()

	// Holders take turns: never two inside at once.
	var inside, peak atomic.Int32
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			rel, err := s.LockRepository(ctx, 101)
			if err != nil {
				errs <- err
				return
			}
			if n := inside.Add(1); n > peak.Load() {
				peak.Store(n)
			}
			time.Sleep(5 * time.Millisecond)
			inside.Add(-1)
			rel()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		must(t, err)
	}
	if peak.Load() != 1 {
		t.Fatalf("%d holders were inside the lock at once", peak.Load())
	}
}

// testRecordDeliveries records a batch as one transaction: new deliveries
// with and without jobs, a stored GUID (a duplicate) and a unique job that
// exists (ignored); a batch with a bad job stores nothing.
func testRecordDeliveries(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	d := func(guid string) store.Delivery {
		return store.Delivery{GUID: guid, Event: "workflow_run", Payload: []byte(`{"n":1}`)}
	}
	_, err := s.RecordDelivery(ctx, d("b-old"), uniqueArgs{Key: 7}, nil)
	must(t, err)
	dups, err := s.RecordDeliveries(ctx, []store.DeliveryJob{
		{Delivery: d("b-1"), Args: testArgs{N: 1}},
		{Delivery: d("b-2")},
		{Delivery: d("b-old"), Args: testArgs{N: 2}},
		{Delivery: d("b-3"), Args: uniqueArgs{Key: 7, Extra: "again"}},
		{Delivery: d("b-4"), Args: uniqueArgs{Key: 8}},
	})
	must(t, err)
	equal(t, "duplicates", dups, []bool{false, false, true, false, false})
	if n := jobCount(t, s); n != 3 { // b-old's, b-1's and b-4's
		t.Fatalf("jobs after the batch = %d, want 3", n)
	}
	for guid, state := range map[string]string{"b-1": store.DeliveryQueued, "b-2": store.DeliveryQueued,
		"b-3": store.DeliveryIgnored, "b-4": store.DeliveryQueued} {
		got, err := s.GetDelivery(ctx, guid)
		must(t, err)
		if got.State != state {
			t.Errorf("%s: state %s, want %s", guid, got.State, state)
		}
	}

	// A redelivery racing the original lands in the same batch: one row.
	dups, err = s.RecordDeliveries(ctx, []store.DeliveryJob{{Delivery: d("r-1"), Args: testArgs{N: 5}}, {Delivery: d("r-1"), Args: testArgs{N: 5}}})
	must(t, err)
	equal(t, "duplicates of a GUID repeated in a batch", dups, []bool{false, true})
	if n := jobCount(t, s); n != 4 {
		t.Fatalf("jobs after a repeated GUID = %d, want 4", n)
	}

	for name, batch := range map[string][]store.DeliveryJob{
		"bad job":                {{Delivery: d("c-1"), Args: testArgs{N: 3}}, {Delivery: d("c-2"), Args: unmarshalableArgs{C: make(chan int)}}},
		"unique key in it twice": {{Delivery: d("c-1"), Args: uniqueArgs{Key: 9}}, {Delivery: d("c-2"), Args: uniqueArgs{Key: 9}}},
	} {
		if _, err := s.RecordDeliveries(ctx, batch); err == nil {
			t.Errorf("%s: the batch was accepted", name)
		}
		if _, err := s.GetDelivery(ctx, "c-1"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s: a failed batch stored a delivery (%v)", name, err)
		}
	}
	if n := jobCount(t, s); n != 4 {
		t.Fatalf("jobs after failed batches = %d, want 4", n)
	}
}

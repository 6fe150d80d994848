package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/polylane/polylane/store"
)

// Concurrency of testConcurrentWriters.
const (
	writers         = 8
	writesPerWriter = 50
)

// testConcurrentWriters runs writers goroutines that each record deliveries
// (with a job) and upsert runs; no write may fail (on SQLite: no "database is
// locked").
func testConcurrentWriters(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	repo := seedRepo(t, s)
	start := time.Now()
	errs := make(chan error, writers*writesPerWriter)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range writesPerWriter {
				errs <- concurrentWrite(ctx, s, repo.ID, w, i)
			}
		})
	}
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if err != nil {
			failed++
			if failed <= 3 {
				t.Error(err)
			}
		}
	}
	if failed > 0 {
		t.Fatalf("%d of %d concurrent writes failed", failed, writers*writesPerWriter)
	}
	t.Logf("%s: %d writes from %d goroutines in %v", s.Backend(), writers*writesPerWriter, writers, time.Since(start).Round(time.Millisecond))

	page, err := s.ListRuns(ctx, store.RunQuery{RepositoryID: repo.ID, Limit: 500})
	must(t, err)
	if want := writers * writesPerWriter / 2; len(page.Runs) != want {
		t.Fatalf("%d runs stored, want %d", len(page.Runs), want)
	}
	if n, want := jobCount(t, s), int64(writers*writesPerWriter/2); n != want {
		t.Fatalf("%d jobs stored, want %d", n, want)
	}
}

// concurrentWrite is write i of goroutine w: even writes record a delivery and
// its job, odd ones upsert a run.
func concurrentWrite(ctx context.Context, s store.Store, repo int64, w, i int) error {
	if i%2 == 0 {
		guid := fmt.Sprintf("concurrent-%d-%d", w, i)
		_, err := s.RecordDelivery(ctx, store.Delivery{GUID: guid, Event: "workflow_run", Payload: []byte(`{}`)}, testArgs{N: i}, nil)
		return err
	}
	return s.UpsertRun(ctx, store.WorkflowRun{RepositoryID: repo, RunID: int64(100000 + w*1000 + i), Attempt: 1,
		CreatedAt: base.Add(time.Duration(i) * time.Second), Status: "completed", Conclusion: "failure"})
}

// recordingWorker works testArgs jobs and reports each N.
type recordingWorker struct {
	river.WorkerDefaults[testArgs]
	got chan int
}

func (w *recordingWorker) Work(ctx context.Context, job *river.Job[testArgs]) error {
	select {
	case w.got <- job.Args.N:
	case <-ctx.Done():
	}
	return nil
}

func testQueueWorksJobs(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	st, err := s.QueueStats(ctx)
	must(t, err)
	if st.Running {
		t.Fatal("queue reports running before StartQueue")
	}
	worker := &recordingWorker{got: make(chan int, 10)}
	workers := river.NewWorkers()
	river.AddWorker(workers, worker)
	must(t, s.StartQueue(ctx, store.QueueOptions{Workers: workers, MaxWorkers: 2, PollInterval: 50 * time.Millisecond}))
	if err := s.StartQueue(ctx, store.QueueOptions{Workers: workers}); err == nil {
		t.Fatal("a second StartQueue succeeded")
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = s.StopQueue(context.Background())
		}
	})
	st, err = s.QueueStats(ctx)
	must(t, err)
	if !st.Running {
		t.Fatal("queue not running after StartQueue")
	}

	_, err = s.RecordDelivery(ctx, store.Delivery{GUID: "worked-1", Event: "workflow_run"}, testArgs{N: 11}, nil)
	must(t, err)
	select {
	case n := <-worker.got:
		if n != 11 {
			t.Fatalf("worker got job %d, want 11", n)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the job of a recorded delivery was not worked within 30 s")
	}

	stopCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	must(t, s.StopQueue(stopCtx))
	stopped = true
	st, err = s.QueueStats(ctx)
	must(t, err)
	if st.Running {
		t.Fatal("queue running after StopQueue")
	}
	must(t, s.StopQueue(ctx)) // a second stop is a no-op
}

package webhook

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/polylane/polylane/store"
)

// countingStore records batches as a database would, slowly enough that
// deliveries queue behind a transaction, and counts transactions in flight.
type countingStore struct {
	Store
	mu       sync.Mutex
	seen     map[string]int
	inFlight atomic.Int32
	most     atomic.Int32
	batches  atomic.Int32
	singles  atomic.Int32
	failGUID string // a batch holding it fails, and so does its single record
}

func (s *countingStore) enter() func() {
	n := s.inFlight.Add(1)
	for {
		m := s.most.Load()
		if n <= m || s.most.CompareAndSwap(m, n) {
			break
		}
	}
	time.Sleep(2 * time.Millisecond)
	return func() { s.inFlight.Add(-1) }
}

func (s *countingStore) RecordDeliveries(_ context.Context, batch []store.DeliveryJob) ([]bool, error) {
	defer s.enter()()
	s.batches.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, it := range batch {
		if it.Delivery.GUID == s.failGUID {
			return nil, errors.New("batch refused")
		}
	}
	dups := make([]bool, len(batch))
	for i, it := range batch {
		s.seen[it.Delivery.GUID]++
		dups[i] = s.seen[it.Delivery.GUID] > 1
	}
	return dups, nil
}

func (s *countingStore) RecordDelivery(_ context.Context, d store.Delivery, _ river.JobArgs, _ *river.InsertOpts) (bool, error) {
	defer s.enter()()
	s.singles.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if d.GUID == s.failGUID {
		return false, errors.New("refused")
	}
	s.seen[d.GUID]++
	return s.seen[d.GUID] > 1, nil
}

// TestGroupCommit sends 600 deliveries at once (every tenth twice) through
// one and three committers, each counted as arriving first: each caller
// gets its own result, every delivery is recorded once, deliveries share
// transactions, no more transactions run at once than there are
// committers, and one refused delivery fails alone.
func TestGroupCommit(t *testing.T) {
	for _, committers := range []int{1, 3} {
		t.Run(fmt.Sprintf("committers=%d", committers), func(t *testing.T) {
			st := &countingStore{seen: map[string]int{}, failGUID: "d-77"}
			g := newGroupCommit(st, committers, 0)
			const n = 600
			dup := make([]bool, n+n/10)
			errs := make([]error, n+n/10)
			var wg sync.WaitGroup
			for i := range n + n/10 {
				guid := fmt.Sprintf("d-%d", i)
				if i >= n {
					guid = fmt.Sprintf("d-%d", (i-n)*10)
				}
				a := g.arrive()
				wg.Go(func() {
					dup[i], errs[i] = g.record(context.Background(), store.Delivery{GUID: guid}, nil, nil, a)
				})
			}
			done := make(chan struct{})
			go func() { wg.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("callers still waiting after 30 s: a token was lost")
			}
			for i := range n {
				if want := fmt.Sprintf("d-%d", i); want == st.failGUID {
					if errs[i] == nil {
						t.Errorf("%s: no error", want)
					}
					continue
				}
				if errs[i] != nil {
					t.Errorf("d-%d: %v", i, errs[i])
				}
				if got := st.seen[fmt.Sprintf("d-%d", i)]; got != 1 && !(i%10 == 0 && got == 2) {
					t.Errorf("d-%d recorded %d times", i, got)
				}
			}
			// Of each pair sent twice, exactly one caller hears "duplicate".
			for i := n; i < n+n/10; i++ {
				if dup[i] == dup[(i-n)*10] {
					t.Errorf("d-%d: duplicate %v and %v", (i-n)*10, dup[(i-n)*10], dup[i])
				}
			}
			if most := int(st.most.Load()); most > committers {
				t.Errorf("%d transactions at once, committers %d", most, committers)
			}
			if b := int(st.batches.Load()); b == 0 || b > n/4 {
				t.Errorf("%d batch transactions for %d deliveries: they are not grouped", b, n)
			}
			g.mu.Lock()
			defer g.mu.Unlock()
			if g.running != 0 || len(g.queue) != 0 || g.arriving.Load() != 0 {
				t.Errorf("after the burst: %d tokens held, %d queued, %d arriving", g.running, len(g.queue), g.arriving.Load())
			}
			t.Logf("%d batch transactions, at most %d at once", st.batches.Load(), st.most.Load())
		})
	}
}

// TestGroupCommitGathers: a transaction waits for the deliveries of
// requests still arriving, and only for them, within the window.
func TestGroupCommitGathers(t *testing.T) {
	ctx := context.Background()
	record := func(g *groupCommit, guid string, a *arrival) error {
		_, err := g.record(ctx, store.Delivery{GUID: guid}, nil, nil, a)
		return err
	}
	t.Run("a trickle goes in one transaction", func(t *testing.T) {
		st := &countingStore{seen: map[string]int{}}
		g := newGroupCommit(st, 1, 10*time.Second)
		start := time.Now()
		var wg sync.WaitGroup
		for i := range 5 {
			a := g.arrive()
			wg.Go(func() {
				time.Sleep(time.Duration(i) * 3 * time.Millisecond)
				if err := record(g, fmt.Sprint("t-", i), a); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if b, s := st.batches.Load(), st.singles.Load(); b != 1 || s != 0 {
			t.Errorf("%d batch and %d single transactions, want the five deliveries in one", b, s)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("took %s: the wait did not end when the last delivery arrived", took)
		}
	})
	t.Run("no other request: no wait", func(t *testing.T) {
		st := &countingStore{seen: map[string]int{}}
		g := newGroupCommit(st, 1, 10*time.Second)
		start := time.Now()
		if err := record(g, "alone", g.arrive()); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("a lone delivery took %s", took)
		}
	})
	t.Run("a request answered without a delivery ends the wait", func(t *testing.T) {
		st := &countingStore{seen: map[string]int{}}
		g := newGroupCommit(st, 1, 10*time.Second)
		other := g.arrive()
		go func() {
			time.Sleep(20 * time.Millisecond)
			other.leave()
			other.leave() // twice: counted once
		}()
		start := time.Now()
		if err := record(g, "one", g.arrive()); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("took %s", took)
		}
		if n := g.arriving.Load(); n != 0 {
			t.Errorf("%d still counted as arriving", n)
		}
	})
	t.Run("the window bounds the wait", func(t *testing.T) {
		st := &countingStore{seen: map[string]int{}}
		g := newGroupCommit(st, 1, 30*time.Millisecond)
		stuck := g.arrive() // never queues
		defer stuck.leave()
		start := time.Now()
		if err := record(g, "one", g.arrive()); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took < 30*time.Millisecond || took > 5*time.Second {
			t.Errorf("took %s with a 30 ms window", took)
		}
	})
	t.Run("negative window: no wait", func(t *testing.T) {
		st := &countingStore{seen: map[string]int{}}
		g := newGroupCommit(st, 1, -1)
		stuck := g.arrive()
		defer stuck.leave()
		if err := record(g, "one", g.arrive()); err != nil {
			t.Fatal(err)
		}
		if g.gather != 0 {
			t.Errorf("gather = %s, want off", g.gather)
		}
	})
}

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
	s.mu.Lock()
	defer s.mu.Unlock()
	if d.GUID == s.failGUID {
		return false, errors.New("refused")
	}
	s.seen[d.GUID]++
	return s.seen[d.GUID] > 1, nil
}

// TestGroupCommit sends 600 deliveries at once (every tenth twice) through
// one and three committers: each caller gets its own result, every delivery
// is recorded once, deliveries share transactions, no more transactions run
// at once than there are committers, and one refused delivery fails alone.
func TestGroupCommit(t *testing.T) {
	for _, committers := range []int{1, 3} {
		t.Run(fmt.Sprintf("committers=%d", committers), func(t *testing.T) {
			st := &countingStore{seen: map[string]int{}, failGUID: "d-77"}
			g := newGroupCommit(st, committers)
			const n = 600
			dup := make([]bool, n+n/10)
			errs := make([]error, n+n/10)
			var wg sync.WaitGroup
			for i := range n + n/10 {
				guid := fmt.Sprintf("d-%d", i)
				if i >= n {
					guid = fmt.Sprintf("d-%d", (i-n)*10)
				}
				wg.Go(func() {
					dup[i], errs[i] = g.record(context.Background(), store.Delivery{GUID: guid}, nil, nil)
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
			if g.running != 0 || len(g.queue) != 0 {
				t.Errorf("after the burst: %d tokens held, %d queued", g.running, len(g.queue))
			}
			t.Logf("%d batch transactions, at most %d at once", st.batches.Load(), st.most.Load())
		})
	}
}

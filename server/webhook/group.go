package webhook

import (
	"context"
	"sync"
	"time"

	"github.com/riverqueue/river"

	"github.com/polylane/polylane/store"
)

// maxGroup bounds the deliveries one transaction records.
const maxGroup = 128

// commitTimeout bounds one group transaction, which outlives the request
// that happens to run it.
const commitTimeout = 10 * time.Second

// groupCommit records deliveries in shared transactions: while one
// transaction commits, arriving deliveries queue, and the next transaction
// takes all of them at once. Each caller is answered only after the
// transaction that holds its delivery has committed. It starts no
// goroutine: a waiting caller becomes the committer when a slot is free
// (the leader/follower pattern), so the request goroutines net/http owns do
// the work.
type groupCommit struct {
	st         Store
	committers int // transactions in flight at once

	mu      sync.Mutex
	cond    *sync.Cond
	queue   []*pendingDelivery
	running int
}

// pendingDelivery is one caller's delivery and, once committed, its result.
type pendingDelivery struct {
	item      store.DeliveryJob
	done      bool
	duplicate bool
	err       error
}

func newGroupCommit(st Store, committers int) *groupCommit {
	g := &groupCommit{st: st, committers: max(committers, 1)}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// record stores a delivery and its job as RecordDelivery does, sharing the
// transaction with the deliveries that arrive meanwhile.
func (g *groupCommit) record(ctx context.Context, d store.Delivery, args river.JobArgs, opts *river.InsertOpts) (bool, error) {
	p := &pendingDelivery{item: store.DeliveryJob{Delivery: d, Args: args, Opts: opts}}
	g.mu.Lock()
	g.queue = append(g.queue, p)
	for !p.done {
		if g.running >= g.committers || len(g.queue) == 0 {
			g.cond.Wait()
			continue
		}
		batch := g.queue[:min(len(g.queue), maxGroup)]
		g.queue = append([]*pendingDelivery(nil), g.queue[len(batch):]...)
		g.running++
		g.mu.Unlock()
		g.commit(ctx, batch)
		g.mu.Lock()
		g.running--
		g.cond.Broadcast()
	}
	g.mu.Unlock()
	return p.duplicate, p.err
}

// commit records a batch in one transaction; when that fails (a bad item,
// or one run attempt twice in the batch) each delivery is recorded alone,
// so that one delivery's problem stays its own.
func (g *groupCommit) commit(ctx context.Context, batch []*pendingDelivery) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), commitTimeout)
	defer cancel()
	items := make([]store.DeliveryJob, len(batch))
	for i, p := range batch {
		items[i] = p.item
	}
	var dups []bool
	var err error
	if len(batch) > 1 {
		dups, err = g.st.RecordDeliveries(ctx, items)
	}
	if len(batch) == 1 || err != nil {
		for _, p := range batch {
			p.duplicate, p.err = g.st.RecordDelivery(ctx, p.item.Delivery, p.item.Args, p.item.Opts)
		}
	} else {
		for i, p := range batch {
			p.duplicate = dups[i]
		}
	}
	g.mu.Lock()
	for _, p := range batch {
		p.done = true
	}
	g.mu.Unlock()
}

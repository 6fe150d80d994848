package webhook

import (
	"context"
	"sync"
	"sync/atomic"
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
// transaction that holds its delivery has committed.
//
// It starts no goroutine: the request goroutines net/http owns do the work.
// There are as many commit tokens as committers. An arriving caller takes a
// free token, or else waits. A token's holder commits the oldest queued
// deliveries and then hands the token to the oldest waiter it has not yet
// handed one to, or frees it when nobody waits. Each waiter is woken once,
// when its delivery is committed or when it is handed a token: a broadcast
// to every waiter after each commit (the first design) woke hundreds of
// goroutines per transaction at 200 concurrent deliveries, and their
// scheduling delays showed in the answer times.
//
// A token's holder about to start a transaction first waits, up to the
// gather window, for the deliveries that other requests are still reading,
// verifying and parsing (those counted in arriving), as PostgreSQL's
// commit_delay waits for sibling commits. Without it the first deliveries of
// a burst each went in a transaction of their own, one after another (runs
// of 20-40 on SQLite), each paying a transaction's fixed cost while the rest
// of the burst queued. With no request in flight it does not wait.
type groupCommit struct {
	st         Store
	committers int           // tokens: transactions in flight at once
	gather     time.Duration // the longest wait for arriving deliveries; 0: none

	arriving atomic.Int64  // requests being read and verified, not yet queued or answered
	kick     chan struct{} // a delivery was queued or an arriving request left (buffered 1)

	mu      sync.Mutex
	queue   []*pendingDelivery
	running int // tokens held
}

// arrival is one request counted in groupCommit.arriving until it queues
// its delivery or is answered without one. Only its request's goroutine
// uses it.
type arrival struct {
	g       *groupCommit
	counted bool
}

// arrive counts a request that may bring a delivery.
func (g *groupCommit) arrive() *arrival {
	g.arriving.Add(1)
	return &arrival{g: g, counted: true}
}

// leave uncounts the request (once) and wakes a holder that waits for it.
func (a *arrival) leave() {
	if a == nil || !a.counted {
		return
	}
	a.counted = false
	a.g.arriving.Add(-1)
	a.g.poke()
}

func (g *groupCommit) poke() {
	select {
	case g.kick <- struct{}{}:
	default:
	}
}

// pendingDelivery is one caller's delivery and, once committed, its result.
type pendingDelivery struct {
	item      store.DeliveryJob
	done      chan struct{} // closed when committed; the results below are set
	lead      chan struct{} // receives a token (buffered: the sender never waits)
	asked     bool          // handed a token (guarded by groupCommit.mu)
	duplicate bool
	err       error
}

func newGroupCommit(st Store, committers int, gather time.Duration) *groupCommit {
	switch {
	case gather == 0:
		gather = DefaultGatherWindow
	case gather < 0:
		gather = 0
	}
	return &groupCommit{st: st, committers: max(committers, 1), gather: gather, kick: make(chan struct{}, 1)}
}

// record stores a delivery and its job as RecordDelivery does, sharing the
// transaction with the deliveries that arrive meanwhile. a (nil: none) is
// the caller's request, uncounted once its delivery is queued.
func (g *groupCommit) record(ctx context.Context, d store.Delivery, args river.JobArgs, opts *river.InsertOpts, a *arrival) (bool, error) {
	p := &pendingDelivery{item: store.DeliveryJob{Delivery: d, Args: args, Opts: opts},
		done: make(chan struct{}), lead: make(chan struct{}, 1)}
	g.mu.Lock()
	g.queue = append(g.queue, p)
	token := g.running < g.committers
	if token {
		g.running++
	}
	g.mu.Unlock()
	a.leave()
	if token {
		g.commitNext(ctx)
	}
	for {
		select {
		case <-p.lead:
			g.commitNext(ctx)
		case <-p.done:
			// A token handed over before another holder took this delivery
			// into its batch must still be used or passed on.
			select {
			case <-p.lead:
				g.commitNext(ctx)
			default:
			}
			return p.duplicate, p.err
		}
	}
}

// commitNext is run by a token's holder: it commits the oldest queued
// deliveries, then passes the token on or frees it.
func (g *groupCommit) commitNext(ctx context.Context) {
	g.gatherArriving()
	g.mu.Lock()
	n := min(len(g.queue), maxGroup)
	if n == 0 {
		g.running--
		g.mu.Unlock()
		return
	}
	batch := g.queue[:n:n]
	g.queue = append([]*pendingDelivery(nil), g.queue[n:]...)
	g.mu.Unlock()

	g.commit(ctx, batch)

	g.mu.Lock()
	defer g.mu.Unlock()
	for _, w := range g.queue {
		if !w.asked {
			w.asked = true
			w.lead <- struct{}{}
			return
		}
	}
	// Nobody waits without a token already on its way: free this one.
	g.running--
}

// gatherArriving waits, up to the gather window, while requests are still
// arriving and the next batch is not full.
func (g *groupCommit) gatherArriving() {
	if g.gather <= 0 || g.arriving.Load() == 0 {
		return
	}
	timer := time.NewTimer(g.gather)
	defer timer.Stop()
	for {
		g.mu.Lock()
		full := len(g.queue) >= maxGroup
		g.mu.Unlock()
		if full || g.arriving.Load() == 0 {
			return
		}
		select {
		case <-g.kick:
		case <-timer.C:
			return
		}
	}
}

// commit records a batch in one transaction; when that fails (a bad item,
// or one run attempt twice in the batch) each delivery is recorded alone,
// so that one delivery's problem stays its own. Every caller of the batch
// is then woken.
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
	for _, p := range batch {
		close(p.done)
	}
}

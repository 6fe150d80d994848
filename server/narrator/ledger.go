package narrator

import (
	"context"
	"sync"
	"time"
)

// dayLayout names a UTC day in a Ledger.
const dayLayout = "2006-01-02"

// Ledger keeps the tokens each installation spent per UTC day. Implement
// it over the store to keep budgets across restarts and replicas.
type Ledger interface {
	// Spent returns the tokens installation spent on day (YYYY-MM-DD, UTC).
	Spent(ctx context.Context, installation int64, day string) (int64, error)
	// Spend adds tokens to installation's day; a negative count returns
	// part of an earlier reservation.
	Spend(ctx context.Context, installation int64, day string, tokens int64) error
}

// MemoryLedger is a Ledger in memory. Budgets reset when the process
// restarts and at each UTC midnight; each replica counts on its own. It
// keeps only the latest day it was told about.
type MemoryLedger struct {
	mu    sync.Mutex
	day   string
	spent map[int64]int64
}

// NewMemoryLedger returns an empty MemoryLedger.
func NewMemoryLedger() *MemoryLedger { return &MemoryLedger{spent: map[int64]int64{}} }

// Spent returns what installation spent on day.
func (l *MemoryLedger) Spent(_ context.Context, installation int64, day string) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if day != l.day {
		return 0, nil
	}
	return l.spent[installation], nil
}

// Spend adds tokens to installation's day, forgetting earlier days.
func (l *MemoryLedger) Spend(_ context.Context, installation int64, day string, tokens int64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case day > l.day:
		l.day = day
		l.spent = map[int64]int64{}
	case day < l.day:
		return nil
	}
	l.spent[installation] = max(l.spent[installation]+tokens, 0)
	return nil
}

// utcDay names the UTC day of t.
func utcDay(t time.Time) string { return t.UTC().Format(dayLayout) }

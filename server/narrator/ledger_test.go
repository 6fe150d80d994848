package narrator

import (
	"context"
	"sync"
	"testing"
	"time"
)

func TestMemoryLedger(t *testing.T) {
	ctx := context.Background()
	l := NewMemoryLedger()
	steps := []struct {
		op    string // "spend" or "spent"
		inst  int64
		day   string
		n     int64
		spent int64 // for "spent"
	}{
		{"spend", 1, "2026-09-30", 100, 0},
		{"spend", 1, "2026-09-30", 50, 0},
		{"spend", 2, "2026-09-30", 7, 0},
		{"spent", 1, "2026-09-30", 0, 150},
		{"spent", 2, "2026-09-30", 0, 7},
		{"spend", 1, "2026-09-30", -500, 0},
		{"spent", 1, "2026-09-30", 0, 0},
		{"spend", 1, "2026-10-01", 10, 0},
		{"spent", 2, "2026-09-30", 0, 0},
		{"spent", 1, "2026-10-01", 0, 10},
		{"spend", 1, "2026-09-30", 99, 0},
		{"spent", 1, "2026-10-01", 0, 10},
	}
	for i, s := range steps {
		switch s.op {
		case "spend":
			if err := l.Spend(ctx, s.inst, s.day, s.n); err != nil {
				t.Fatal(err)
			}
		case "spent":
			got, err := l.Spent(ctx, s.inst, s.day)
			if err != nil || got != s.spent {
				t.Fatalf("step %d: Spent(%d, %s) = %d, %v; want %d", i, s.inst, s.day, got, err, s.spent)
			}
		}
	}
}

func TestUTCDay(t *testing.T) {
	east := time.FixedZone("UTC+10", 10*3600)
	if got := utcDay(time.Date(2026, 10, 1, 5, 0, 0, 0, east)); got != "2026-09-30" {
		t.Fatalf("utcDay = %s, want the UTC day 2026-09-30", got)
	}
}

func TestConcurrentReservationsStayWithinBudget(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.DailyTokens = 40000; c.MaxTokens = 1000 },
		reply{content: "It is a race (E1).", delay: 20 * time.Millisecond})
	d := loadDiagnosis(t, "rollout.json")
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = h.n.Answer(context.Background(), d, "why?", Options{InstallationID: 9})
		}()
	}
	wg.Wait()
	spent, _ := h.n.ledger.Spent(context.Background(), 9, utcDay(h.clk.now()))
	sent := len(h.srv.requests())
	if spent > 40000 {
		t.Fatalf("spent %d tokens, over the budget of 40000", spent)
	}
	if sent == 0 || sent == 20 {
		t.Fatalf("%d of 20 concurrent requests were sent; want some, not all, within the budget", sent)
	}
	if got := h.count(KindAnswer, OutcomeBudgetExhausted); int(got) != 20-sent {
		t.Fatalf("budget_exhausted = %v, want %d", got, 20-sent)
	}
}

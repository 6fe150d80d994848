package ghclient

import (
	"testing"
	"time"
)

// TestSecondaryWaitDoubles: a minute, then exponentially more for each
// further secondary limit without Retry-After, capped, with jitter.
func TestSecondaryWaitDoubles(t *testing.T) {
	for n, want := range map[int]time.Duration{1: time.Minute, 2: 2 * time.Minute, 3: 4 * time.Minute, 20: secondaryCap} {
		got := secondaryWait(secondaryFloor, n)
		if got < want || got > want+want/10 {
			t.Errorf("wait %d = %s, want %s plus at most a tenth", n, got, want)
		}
	}
}

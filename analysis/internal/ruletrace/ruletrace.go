// Package ruletrace lets the accuracy bench see which hand-written phrases
// of the analysis rules match, and switch phrases off, without changing what
// Analyze does in production: with no Trace installed every call is one
// atomic load that finds nil.
//
// A rule here is one literal phrase of a phrase list (containsAny and
// hasAnyPrefix in package analysis). The bench counts the development logs
// each phrase matches on and, for cross-validation, switches off the phrases
// that no training log matches: a phrase is fitted on the logs it was
// written after.
package ruletrace

import (
	"sync"
	"sync/atomic"
)

// Trace records the phrases that matched since it was installed and holds
// the phrases that are switched off.
type Trace struct {
	mu   sync.Mutex
	hits map[string]struct{}
	off  map[string]bool
}

// New returns a trace with the given phrases switched off (nil: none).
func New(off map[string]bool) *Trace {
	return &Trace{hits: map[string]struct{}{}, off: off}
}

var active atomic.Pointer[Trace]

// Install makes t the active trace and returns a function that removes it.
// Only one trace is active at a time: Analyze calls made meanwhile from other
// goroutines are traced too, so the bench runs them one by one.
func Install(t *Trace) (remove func()) {
	active.Store(t)
	return func() { active.CompareAndSwap(t, nil) }
}

// Allow is called by a rule when phrase matched; it records the match and
// reports whether the phrase may count (false when it is switched off).
// On reports whether a trace is installed: without one every phrase
// counts, and a caller may stop at the first that matches.
func On() bool {
	return active.Load() != nil
}

func Allow(phrase string) bool {
	t := active.Load()
	if t == nil {
		return true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.hits[phrase] = struct{}{}
	return !t.off[phrase]
}

// Take returns the phrases matched since the last Take and forgets them.
func (t *Trace) Take() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]string, 0, len(t.hits))
	for p := range t.hits {
		out = append(out, p)
	}
	clear(t.hits)
	return out
}

package githubtest

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// secondaryMessage is GitHub's message for a secondary rate limit.
const secondaryMessage = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."

// anonymousLimit is GitHub's primary limit for unauthenticated callers.
const anonymousLimit = 60

// rateState is one caller's primary rate-limit window.
type rateState struct {
	limit int
	used  int
	reset time.Time
}

func (r *rateState) remaining() int { return max(0, r.limit-r.used) }

// rateFor returns the caller's window, starting a new one when the last has
// reset. Limits are per installation, per user and for the app's JWT, as
// GitHub keeps them, so a refreshed installation token keeps its count.
// Callers hold s.mu.
func (s *Server) rateFor(p principal) *rateState {
	key := p.actor()
	if key == "" {
		key = "anonymous"
	}
	now := time.Now()
	st := s.rates[key]
	if st == nil || !now.Before(st.reset) {
		limit := s.opts.RateLimit
		if key == "anonymous" {
			limit = anonymousLimit
		}
		st = &rateState{limit: limit, reset: now.Add(time.Hour).Truncate(time.Second)}
		s.rates[key] = st
	}
	return st
}

// rateExhausted reports whether the caller has no requests left.
func (s *Server) rateExhausted(p principal) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rateFor(p).remaining() == 0
}

// chargeRate counts a call (when charge is set) and writes the
// X-RateLimit-* headers.
func (s *Server) chargeRate(h http.Header, p principal, charge bool) {
	s.mu.Lock()
	st := s.rateFor(p)
	if charge {
		st.used++
	}
	limit, used, remaining, reset := st.limit, st.used, st.remaining(), st.reset
	s.mu.Unlock()
	h.Set("X-RateLimit-Limit", strconv.Itoa(limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(remaining))
	h.Set("X-RateLimit-Used", strconv.Itoa(used))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	h.Set("X-RateLimit-Resource", "core")
}

// writePrimaryLimit answers 403 with X-RateLimit-Remaining: 0, which
// go-github turns into *RateLimitError.
func (s *Server) writePrimaryLimit(w http.ResponseWriter, p principal) {
	s.chargeRate(w.Header(), p, false)
	msg := "API rate limit exceeded."
	switch p.kind {
	case kindInstallation:
		msg = fmt.Sprintf("API rate limit exceeded for installation ID %d.", p.installationID)
	case kindUser:
		msg = fmt.Sprintf("API rate limit exceeded for user ID %d.", p.userID)
	}
	writeJSON(w, http.StatusForbidden, map[string]any{
		"message": msg, "documentation_url": docsPrimary, "status": "403",
	})
}

// SetRateRemaining sets how many calls a caller has left in its window.
// actor is as in Call.Actor ("installation:<id>", "user:<login>", "app").
func (s *Server) SetRateRemaining(actor string, remaining int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := principalFromActor(actor)
	st := s.rateFor(p)
	st.used = max(0, st.limit-remaining)
}

// handleRateLimit serves GET /rate_limit, which does not count.
func (s *Server) handleRateLimit(w http.ResponseWriter, r *http.Request) {
	p := principalOf(r)
	s.mu.Lock()
	st := s.rateFor(p)
	core := map[string]any{
		"limit": st.limit, "used": st.used, "remaining": st.remaining(),
		"reset": st.reset.Unix(), "resource": "core",
	}
	s.mu.Unlock()
	search := map[string]any{"limit": 30, "used": 0, "remaining": 30, "reset": time.Now().Add(time.Minute).Unix(), "resource": "search"}
	writeJSON(w, http.StatusOK, map[string]any{
		"resources": map[string]any{"core": core, "search": search, "graphql": core},
		"rate":      core,
	})
}

// contentLimited counts a content-creating request of an installation and
// reports whether it is over Options.ContentPerMinute in the last minute.
func (s *Server) contentLimited(p principal, method string) bool {
	if s.opts.ContentPerMinute <= 0 || p.kind != kindInstallation || !isWrite(method) {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	recent := s.content[p.actor()][:0]
	for _, at := range s.content[p.actor()] {
		if now.Sub(at) < time.Minute {
			recent = append(recent, at)
		}
	}
	if len(recent) >= s.opts.ContentPerMinute {
		s.content[p.actor()] = recent
		return true
	}
	s.content[p.actor()] = append(recent, now)
	return false
}

// writeSecondaryLimit answers GitHub's secondary limit without
// Retry-After.
func (s *Server) writeSecondaryLimit(w http.ResponseWriter, p principal) {
	s.chargeRate(w.Header(), p, false)
	writeJSON(w, http.StatusForbidden, map[string]any{
		"message":           secondaryMessage,
		"documentation_url": docsSecondary, "status": "403",
	})
}

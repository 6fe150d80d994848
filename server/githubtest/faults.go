package githubtest

import (
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"
)

// FaultKind is a failure the simulator can inject.
type FaultKind string

// Fault kinds, and what a go-github v66 client sees for each.
const (
	// FaultTimeout holds the request without answering until the client
	// gives up (its context or http.Client timeout), then drops it.
	FaultTimeout FaultKind = "timeout"
	// FaultTooManyRequests answers 429 with Retry-After and GitHub's
	// secondary-limit body; go-github v66 returns a plain *ErrorResponse.
	FaultTooManyRequests FaultKind = "429"
	// FaultSecondaryLimit answers 403 with Retry-After and the
	// secondary-limit documentation_url; go-github returns
	// *AbuseRateLimitError with RetryAfter set.
	FaultSecondaryLimit FaultKind = "403-secondary"
	// FaultServerError answers 502 (or Fault.Status); *ErrorResponse.
	FaultServerError FaultKind = "5xx"
	// FaultReset drops the connection with a TCP reset before handling.
	FaultReset FaultKind = "reset"
	// FaultResponseLost applies the call (a write is committed) and then
	// drops the connection instead of answering.
	FaultResponseLost FaultKind = "response-lost"
	// FaultConflict answers 409; *ErrorResponse.
	FaultConflict FaultKind = "409"
	// FaultValidation answers 422 "Validation Failed"; *ErrorResponse.
	FaultValidation FaultKind = "422"
	// FaultForbidden answers 403 "Resource not accessible by integration",
	// as GitHub does when the installation lacks a permission the call
	// needs; *ErrorResponse.
	FaultForbidden FaultKind = "403"
)

// Fault describes when and how to fail calls. A call matches when every
// criterion that is set matches; the first Times matching calls fail.
type Fault struct {
	Kind FaultKind
	// At is the first Call.APIIndex (1-based, counting only KindAPI calls)
	// that may match; 0 means any. With Times 1 (the default) and no other
	// criterion, exactly the At-th API call fails.
	At int
	// Method matches the HTTP method, e.g. "POST".
	Method string
	// Path is a path.Match pattern over the path without /api/v3, e.g.
	// "/repos/*/*/issues/*/comments".
	Path string
	// Target is the kind of call to match; default KindAPI. Use KindToken or
	// KindBlob to fail token exchanges or log downloads.
	Target CallKind
	// Match is an extra predicate over the recorded call.
	Match func(Call) bool
	// Times is how many matching calls fail: 0 or 1 means one-shot, a
	// negative value means every matching call until removed.
	Times int
	// RetryAfter is sent as Retry-After by the 429 and 403 faults; default
	// 60 seconds.
	RetryAfter time.Duration
	// Status replaces the status of FaultServerError (default 502).
	Status int
	// Message replaces the error message of status faults.
	Message string
}

// faultRule is an injected Fault and how often it has fired.
type faultRule struct {
	Fault
	hits int
}

// InjectedFault is a handle on a fault added with InjectFault.
type InjectedFault struct {
	s    *Server
	rule *faultRule
}

// InjectFault adds a fault; it stays until it has fired Times times, it is
// removed, or ResetFaults is called.
func (s *Server) InjectFault(f Fault) *InjectedFault {
	if f.Target == "" {
		f.Target = KindAPI
	}
	if f.Times == 0 {
		f.Times = 1
	}
	if f.RetryAfter <= 0 {
		f.RetryAfter = time.Minute
	}
	rule := &faultRule{Fault: f}
	s.mu.Lock()
	s.faults = append(s.faults, rule)
	s.mu.Unlock()
	return &InjectedFault{s: s, rule: rule}
}

// Hits is how many calls the fault has failed.
func (h *InjectedFault) Hits() int {
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	return h.rule.hits
}

// Remove takes the fault out.
func (h *InjectedFault) Remove() {
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	for i, r := range h.s.faults {
		if r == h.rule {
			h.s.faults = append(h.s.faults[:i], h.s.faults[i+1:]...)
			return
		}
	}
}

// ResetFaults removes every injected fault.
func (s *Server) ResetFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// matchFault returns the first fault that applies to the call and counts
// the hit. Callers hold s.mu.
func (s *Server) matchFault(c Call) *faultRule {
	for _, rule := range s.faults {
		if rule.Times >= 0 && rule.hits >= rule.Times {
			continue
		}
		if !rule.matches(c) {
			continue
		}
		rule.hits++
		return rule
	}
	return nil
}

func (f *faultRule) matches(c Call) bool {
	if c.Kind != f.Target {
		return false
	}
	if f.At > 0 && (c.Kind != KindAPI || c.APIIndex < f.At) {
		return false
	}
	if f.Method != "" && !strings.EqualFold(f.Method, c.Method) {
		return false
	}
	if f.Path != "" {
		if ok, _ := path.Match(f.Path, c.Path); !ok {
			return false
		}
	}
	return f.Match == nil || f.Match(c)
}

// writeFault answers with the fault's status and body.
func (s *Server) writeFault(w http.ResponseWriter, p principal, rule *faultRule) {
	status, msg := http.StatusBadGateway, "Server Error"
	doc := docsBase
	var errs []validationError
	switch rule.Kind {
	case FaultTooManyRequests, FaultSecondaryLimit:
		status = http.StatusTooManyRequests
		if rule.Kind == FaultSecondaryLimit {
			status = http.StatusForbidden
		}
		msg = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
		doc = docsSecondary
		w.Header().Set("Retry-After", strconv.Itoa(int(rule.RetryAfter/time.Second)))
	case FaultConflict:
		status, msg = http.StatusConflict, "Conflict"
	case FaultForbidden:
		status, msg = http.StatusForbidden, "Resource not accessible by integration"
	case FaultValidation:
		status, msg = http.StatusUnprocessableEntity, "Validation Failed"
		errs = []validationError{{Code: "custom", Message: "injected validation failure"}}
	case FaultServerError:
		if rule.Status >= 500 {
			status = rule.Status
		}
	}
	if rule.Message != "" {
		msg = rule.Message
	}
	s.chargeRate(w.Header(), p, false)
	body := map[string]any{"message": msg, "documentation_url": doc, "status": strconv.Itoa(status)}
	if errs != nil {
		body["errors"] = errs
	}
	writeJSON(w, status, body)
}

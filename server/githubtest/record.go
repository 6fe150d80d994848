package githubtest

import (
	"net/http"
	"sort"
)

// CallKind sorts the requests the simulator receives.
type CallKind string

// Kinds of call. Only KindAPI calls get an APIIndex, so the token exchange
// ghinstallation does on its own and the log download that follows a 302 do
// not shift the indexes tests inject faults at.
const (
	// KindAPI is a REST call: everything not listed below.
	KindAPI CallKind = "api"
	// KindToken is POST /app/installations/{id}/access_tokens.
	KindToken CallKind = "token"
	// KindBlob is a download from the simulated blob storage (job logs after
	// the 302) or from the raw-file host (contents' download_url).
	KindBlob CallKind = "blob"
	// KindWeb is a browser page: the OAuth authorize and token exchange, and
	// the app-manifest form.
	KindWeb CallKind = "web"
)

// Call is one request the simulator received.
type Call struct {
	// Index is the 1-based position among every request received.
	Index int
	// APIIndex is the 1-based position among KindAPI calls, 0 for others.
	// Fault.At counts this.
	APIIndex int
	Kind     CallKind
	Method   string
	// Path is the decoded path without the /api/v3 prefix.
	Path  string
	Query string
	// Status is the status sent; 0 when the connection was dropped before a
	// response (a timeout or reset fault).
	Status int
	// Write is true for POST, PATCH, PUT and DELETE API calls.
	Write bool
	// Fault is the fault injected into this call, if any.
	Fault FaultKind
	// Actor says who called: "app", "installation:<id>", "user:<login>" or
	// "" for an anonymous or unauthenticated caller.
	Actor string
}

// Write is a write call with its request body.
type Write struct {
	Call
	Body []byte
}

// callSlot locates a recorded call; gen tells whether ResetRecording ran
// since.
type callSlot struct{ idx, gen int }

// beginCall records the start of a request and returns its slot. Callers
// hold s.mu.
func (s *Server) beginCall(r *http.Request, kind CallKind, write bool, p principal) callSlot {
	c := Call{
		Index: len(s.calls) + 1, Kind: kind, Method: r.Method, Path: r.URL.Path,
		Query: r.URL.RawQuery, Write: write, Actor: p.actor(),
	}
	if kind == KindAPI {
		s.apiCalls++
		c.APIIndex = s.apiCalls
	}
	s.calls = append(s.calls, c)
	return callSlot{idx: len(s.calls) - 1, gen: s.recGen}
}

// finishCall records how a request ended.
func (s *Server) finishCall(slot callSlot, status int, rule *faultRule, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if slot.gen != s.recGen {
		return // ResetRecording ran meanwhile
	}
	c := &s.calls[slot.idx]
	c.Status = status
	if rule != nil {
		c.Fault = rule.Kind
	}
	if c.Write {
		s.writes = append(s.writes, Write{Call: *c, Body: body})
	}
}

// Calls returns every request received so far, in arrival order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// APICalls returns the KindAPI calls received so far, in arrival order.
func (s *Server) APICalls() []Call {
	var out []Call
	for _, c := range s.Calls() {
		if c.Kind == KindAPI {
			out = append(out, c)
		}
	}
	return out
}

// Writes returns every write call that finished, with its body, in arrival
// order. Failed writes are included; check Status.
func (s *Server) Writes() []Write {
	s.mu.Lock()
	out := append([]Write(nil), s.writes...)
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out
}

// ResetRecording forgets the calls and writes recorded so far; API indexes
// start again at 1.
func (s *Server) ResetRecording() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls, s.writes, s.apiCalls = nil, nil, 0
	s.recGen++
}

package githubtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// ctxKey keys the values the pipeline puts in a request's context.
type ctxKey int

const (
	ctxPrefix ctxKey = iota
	ctxPrincipal
	ctxRepo
)

// apiPrefix is the GitHub Enterprise Server path the API is also served under.
const apiPrefix = "/api/v3"

// ServeHTTP runs one request through the simulator: record it, inject a
// fault if one matches, authenticate, apply the rate limit, route, add ETag
// and rate-limit headers.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	prefix := stripPrefix(r)
	kind := classify(r.Method, r.URL.Path)
	write := kind == KindAPI && isWrite(r.Method)
	var body []byte
	if write {
		body, _ = io.ReadAll(io.LimitReader(r.Body, maxRequestBody))
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	p := s.authenticate(r)
	s.mu.Lock()
	slot := s.beginCall(r, kind, write, p)
	rule := s.matchFault(s.calls[slot.idx])
	s.mu.Unlock()
	ctx := context.WithValue(r.Context(), ctxPrefix, prefix)
	ctx = context.WithValue(ctx, ctxPrincipal, p)
	s.serveCall(w, r.WithContext(ctx), kind, p, rule, func(status int) { s.finishCall(slot, status, rule, body) })
}

// stripPrefix removes a leading /api/v3 from the request path and returns
// what it removed.
func stripPrefix(r *http.Request) string {
	if r.URL.Path != apiPrefix && !strings.HasPrefix(r.URL.Path, apiPrefix+"/") {
		return ""
	}
	u := *r.URL
	u.Path = strings.TrimPrefix(u.Path, apiPrefix)
	u.RawPath = strings.TrimPrefix(u.RawPath, apiPrefix)
	if u.Path == "" {
		u.Path = "/"
	}
	r.URL = &u
	return apiPrefix
}

// classify says which kind of call a request is.
func classify(method, p string) CallKind {
	switch {
	case strings.HasPrefix(p, "/_blob/"), strings.HasPrefix(p, "/_raw/"):
		return KindBlob
	case method == http.MethodPost && strings.HasPrefix(p, "/app/installations/") && strings.HasSuffix(p, "/access_tokens"):
		return KindToken
	case strings.HasPrefix(p, "/login/oauth/"), strings.HasSuffix(p, "/settings/apps/new"):
		return KindWeb
	}
	return KindAPI
}

func isWrite(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

// serveCall answers the request, or applies the fault. It calls done with
// the status (0 when the connection is dropped without a response) before
// anything reaches the client, so a test that has its answer also sees the
// call recorded.
func (s *Server) serveCall(w http.ResponseWriter, r *http.Request, kind CallKind, p principal, rule *faultRule, done func(int)) {
	rec := &recorder{header: http.Header{}}
	var fault FaultKind
	if rule != nil {
		fault = rule.Kind
	}
	switch fault {
	case FaultTimeout:
		done(0)
		s.hang(w, r)
		return
	case FaultReset:
		done(0)
		resetConn(w)
		return
	case "", FaultResponseLost:
		s.dispatch(rec, r, kind, p)
	default:
		s.writeFault(rec, p, rule)
	}
	done(rec.code())
	if fault == FaultResponseLost {
		resetConn(w)
		return
	}
	rec.flush(w)
}

// dispatch routes the request with the rate limit and conditional-request
// handling around it.
func (s *Server) dispatch(rec *recorder, r *http.Request, kind CallKind, p principal) {
	counted := (kind == KindAPI || kind == KindToken) && r.URL.Path != "/rate_limit"
	limited := kind == KindAPI || kind == KindToken
	if counted && s.rateExhausted(p) {
		s.writePrimaryLimit(rec, p)
		return
	}
	if kind == KindAPI && s.contentLimited(p, r.Method) {
		s.writeSecondaryLimit(rec, p)
		return
	}
	s.router.ServeHTTP(rec, r)
	if kind == KindAPI && r.Method == http.MethodGet && rec.code() == http.StatusOK {
		// GitHub's ETags are specific to the credential: "It's currently
		// expected for ETags to be auth token specific" (GitHub support,
		// quoted in eclipse-csi/otterdog#201; github/docs#34689), so an
		// ETag stored under an installation token that has since rotated
		// gets a 200, not a 304.
		rec.header.Set("Vary", "Accept, Authorization, Cookie, X-GitHub-OTP")
		sum := sha256.Sum256(append([]byte(r.Header.Get("Accept")+"\n"+r.Header.Get("Authorization")+"\n"), rec.body.Bytes()...))
		etag := `W/"` + hex.EncodeToString(sum[:16]) + `"`
		rec.header.Set("ETag", etag)
		if etagMatches(r.Header.Get("If-None-Match"), etag) {
			rec.status = http.StatusNotModified
			rec.body.Reset()
			rec.header.Del("Content-Type")
		}
	}
	if limited {
		s.chargeRate(rec.header, p, counted && rec.code() != http.StatusNotModified)
	}
}

// etagMatches compares an If-None-Match header with an ETag, weakly.
func etagMatches(header, etag string) bool {
	want := strings.TrimPrefix(etag, "W/")
	for _, v := range strings.Split(header, ",") {
		v = strings.TrimSpace(v)
		if v == "*" || strings.TrimPrefix(v, "W/") == want {
			return true
		}
	}
	return false
}

// hang holds the request until the client gives up, the server closes or
// the hang limit passes; then it drops the connection.
func (s *Server) hang(w http.ResponseWriter, r *http.Request) {
	t := time.NewTimer(s.opts.HangLimit)
	defer t.Stop()
	select {
	case <-r.Context().Done():
		return
	case <-s.closing:
	case <-t.C:
	}
	resetConn(w)
}

// resetConn drops the connection with a TCP reset and no response.
func resetConn(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// recorder buffers a handler's response so the pipeline can add headers,
// answer 304, or drop it.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (rec *recorder) Header() http.Header { return rec.header }

func (rec *recorder) WriteHeader(code int) {
	if rec.status == 0 {
		rec.status = code
	}
}

func (rec *recorder) Write(b []byte) (int, error) {
	rec.WriteHeader(http.StatusOK)
	return rec.body.Write(b)
}

// code is the status written, 200 when the handler wrote none.
func (rec *recorder) code() int {
	if rec.status == 0 {
		return http.StatusOK
	}
	return rec.status
}

// flush sends the buffered response.
func (rec *recorder) flush(w http.ResponseWriter) {
	for k, v := range rec.header {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.code())
	if rec.code() != http.StatusNotModified && rec.code() != http.StatusNoContent {
		_, _ = w.Write(rec.body.Bytes())
	}
}

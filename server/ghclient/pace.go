package ghclient

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Secondary-limit waits when GitHub sends no Retry-After: "you should wait
// for at least one minute before retrying … If your request continues to
// fail due to a secondary rate limit, wait for an exponentially increasing
// amount of time between retries"
// (docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api,
// "Exceeding the rate limit").
const (
	secondaryFloor = time.Minute
	secondaryCap   = 16 * time.Minute
)

// installTransport carries one installation's requests (or the app's own,
// without spacing). It spaces its
// content-creating requests (POST, PATCH, PUT, DELETE) by at least
// interval, as GitHub asks ("wait at least one second between each
// request", best practices for integrators), and it gives a secondary-limit
// answer without Retry-After one: a minute, doubling for each further such
// answer in a row, with jitter. Without it go-github falls back to the
// answer's x-ratelimit-reset, the primary window's end up to an hour away,
// and refuses every call of the installation until then. State is per
// installation, so one installation's limit never delays another's calls.
type installTransport struct {
	base     http.RoundTripper
	interval time.Duration
	floor    time.Duration // the first secondary-limit wait without Retry-After

	mu        sync.Mutex
	nextWrite time.Time
	strikes   int    // secondary limits without Retry-After in a row
	budget    Budget // the primary limit as the last answer told it
}

// Budget is an installation's primary rate limit as GitHub's last answer
// told it (x-ratelimit-*).
type Budget struct {
	Limit, Remaining int
	Reset            time.Time
}

// Low reports a budget below a twentieth of the limit (at least 50 calls)
// that has not reset yet: work that can wait should.
func (b Budget) Low(now time.Time) bool {
	return b.Limit > 0 && now.Before(b.Reset) && b.Remaining < max(b.Limit/20, 50)
}

// note records the primary limit an answer reports.
func (t *installTransport) note(h http.Header) {
	limit, err1 := strconv.Atoi(h.Get("X-RateLimit-Limit"))
	remaining, err2 := strconv.Atoi(h.Get("X-RateLimit-Remaining"))
	reset, err3 := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || h.Get("X-RateLimit-Resource") != "core" && h.Get("X-RateLimit-Resource") != "" {
		return
	}
	t.mu.Lock()
	t.budget = Budget{Limit: limit, Remaining: remaining, Reset: time.Unix(reset, 0)}
	t.mu.Unlock()
}

func (t *installTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.interval > 0 && isContentCreating(req.Method) {
		if err := t.pace(req.Context()); err != nil {
			return nil, err
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err == nil {
		t.note(resp.Header)
	}
	if err != nil || resp.StatusCode < 400 {
		if err == nil {
			t.mu.Lock()
			t.strikes = 0
			t.mu.Unlock()
		}
		return resp, err
	}
	if (resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusTooManyRequests) &&
		resp.Header.Get("Retry-After") == "" && resp.Header.Get("X-RateLimit-Remaining") != "0" && secondaryBody(resp) {
		t.mu.Lock()
		t.strikes++
		wait := secondaryWait(t.floor, t.strikes)
		t.mu.Unlock()
		resp.Header.Set("Retry-After", strconv.Itoa(int(wait/time.Second)))
	}
	return resp, nil
}

// pace waits until the installation may send its next content-creating
// request, or ctx ends.
func (t *installTransport) pace(ctx context.Context) error {
	t.mu.Lock()
	now := time.Now()
	at := t.nextWrite
	if at.Before(now) {
		at = now
	}
	t.nextWrite = at.Add(t.interval)
	t.mu.Unlock()
	return sleep(ctx, time.Until(at))
}

// secondaryWait is the wait after the n-th secondary limit in a row
// without Retry-After: floor doubled n-1 times, capped, plus up to a tenth
// more. Retry-After counts whole seconds, so it is at least one.
func secondaryWait(floor time.Duration, n int) time.Duration {
	d := min(floor<<min(n-1, 8), max(secondaryCap, floor))
	return max(d+rand.N(d/10+1), time.Second)
}

// secondaryBody reports whether an error answer is a secondary rate limit
// (its documentation_url or message says so), keeping the body readable.
func secondaryBody(resp *http.Response) bool {
	if resp.Body == nil {
		return false
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	if err != nil {
		return false
	}
	s := strings.ToLower(string(b))
	return strings.Contains(s, "secondary-rate-limits") || strings.Contains(s, "secondary rate limit") ||
		strings.Contains(s, "abuse-rate-limits") || strings.Contains(s, "abuse detection")
}

func isContentCreating(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

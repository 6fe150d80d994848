package ghclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v66/github"
)

// Errors the client returns, wrapped: test with errors.Is.
var (
	// ErrNotFound: GitHub answered 404 (the object does not exist or the
	// installation cannot see it).
	ErrNotFound = errors.New("not found on GitHub")
	// ErrNoPermission: GitHub answered 401 or 403 for a reason other than a
	// rate limit (the installation lacks a permission, or was suspended).
	ErrNoPermission = errors.New("no permission on GitHub")
	// ErrLogsExpired: a job's log is gone (404 or 410 on the logs endpoint
	// or its download).
	ErrLogsExpired = errors.New("job log expired or deleted")
	// ErrLogTooLarge: a job's log is larger than the download limit.
	ErrLogTooLarge = errors.New("job log larger than the download limit")
	// ErrUnprocessable: GitHub answered 422 (validation failed; for example
	// the branch or pull request already exists).
	ErrUnprocessable = errors.New("GitHub refused the request as invalid (422)")
	// ErrConflict: GitHub answered 409.
	ErrConflict = errors.New("conflict on GitHub (409)")
	// ErrRateLimited is wrapped by *RateLimitedError.
	ErrRateLimited = errors.New("GitHub rate limit")
)

// RateLimitedError is returned when GitHub asks for a wait longer than the
// client may spend inside one call: the caller should try again after Wait
// (a worker snoozes its job).
type RateLimitedError struct {
	Wait time.Duration
	Err  error
}

func (e *RateLimitedError) Error() string {
	return fmt.Sprintf("GitHub rate limit: retry after %s: %v", e.Wait.Round(time.Second), e.Err)
}

// Unwrap returns ErrRateLimited and the cause.
func (e *RateLimitedError) Unwrap() []error { return []error{ErrRateLimited, e.Err} }

// APIError is a GitHub error answer with its status and message.
type APIError struct {
	Op      string
	Status  int
	Message string
	// Accepted is GitHub's X-Accepted-GitHub-Permissions header: the
	// permissions that would have been accepted, alternatives separated by
	// ";" (e.g. "actions=write"), on a refusal for a missing permission.
	Accepted string
	kind     error
}

func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	if e.Accepted != "" {
		msg += " (the app needs " + e.Accepted + ")"
	}
	return fmt.Sprintf("%s: GitHub answered %d: %s", e.Op, e.Status, msg)
}

// Unwrap returns the sentinel error of the status, if any.
func (e *APIError) Unwrap() error { return e.kind }

// verdict says what to do about a failed call.
type verdict struct {
	wait      time.Duration // rate limited: wait this long, then retry
	limited   bool
	transient bool // a transient failure: retry idempotent calls
	unsent    bool // the request never reached GitHub: retry any call
}

// judge classifies the error of one attempt.
func judge(err error, now time.Time) verdict {
	var rl *github.RateLimitError
	var abuse *github.AbuseRateLimitError
	var er *github.ErrorResponse
	var tokenErr *ghinstallation.HTTPError
	switch {
	case errors.As(err, &rl):
		return verdict{limited: true, wait: untilReset(rl.Rate.Reset.Time, now)}
	case errors.As(err, &abuse):
		return verdict{limited: true, wait: abuse.GetRetryAfter()}
	case errors.As(err, &tokenErr):
		resp := tokenErr.Response
		if resp != nil && (resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusTooManyRequests) &&
			(resp.Header.Get("Retry-After") != "" || resp.Header.Get("X-RateLimit-Remaining") == "0" || secondaryBody(resp)) {
			// A rate limit on minting the token: the call was never sent.
			return verdict{limited: true, unsent: true, wait: retryAfter(resp.Header, now)}
		}
		if resp != nil && resp.StatusCode < 500 && resp.StatusCode != http.StatusTooManyRequests {
			return verdict{} // bad credentials, a suspended or removed installation
		}
		return verdict{unsent: true, transient: true}
	case errors.As(err, &er) && er.Response != nil:
		return judgeStatus(er.Response, now)
	case isNetworkError(err):
		return verdict{transient: true}
	}
	return verdict{}
}

// judgeStatus classifies an HTTP error status with its headers.
func judgeStatus(resp *http.Response, now time.Time) verdict {
	switch s := resp.StatusCode; {
	case s == http.StatusTooManyRequests:
		return verdict{limited: true, wait: retryAfter(resp.Header, now)}
	case s == http.StatusForbidden && (resp.Header.Get("Retry-After") != "" || resp.Header.Get("X-RateLimit-Remaining") == "0"):
		return verdict{limited: true, wait: retryAfter(resp.Header, now)}
	case s >= 500:
		return verdict{transient: true}
	}
	return verdict{}
}

// retryAfter reads how long GitHub asks to wait: Retry-After, else until
// x-ratelimit-reset when the limit is spent, else one minute (GitHub's
// advice for secondary limits without a header).
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After"); v != "" {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 0 {
			return time.Duration(n) * time.Second
		}
		if t, err := http.ParseTime(v); err == nil {
			return max(t.Sub(now), 0)
		}
	}
	if h.Get("X-RateLimit-Remaining") == "0" {
		if n, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			return untilReset(time.Unix(n, 0), now)
		}
	}
	return time.Minute
}

func untilReset(reset, now time.Time) time.Duration {
	if reset.IsZero() {
		return time.Minute
	}
	return max(reset.Sub(now), 0) + time.Second // the reset second itself
}

// isNetworkError reports connection failures and timeouts: resets, refused
// connections, unexpected EOFs and client timeouts. A cancelled or expired
// caller context is not one.
func isNetworkError(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) && !isTimeout(err) {
		return false
	}
	var ne net.Error
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.As(err, &ne)
}

// isTimeout reports an http.Client timeout (which also wraps
// context.DeadlineExceeded).
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// typed turns a final error into the package's typed errors.
func typed(op string, err error) error {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		e := statusError(op, er.Response.StatusCode, er.Message)
		e.Accepted = er.Response.Header.Get("X-Accepted-GitHub-Permissions")
		return e
	}
	var tokenErr *ghinstallation.HTTPError
	if errors.As(err, &tokenErr) && tokenErr.Response != nil && !judge(err, time.Now()).limited {
		s := tokenErr.Response.StatusCode
		if s == http.StatusNotFound || s == http.StatusUnauthorized || s == http.StatusForbidden {
			msg := "installation token refused"
			if m := bodyMessage(tokenErr.Response); m != "" {
				msg += ": " + m // e.g. "This installation has been suspended"
			}
			return fmt.Errorf("%s: installation token: %w", op, &APIError{Op: op, Status: s, Message: msg, kind: ErrNoPermission})
		}
	}
	return fmt.Errorf("%s: %w", op, err)
}

// statusError builds the APIError of a status.
func statusError(op string, status int, msg string) *APIError {
	e := &APIError{Op: op, Status: status, Message: msg}
	switch status {
	case http.StatusNotFound:
		e.kind = ErrNotFound
	case http.StatusUnauthorized, http.StatusForbidden:
		e.kind = ErrNoPermission
	case http.StatusUnprocessableEntity:
		e.kind = ErrUnprocessable
	case http.StatusConflict:
		e.kind = ErrConflict
	case http.StatusGone:
		e.kind = ErrNotFound
	}
	return e
}

// AlreadyExists reports a 422 whose message says the object already
// exists, as GitHub answers a second "create a reference" ("Reference
// already exists"). Other 422s on the same call mean something else
// ("Reference update failed", "Object does not exist").
func AlreadyExists(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Status == http.StatusUnprocessableEntity &&
		strings.Contains(strings.ToLower(ae.Message), "already exists")
}

// MissingPermission returns the permission GitHub named as needed when it
// refused a call with 403 (its X-Accepted-GitHub-Permissions header, e.g.
// "actions=write"), and whether err is such a refusal. The name is "" when
// GitHub named none.
func MissingPermission(err error) (string, bool) {
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusForbidden ||
		ae.Accepted == "" && !strings.EqualFold(ae.Message, "Resource not accessible by integration") {
		return "", false
	}
	return ae.Accepted, true
}

// bodyMessage reads the "message" of a GitHub error answer, bounded and on
// one line; "" when there is none.
func bodyMessage(resp *http.Response) string {
	if resp == nil || resp.Body == nil {
		return ""
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	var e struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(b, &e) != nil {
		return ""
	}
	m := strings.Join(strings.Fields(e.Message), " ")
	if len(m) > 200 {
		m = m[:200] + "…"
	}
	return m
}

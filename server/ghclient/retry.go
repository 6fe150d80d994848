package ghclient

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/google/go-github/v66/github"
)

// Retry policy defaults.
const (
	defaultMaxWait  = time.Minute
	defaultRetries  = 4
	defaultLimitTry = 3
	backoffBase     = 250 * time.Millisecond
	backoffCap      = 8 * time.Second
)

// call kinds: whether a call may be sent again after a failure whose effect
// is unknown (a 5xx, a reset, a timeout).
const (
	idempotent = true
	once       = false
)

// do runs one GitHub call with the client's policy:
//
//   - a rate limit (a 429, a secondary-limit 403, a spent primary limit) is
//     waited out for Retry-After or until x-ratelimit-reset, with jitter, if
//     that fits in MaxWait; otherwise *RateLimitedError says how long to wait;
//   - a transient failure (5xx, connection reset, timeout) is retried with
//     exponential backoff and jitter, Retries times, for idempotent calls only,
//     and for any call when the request provably never left (the
//     installation-token exchange failed);
//   - everything else, and a done ctx, ends the call at once.
//
// The error is typed (ErrNotFound, ErrNoPermission, …) and names op.
func (c *Client) do(ctx context.Context, op string, canRepeat bool, fn func(ctx context.Context) (*github.Response, error)) error {
	limitTries, transientTries := 0, 0
	for {
		_, err := fn(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return typed(op, ctx.Err())
		}
		v := judge(err, c.now())
		var wait time.Duration
		switch {
		case v.limited:
			limitTries++
			wait = v.wait + jitter(v.wait)
			if wait > c.cfg.MaxWait || limitTries > defaultLimitTry {
				c.metrics.limited()
				return &RateLimitedError{Wait: wait, Err: typed(op, err)}
			}
		case v.transient && (canRepeat || v.unsent):
			transientTries++
			if transientTries > c.cfg.Retries {
				return typed(op, err)
			}
			wait = backoff(transientTries)
		default:
			return typed(op, err)
		}
		c.metrics.retried(v.limited)
		if err := sleep(ctx, wait); err != nil {
			return typed(op, err)
		}
	}
}

// backoff is the wait before the n-th retry (n >= 1): exponential from
// backoffBase, capped, with full jitter on its upper half.
func backoff(n int) time.Duration {
	d := backoffBase << min(n-1, 10)
	d = min(d, backoffCap)
	return d/2 + rand.N(d/2+1)
}

// jitter spreads rate-limit waits so that workers do not return together: up
// to a tenth of the wait, at least up to half a second.
func jitter(wait time.Duration) time.Duration {
	span := max(wait/10, 500*time.Millisecond)
	return rand.N(span)
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

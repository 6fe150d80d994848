package ghclient_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/server/githubtest"
)

// TestFaults injects each fault kind into the first read or write and checks
// what the client does: rate limits are waited out within the bound, reads
// are retried after transient failures, writes are not (their effect is
// unknown) unless the request never left.
func TestFaults(t *testing.T) {
	read := func(ctx context.Context, r *ghclient.Repo) error {
		_, err := r.ListRuns(ctx, ghclient.RunsQuery{WorkflowID: tinyWorkflow})
		return err
	}
	write := func(ctx context.Context, r *ghclient.Repo) error {
		_, err := r.CreateComment(ctx, tinyPR, "hello")
		return err
	}
	tests := []struct {
		name      string
		fault     githubtest.Fault
		call      func(context.Context, *ghclient.Repo) error
		wantErr   error
		wantCalls int // API calls the simulator sees
		minTook   time.Duration
	}{
		{"read 429 waits Retry-After", githubtest.Fault{Kind: githubtest.FaultTooManyRequests, RetryAfter: time.Second}, read, nil, 2, time.Second},
		{"read secondary limit waits", githubtest.Fault{Kind: githubtest.FaultSecondaryLimit, RetryAfter: time.Second}, read, nil, 2, time.Second},
		{"write 429 waits and sends again", githubtest.Fault{Kind: githubtest.FaultTooManyRequests, RetryAfter: time.Second}, write, nil, 2, time.Second},
		{"wait above the bound", githubtest.Fault{Kind: githubtest.FaultTooManyRequests, RetryAfter: time.Hour}, read, ghclient.ErrRateLimited, 1, 0},
		{"read 502 retried", githubtest.Fault{Kind: githubtest.FaultServerError}, read, nil, 2, 0},
		{"read reset retried", githubtest.Fault{Kind: githubtest.FaultReset}, read, nil, 2, 0},
		{"read timeout retried", githubtest.Fault{Kind: githubtest.FaultTimeout}, read, nil, 2, time.Second},
		{"write 502 not repeated", githubtest.Fault{Kind: githubtest.FaultServerError}, write, errAny, 1, 0},
		{"write reset not repeated", githubtest.Fault{Kind: githubtest.FaultReset}, write, errAny, 1, 0},
		{"write response lost not repeated", githubtest.Fault{Kind: githubtest.FaultResponseLost}, write, errAny, 1, 0},
		{"write 422", githubtest.Fault{Kind: githubtest.FaultValidation}, write, ghclient.ErrUnprocessable, 1, 0},
		{"write 409", githubtest.Fault{Kind: githubtest.FaultConflict}, write, ghclient.ErrConflict, 1, 0},
		{"token exchange 502 retried for a write", githubtest.Fault{Kind: githubtest.FaultServerError, Target: githubtest.KindToken}, write, nil, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sim := startSim(t)
			r := tinyRepoHandle(t, newClient(t, sim, func(c *ghclient.Config) { c.Timeout = time.Second }))
			if tc.fault.Target == "" {
				tc.fault.At = 1 // the first API call; At counts API calls only
			}
			h := sim.InjectFault(tc.fault)
			start := time.Now()
			err := tc.call(testCtx(t), r)
			took := time.Since(start)
			switch {
			case tc.wantErr == nil && err != nil:
				t.Fatalf("err = %v, want success", err)
			case tc.wantErr == errAny && err == nil, tc.wantErr != nil && tc.wantErr != errAny && !errors.Is(err, tc.wantErr):
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if h.Hits() != 1 {
				t.Fatalf("fault fired %d times", h.Hits())
			}
			if n := len(sim.APICalls()); n != tc.wantCalls {
				t.Fatalf("%d API calls, want %d", n, tc.wantCalls)
			}
			if took < tc.minTook {
				t.Fatalf("took %s, want at least %s", took, tc.minTook)
			}
		})
	}
}

// errAny marks cases where any error is right.
var errAny = errors.New("any error")

func TestRateLimitedErrorSaysHowLong(t *testing.T) {
	sim := startSim(t)
	r := tinyRepoHandle(t, newClient(t, sim, nil))
	sim.InjectFault(githubtest.Fault{Kind: githubtest.FaultSecondaryLimit, RetryAfter: 10 * time.Minute, At: 1})
	_, err := r.GetPull(testCtx(t), tinyPR)
	var rl *ghclient.RateLimitedError
	if !errors.As(err, &rl) || rl.Wait < 10*time.Minute {
		t.Fatalf("err = %v, want a RateLimitedError of at least 10m", err)
	}
}

// TestPrimaryLimit spends the installation's primary limit: the next call
// reports how long until the reset instead of hammering GitHub.
func TestPrimaryLimit(t *testing.T) {
	sim, err := githubtest.Start(githubtest.Options{Scenarios: []string{filepath.Join("..", "githubtest", "testdata", "tiny")}, RateLimit: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	r := tinyRepoHandle(t, newClient(t, sim, nil))
	ctx := testCtx(t)
	var last error
	for range 4 {
		if _, last = r.GetPull(ctx, tinyPR); last != nil {
			break
		}
	}
	if !errors.Is(last, ghclient.ErrRateLimited) {
		t.Fatalf("err = %v, want ErrRateLimited once the limit is spent", last)
	}
}

// TestWaitEndsWithContext cancels the caller while it waits out a limit.
func TestWaitEndsWithContext(t *testing.T) {
	sim := startSim(t)
	r := tinyRepoHandle(t, newClient(t, sim, func(c *ghclient.Config) { c.MaxWait = time.Hour }))
	sim.InjectFault(githubtest.Fault{Kind: githubtest.FaultTooManyRequests, RetryAfter: 30 * time.Second, At: 1})
	ctx, cancel := context.WithTimeout(testCtx(t), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := r.GetPull(ctx, tinyPR)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("err = %v after %s, want the context's deadline at once", err, time.Since(start))
	}
}

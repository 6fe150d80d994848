package ghclient_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/server/githubtest"
)

// TestSecondaryLimitWithoutRetryAfter: a secondary limit without
// Retry-After is waited out for about a minute, as GitHub's docs ask, not
// until the primary window's x-ratelimit-reset (up to an hour); the
// installation's next call is held back locally for that minute only.
func TestSecondaryLimitWithoutRetryAfter(t *testing.T) {
	for _, kind := range []githubtest.FaultKind{githubtest.FaultSecondaryLimit, githubtest.FaultTooManyRequests} {
		t.Run(string(kind), func(t *testing.T) {
			sim := startSim(t)
			r := tinyRepoHandle(t, newClient(t, sim, nil))
			sim.InjectFault(githubtest.Fault{Kind: kind, NoRetryAfter: true, At: 1})
			_, err := r.GetPull(testCtx(t), tinyPR)
			var rl *ghclient.RateLimitedError
			if !errors.As(err, &rl) || rl.Wait < time.Minute || rl.Wait > 2*time.Minute {
				t.Fatalf("err = %v, want a RateLimitedError of a minute or a little more", err)
			}
			if kind != githubtest.FaultSecondaryLimit {
				return // go-github holds back calls only after a 403 secondary limit
			}
			calls := len(sim.APICalls())
			_, err = r.GetPull(testCtx(t), tinyPR)
			if !errors.As(err, &rl) || rl.Wait > 2*time.Minute {
				t.Fatalf("next call: %v, want a RateLimitedError of at most about a minute", err)
			}
			if len(sim.APICalls()) != calls {
				t.Errorf("the next call reached GitHub during the wait")
			}
		})
	}
}

// TestTokenRateLimitIsNotARefusal: a secondary limit while minting the
// installation token is a wait, not a missing permission that would cancel
// the job.
func TestTokenRateLimitIsNotARefusal(t *testing.T) {
	sim := startSim(t)
	r := tinyRepoHandle(t, newClient(t, sim, nil))
	sim.InjectFault(githubtest.Fault{Kind: githubtest.FaultSecondaryLimit, Target: githubtest.KindToken, NoRetryAfter: true})
	_, err := r.GetPull(testCtx(t), tinyPR)
	var rl *ghclient.RateLimitedError
	if !errors.As(err, &rl) || errors.Is(err, ghclient.ErrNoPermission) || rl.Wait < time.Minute {
		t.Fatalf("err = %v, want a RateLimitedError of at least a minute", err)
	}
	if n := len(sim.APICalls()); n != 0 {
		t.Errorf("%d API calls without a token", n)
	}
}

// TestWritesArePaced: an installation's content-creating requests are
// spaced by WriteInterval; its reads are not.
func TestWritesArePaced(t *testing.T) {
	sim := startSim(t)
	const interval = 300 * time.Millisecond
	r := tinyRepoHandle(t, newClient(t, sim, func(c *ghclient.Config) { c.WriteInterval = interval }))
	ctx := testCtx(t)
	start := time.Now()
	for range 4 {
		if _, err := r.GetPull(ctx, tinyPR); err != nil {
			t.Fatal(err)
		}
	}
	if took := time.Since(start); took >= interval {
		t.Errorf("four reads took %s", took)
	}
	start = time.Now()
	for range 3 {
		if _, err := r.CreateComment(ctx, tinyPR, "hello"); err != nil {
			t.Fatal(err)
		}
	}
	if took := time.Since(start); took < 2*interval {
		t.Errorf("three writes took %s, want at least %s", took, 2*interval)
	}
}

// TestAppSecondaryLimitWithoutRetryAfter: calls as the app (its JWT) get
// the same minute, not the primary window's reset.
func TestAppSecondaryLimitWithoutRetryAfter(t *testing.T) {
	sim := startSim(t)
	c := newClient(t, sim, nil)
	sim.InjectFault(githubtest.Fault{Kind: githubtest.FaultSecondaryLimit, NoRetryAfter: true, Path: "/app"})
	_, err := c.BotLogin(testCtx(t))
	var rl *ghclient.RateLimitedError
	if !errors.As(err, &rl) || rl.Wait < time.Minute || rl.Wait > 2*time.Minute {
		t.Fatalf("err = %v, want a RateLimitedError of a minute or a little more", err)
	}
}

// TestTokenRefusalSaysWhy: a 403 on minting the token that is not a rate
// limit is a refusal, and the error carries GitHub's message, which the
// delivery records.
func TestTokenRefusalSaysWhy(t *testing.T) {
	sim := startSim(t)
	r := tinyRepoHandle(t, newClient(t, sim, nil))
	sim.InjectFault(githubtest.Fault{Kind: githubtest.FaultNoPermission, Target: githubtest.KindToken})
	_, err := r.GetPull(testCtx(t), tinyPR)
	if !errors.Is(err, ghclient.ErrNoPermission) || errors.Is(err, ghclient.ErrRateLimited) || !strings.Contains(err.Error(), "Resource not accessible by integration") {
		t.Fatalf("err = %v, want a refusal with GitHub's message", err)
	}
}

// TestSecondaryLimitStaysWithItsInstallation: one installation's
// secondary limit holds back its own calls only.
func TestSecondaryLimitStaysWithItsInstallation(t *testing.T) {
	sim, err := githubtest.Start(githubtest.Options{Scenarios: []string{filepath.Join("..", "githubtest", "testdata", "tiny"),
		filepath.Join("..", "..", "causal", "diagnosis", "testdata", "scenarios", "rs-go-gotestsum-flake")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	c := newClient(t, sim, nil)
	limited := tinyRepoHandle(t, c)
	other, err := c.Repo(40871204, "orbit-works/cronkeeper")
	if err != nil {
		t.Fatal(err)
	}
	sim.InjectFault(githubtest.Fault{Kind: githubtest.FaultSecondaryLimit, NoRetryAfter: true, Path: "/repos/acme/widget/pulls/*"})
	ctx := testCtx(t)
	var rl *ghclient.RateLimitedError
	if _, err := limited.GetPull(ctx, tinyPR); !errors.As(err, &rl) {
		t.Fatalf("limited installation: %v", err)
	}
	if _, err := limited.GetPull(ctx, tinyPR); !errors.As(err, &rl) {
		t.Fatalf("limited installation's next call: %v, want it held back", err)
	}
	start := time.Now()
	if _, err := other.GetRunState(ctx, 13321952215); err != nil || time.Since(start) > time.Second {
		t.Fatalf("the other installation: %v after %s", err, time.Since(start))
	}
}

// TestRefusalNamesThePermission: a call refused for a missing permission
// says which permission GitHub would have accepted, so that the delivery
// that records it tells the owner what to grant.
func TestRefusalNamesThePermission(t *testing.T) {
	sim, err := githubtest.Start(githubtest.Options{Scenarios: []string{filepath.Join("..", "githubtest", "testdata", "tiny")},
		Permissions: map[string]string{"metadata": "read", "contents": "read", "actions": "read"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	r := tinyRepoHandle(t, newClient(t, sim, nil))
	_, err = r.CreateComment(testCtx(t), tinyPR, "hello")
	accepted, refused := ghclient.MissingPermission(err)
	if !refused || accepted != "issues=write; pull_requests=write" || !strings.Contains(err.Error(), "the app needs issues=write; pull_requests=write") {
		t.Fatalf("err = %v (%q, %v), want a refusal naming issues or pull_requests write", err, accepted, refused)
	}
}

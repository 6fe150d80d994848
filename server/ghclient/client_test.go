package ghclient_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/server/githubtest"
)

// Facts of the simulator's testdata/tiny scenario, read in place.
const (
	tinyRepo     = "acme/widget"
	tinyInst     = int64(77)
	tinyWorkflow = int64(500)
	tinyTrigger  = int64(9005)
	tinyFailJob  = int64(19005)
	tinyPR       = 12
)

func startSim(t *testing.T) *githubtest.Server {
	t.Helper()
	sim, err := githubtest.Start(githubtest.Options{Scenarios: []string{filepath.Join("..", "githubtest", "testdata", "tiny")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	return sim
}

func newClient(t *testing.T, sim *githubtest.Server, tune func(*ghclient.Config)) *ghclient.Client {
	t.Helper()
	cfg := ghclient.Config{AppID: sim.AppID(), PrivateKey: sim.PrivateKeyPEM(), BaseURL: sim.APIURL(),
		Timeout: 2 * time.Second, MaxWait: 5 * time.Second}
	if tune != nil {
		tune(&cfg)
	}
	c, err := ghclient.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func tinyRepoHandle(t *testing.T, c *ghclient.Client) *ghclient.Repo {
	t.Helper()
	r, err := c.Repo(tinyInst, tinyRepo)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestOneTokenManyCalls checks that an installation's token is exchanged
// once and reused, and that the context's Counter tells the kinds apart.
func TestOneTokenManyCalls(t *testing.T) {
	sim := startSim(t)
	c := newClient(t, sim, nil)
	ctx, counter := ghclient.WithCounter(testCtx(t))
	r := tinyRepoHandle(t, c)
	page, err := r.ListRuns(ctx, ghclient.RunsQuery{WorkflowID: tinyWorkflow, Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Runs) == 0 || page.ETag == "" {
		t.Fatalf("runs page: %d runs, etag %q", len(page.Runs), page.ETag)
	}
	jobs, err := r.ListJobs(ctx, tinyTrigger, 1)
	if err != nil || len(jobs) == 0 {
		t.Fatalf("jobs: %v (%d)", err, len(jobs))
	}
	var log bytes.Buffer
	if _, err := r.DownloadLog(ctx, tinyFailJob, &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "##[error]") {
		t.Fatalf("log has no error line: %.200q", log.String())
	}
	// Another handle on the same installation shares the token.
	if _, err := tinyRepoHandle(t, c).GetPull(ctx, tinyPR); err != nil {
		t.Fatal(err)
	}
	got := counter.Calls()
	if got != (ghclient.Calls{API: 4, Token: 1, Blob: 1}) {
		t.Fatalf("calls = %+v, want 4 API calls, 1 token exchange, 1 blob download", got)
	}
	tokens := 0
	for _, call := range sim.Calls() {
		if call.Kind == githubtest.KindToken {
			tokens++
		}
	}
	if tokens != 1 {
		t.Fatalf("simulator saw %d token exchanges, want 1", tokens)
	}
	bot, err := c.BotLogin(ctx)
	if err != nil || bot != "polylane[bot]" {
		t.Fatalf("bot login = %q, %v", bot, err)
	}
}

// TestConditionalListing lists a page twice: the second answer is a 304
// served from the caller's cache.
func TestConditionalListing(t *testing.T) {
	sim := startSim(t)
	r := tinyRepoHandle(t, newClient(t, sim, nil))
	ctx := testCtx(t)
	first, err := r.ListRuns(ctx, ghclient.RunsQuery{WorkflowID: tinyWorkflow})
	if err != nil {
		t.Fatal(err)
	}
	again, err := r.ListRuns(ctx, ghclient.RunsQuery{WorkflowID: tinyWorkflow, ETag: first.ETag})
	if err != nil {
		t.Fatal(err)
	}
	if !again.NotModified || len(again.Runs) != 0 || again.ETag != first.ETag {
		t.Fatalf("second listing: %+v, want not modified", again)
	}
	calls := sim.APICalls()
	if last := calls[len(calls)-1]; last.Status != 304 {
		t.Fatalf("last call answered %d, want 304", last.Status)
	}
	changed, err := r.ListRuns(ctx, ghclient.RunsQuery{WorkflowID: tinyWorkflow, ETag: `"stale"`})
	if err != nil || changed.NotModified || len(changed.Runs) != len(first.Runs) {
		t.Fatalf("listing with a stale validator: %v %+v", err, changed.NotModified)
	}
}

// TestConditionalListingAfterTokenRotation: GitHub's ETags are specific
// to the token, so a validator stored before the installation's token
// rotated costs a full, rate-counted listing; the page is still right, and
// its new ETag serves the new token.
func TestConditionalListingAfterTokenRotation(t *testing.T) {
	sim := startSim(t)
	c := newClient(t, sim, nil)
	ctx := testCtx(t)
	first, err := tinyRepoHandle(t, c).ListRuns(ctx, ghclient.RunsQuery{WorkflowID: tinyWorkflow})
	if err != nil {
		t.Fatal(err)
	}
	c.ForgetInstallation(tinyInst) // the next call mints a new token
	r := tinyRepoHandle(t, c)
	again, err := r.ListRuns(ctx, ghclient.RunsQuery{WorkflowID: tinyWorkflow, ETag: first.ETag})
	if err != nil || again.NotModified || len(again.Runs) != len(first.Runs) || again.ETag == first.ETag {
		t.Fatalf("listing under a new token: %v, not modified %v, %d runs, same ETag %v", err, again.NotModified, len(again.Runs), again.ETag == first.ETag)
	}
	third, err := r.ListRuns(ctx, ghclient.RunsQuery{WorkflowID: tinyWorkflow, ETag: again.ETag})
	if err != nil || !third.NotModified {
		t.Fatalf("listing with the new token's ETag: %v, not modified %v", err, third.NotModified)
	}
	var counted int
	for _, call := range sim.APICalls() {
		if call.Status == 200 {
			counted++
		}
	}
	if counted != 2 {
		t.Errorf("%d full listings, want 2 (the first, and the one after the token rotated)", counted)
	}
}

func TestTypedErrors(t *testing.T) {
	sim := startSim(t)
	c := newClient(t, sim, nil)
	r := tinyRepoHandle(t, c)
	ctx := testCtx(t)
	if err := sim.ExpireJobLogs(tinyRepo, tinyFailJob); err != nil {
		t.Fatal(err)
	}
	_, err := r.DownloadLog(ctx, tinyFailJob, &bytes.Buffer{})
	if !errors.Is(err, ghclient.ErrLogsExpired) {
		t.Fatalf("expired log: %v", err)
	}
	if _, err := r.GetPull(ctx, 9999); !errors.Is(err, ghclient.ErrNotFound) {
		t.Fatalf("missing pull request: %v", err)
	}
	other, err := c.Repo(tinyInst, "acme/not-installed")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.ListJobs(ctx, 1, 1); !errors.Is(err, ghclient.ErrNotFound) {
		t.Fatalf("repository outside the installation: %v", err)
	}
	if err := r.CreateBranch(ctx, "main", strings.Repeat("a", 40)); !errors.Is(err, ghclient.ErrUnprocessable) {
		t.Fatalf("creating an existing branch: %v", err)
	}
	if _, err := c.Repo(tinyInst, "no-slash"); err == nil {
		t.Fatal("a repository name without owner was accepted")
	}
}

// TestLogLimit refuses a log above the download limit.
func TestLogLimit(t *testing.T) {
	sim := startSim(t)
	r := tinyRepoHandle(t, newClient(t, sim, func(c *ghclient.Config) { c.LogLimit = 100 }))
	_, err := r.DownloadLog(testCtx(t), tinyFailJob, &bytes.Buffer{})
	if !errors.Is(err, ghclient.ErrLogTooLarge) {
		t.Fatalf("large log: %v", err)
	}
}

func TestPagination(t *testing.T) {
	sim := startSim(t)
	for i := range 130 {
		if _, err := sim.AddIssueComment(tinyRepo, tinyPR, "octocat", "comment "+strings.Repeat("x", i%3)); err != nil {
			t.Fatal(err)
		}
	}
	r := tinyRepoHandle(t, newClient(t, sim, nil))
	comments, err := r.ListComments(testCtx(t), tinyPR)
	if err != nil {
		t.Fatal(err)
	}
	if len(comments) != 130 || comments[0].User != "octocat" {
		t.Fatalf("%d comments listed, want 130", len(comments))
	}
}

func TestNewNeedsCredentials(t *testing.T) {
	cases := []ghclient.Config{
		{},
		{AppID: 1},
		{AppID: 1, PrivateKey: []byte("not a key")},
		{AppID: 1, PrivateKey: startSim(t).PrivateKeyPEM(), BaseURL: "ftp://x"},
	}
	for i, cfg := range cases {
		if _, err := ghclient.New(cfg); err == nil {
			t.Errorf("case %d: New accepted %+v", i, cfg.BaseURL)
		}
	}
}

// TestLogErrorsHideTheSignedAddress fails a log download midway: the error
// names the blob host but not the address's signed query.
func TestLogErrorsHideTheSignedAddress(t *testing.T) {
	sim := startSim(t)
	r := tinyRepoHandle(t, newClient(t, sim, func(c *ghclient.Config) { c.Retries = -1 }))
	// Every download is reset (net/http repeats an idempotent request once
	// on its own).
	sim.InjectFault(githubtest.Fault{Kind: githubtest.FaultReset, Target: githubtest.KindBlob, Times: -1})
	_, err := r.DownloadLog(testCtx(t), tinyFailJob, &bytes.Buffer{})
	if err == nil {
		t.Fatal("a reset download succeeded")
	}
	if strings.Contains(err.Error(), "?") || !strings.Contains(err.Error(), "/_blob/") {
		t.Fatalf("error %q shows the signed query or no address", err)
	}
}

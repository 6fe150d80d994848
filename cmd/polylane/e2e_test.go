package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/polylane/polylane/analysis/gha"

	"github.com/polylane/polylane/analysis/scenario"
	"github.com/polylane/polylane/analysis/scenario/scenariotest"
	"github.com/polylane/polylane/causal/diagnosis"
	"github.com/polylane/polylane/causal/patch"
	"github.com/polylane/polylane/server/githubtest"
	"github.com/polylane/polylane/store"
)

// sharedScenarioDir returns the shared scenario name, read in place; it
// skips when absent (fails when CI=true).
func sharedScenarioDir(t testing.TB, name string) string {
	t.Helper()
	return filepath.Dir(scenariotest.Path(t, "scenarios", name, "scenario.json"))
}

// appUnderTest is serve running in this process against a simulator.
type appUnderTest struct {
	sim  *githubtest.Server
	st   store.Store
	url  string
	logs *lockedBuffer
	sc   *scenario.Scenario
	repo string
}

// startApp configures serve through the settings table, as a user would,
// and runs it in-process on a free port.
func startApp(t testing.TB, dir, databaseURL string) *appUnderTest {
	t.Helper()
	return startAppWith(t, dir, databaseURL, map[string]string{"POLYLANE_LOG_LEVEL": "info"})
}

// startAppWith runs serve in-process against a simulator of dir, with
// extra settings on top of the GitHub App's.
func startAppWith(t testing.TB, dir, databaseURL string, extra map[string]string) *appUnderTest {
	t.Helper()
	sim, err := githubtest.Start(githubtest.Options{Scenarios: []string{dir}, TreeAtRunHeads: true, RerunCreatesAttempt: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	sc, err := scenario.Load(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{
		"POLYLANE_DATABASE_URL": databaseURL, "POLYLANE_WEBHOOK_SECRET": sim.WebhookSecret(),
		"POLYLANE_GITHUB_APP_ID": strconv.FormatInt(sim.AppID(), 10), "POLYLANE_GITHUB_PRIVATE_KEY": string(sim.PrivateKeyPEM()),
		"POLYLANE_GITHUB_API_URL": sim.APIURL(), "POLYLANE_ADDR": ln.Addr().String(), "POLYLANE_SHUTDOWN_TIMEOUT": "5s",
	}
	maps.Copy(vars, extra)
	cfg, err := loadConfig(cmdServe, "", nil, func(k string) string { return vars[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	log := newLogger(cfg, logs)
	ctx, cancel := context.WithCancel(context.Background())
	st, err := openStore(ctx, cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- serve(ctx, cfg, log, st, ln, nil) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		_ = st.Close()
		if t.Failed() {
			t.Logf("server logs:\n%s", logs.String())
		}
	})
	app := &appUnderTest{sim: sim, st: st, url: "http://" + ln.Addr().String(), logs: logs, sc: sc, repo: sc.Repository.FullName}
	app.waitFor(t, 30*time.Second, "ready", func() bool {
		resp, err := http.Get(app.url + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return app
}

// waitFor polls cond until it holds or the bound passes.
func (a *appUnderTest) waitFor(t testing.TB, bound time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	return waitUntil(t, bound, what, cond)
}

// idle reports an empty queue: nothing available, scheduled, retryable or
// running.
func (a *appUnderTest) idle() bool {
	st, err := a.st.QueueStats(context.Background())
	if err != nil {
		return false
	}
	return st.Depth()+st.Jobs["running"]+st.Jobs["pending"] == 0
}

func (a *appUnderTest) deliver(t testing.TB, runID int64) githubtest.Delivery {
	t.Helper()
	ev, err := a.sim.WorkflowRunEvent(a.repo, runID)
	if err != nil {
		t.Fatal(err)
	}
	d, err := a.sim.Deliver(context.Background(), a.url+WebhookPath, ev)
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != http.StatusAccepted {
		t.Fatalf("delivery of run %d answered %d: %s", runID, d.Status, d.Response)
	}
	return d
}

func (a *appUnderTest) bot() string { return a.sim.AppSlug() + "[bot]" }

func (a *appUnderTest) botPulls() []githubtest.PullRequest {
	var out []githubtest.PullRequest
	for _, p := range a.sim.PullRequests(a.repo) {
		if p.User == a.bot() {
			out = append(out, p)
		}
	}
	return out
}

func (a *appUnderTest) botComments(number int) []githubtest.IssueComment {
	var out []githubtest.IssueComment
	for _, c := range a.sim.Comments(a.repo, number) {
		if c.User == a.bot() {
			out = append(out, c)
		}
	}
	return out
}

// TestGitHubAppEndToEnd runs the whole loop on SQLite and PostgreSQL with
// the simulator serving the karmada-rollout scenario: a signed delivery of
// the default-branch failure gives one fix pull request (its diff touches
// Taskfile.yaml and applies) with one assessment comment within 10 s; the
// same delivery again writes nothing; a pull-request failure gives one
// sticky comment that a second attempt updates in place.
func TestGitHubAppEndToEnd(t *testing.T) {
	dir := sharedScenarioDir(t, "karmada-rollout")
	for _, b := range e2eBackends() {
		t.Run(b.name, func(t *testing.T) {
			app := startApp(t, dir, b.url(t))
			d := app.deliver(t, app.sc.TriggerRunID)
			took := app.waitFor(t, 10*time.Second, "fix pull request with its comment", func() bool {
				pulls := app.botPulls()
				return len(pulls) > 0 && len(app.botComments(pulls[0].Number)) > 0 && app.idle()
			})
			t.Logf("%s: fix pull request and comment %s after the delivery", b.name, took.Round(time.Millisecond))
			checkDefaultBranchFix(t, app, d)

			writes := len(app.sim.Writes())
			again, err := app.sim.Redeliver(context.Background(), d)
			if err != nil || again.Status != http.StatusOK {
				t.Fatalf("redelivery: %v %d", err, again.Status)
			}
			time.Sleep(1500 * time.Millisecond)
			if n := len(app.sim.Writes()); n != writes || !app.idle() {
				t.Fatalf("the redelivery caused %d writes to GitHub (queue idle %v)", n-writes, app.idle())
			}

			checkPullRequestFailure(t, app)
		})
	}
}

// checkDefaultBranchFix asserts the state after the default-branch failure.
func checkDefaultBranchFix(t *testing.T, app *appUnderTest, d githubtest.Delivery) {
	t.Helper()
	ctx := context.Background()
	pulls := app.botPulls()
	if len(pulls) != 1 || !strings.HasPrefix(pulls[0].Head, "polylane/fix-") {
		t.Fatalf("fix pull requests: %+v", pulls)
	}
	rec, err := app.st.GetDiagnosis(ctx, store.RunKey{RepositoryID: app.sc.Repository.ID, RunID: app.sc.TriggerRunID, Attempt: 1})
	if err != nil {
		t.Fatal(err)
	}
	var doc diagnosis.Diagnosis
	if err := json.Unmarshal(rec.Document, &doc); err != nil || doc.Patch == nil {
		t.Fatalf("stored diagnosis: %v (patch %v)", err, doc.Patch != nil)
	}
	main, err := app.sim.FilesAt(app.repo, pulls[0].Base)
	if err != nil {
		t.Fatal(err)
	}
	fix, err := app.sim.FilesAt(app.repo, pulls[0].Head)
	if err != nil {
		t.Fatal(err)
	}
	var changed []string
	for p := range fix {
		if !bytes.Equal(fix[p], main[p]) {
			changed = append(changed, p)
		}
	}
	if len(changed) != 1 || changed[0] != "Taskfile.yaml" {
		t.Fatalf("the fix branch changes %v, want Taskfile.yaml", changed)
	}
	files, err := patch.Files(doc.Patch.Diff)
	if err != nil || len(files) != 1 {
		t.Fatalf("patch files: %v %d", err, len(files))
	}
	applied, err := patch.Apply(main["Taskfile.yaml"], files[0].Diff)
	if err != nil || !bytes.Equal(applied, fix["Taskfile.yaml"]) {
		t.Fatalf("the patch does not apply to the default branch as committed: %v", err)
	}
	if comments := app.botComments(pulls[0].Number); len(comments) != 1 || !strings.HasPrefix(comments[0].Body, "<!-- polylane:assessment") {
		t.Fatalf("%d assessment comments on the fix pull request, want 1", len(comments))
	}
	del, err := app.st.GetDelivery(ctx, d.GUID)
	if err != nil || del.State != store.DeliveryDone {
		t.Fatalf("delivery: %v %s %q", err, del.State, del.Error)
	}
}

// pullRequestFailure picks a failed pull_request run of the scenario that
// lists its pull request.
func pullRequestFailure(t *testing.T, app *appUnderTest) (gha.Run, int) {
	t.Helper()
	for _, r := range app.sc.Runs {
		if r.Event == "pull_request" && r.Failed() && r.Conclusion == "failure" {
			for _, pr := range r.PullRequests {
				if pr.Base.Repo.ID == app.sc.Repository.ID {
					return r, pr.Number
				}
			}
		}
	}
	t.Skip("the scenario has no failed pull-request run")
	return gha.Run{}, 0
}

// checkPullRequestFailure delivers a pull-request failure, then a second
// attempt of it: one sticky comment, edited in place.
func checkPullRequestFailure(t *testing.T, app *appUnderTest) {
	t.Helper()
	run, number := pullRequestFailure(t, app)
	app.deliver(t, run.ID)
	app.waitFor(t, 10*time.Second, "sticky comment on the pull request", func() bool {
		return len(app.botComments(number)) > 0 && app.idle()
	})
	first := app.botComments(number)
	if len(first) != 1 || !strings.Contains(first[0].Body, fmt.Sprintf("run=%d attempt=1", run.ID)) {
		t.Fatalf("comments on #%d after the first attempt: %d", number, len(first))
	}
	if _, err := app.sim.AddRunAttempt(app.repo, run.ID, "failure"); err != nil {
		t.Fatal(err)
	}
	app.deliver(t, run.ID)
	app.waitFor(t, 10*time.Second, "sticky comment updated by the second attempt", func() bool {
		c := app.botComments(number)
		return len(c) > 0 && strings.Contains(c[len(c)-1].Body, fmt.Sprintf("run=%d attempt=2", run.ID)) && app.idle()
	})
	after := app.botComments(number)
	if len(after) != 1 || after[0].ID != first[0].ID {
		t.Fatalf("after the second attempt #%d has %d Polylane comments (first id %d)", number, len(after), first[0].ID)
	}
}

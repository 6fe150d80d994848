package worker

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polylane/polylane/server/jobs"

	"github.com/rs/zerolog"

	"github.com/polylane/polylane/analysis/scenario"
	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/server/githubtest"
	"github.com/polylane/polylane/server/webhook"
	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/store/storetest"
)

// sharedScenario returns a scenario directory of ../shared/scenarios, read
// in place; it skips when the shared directory is absent (fails when
// CI=true).
func sharedScenario(t testing.TB, name string) string {
	t.Helper()
	root := os.Getenv("POLYLANE_SHARED_DIR")
	if root == "" {
		root = filepath.Join("..", "..", "..", "shared")
	}
	dir := filepath.Join(root, "scenarios", name)
	if _, err := os.Stat(filepath.Join(dir, "scenario.json")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("scenario %s not found (set POLYLANE_SHARED_DIR): %v", name, err)
		}
		t.Skipf("scenario %s not found at %s (set POLYLANE_SHARED_DIR)", name, dir)
	}
	return dir
}

// rig is a worker on a real store, talking to a GitHub simulator that
// serves one scenario.
type rig struct {
	sim  *githubtest.Server
	st   store.Store
	w    *Worker
	gh   *ghclient.Client
	hook http.Handler
	sc   *scenario.Scenario
	repo string
}

func newRig(t testing.TB, b storetest.Backend, dir string) *rig {
	t.Helper()
	return newRigWith(t, b, dir, githubtest.Options{})
}

// newRigWith is newRig with simulator options (its scenarios are dir).
func newRigWith(t testing.TB, b storetest.Backend, dir string, opts githubtest.Options) *rig {
	t.Helper()
	opts.Scenarios, opts.TreeAtRunHeads = []string{dir}, true
	sim, err := githubtest.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	sc, err := scenario.Load(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	st := b.Open(t)
	gh, err := ghclient.New(ghclient.Config{AppID: sim.AppID(), PrivateKey: sim.PrivateKeyPEM(), BaseURL: sim.APIURL(),
		Timeout: 5 * time.Second, MaxWait: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	w := &Worker{opts: Options{Store: st, GitHub: gh, WindowSize: 100, Publish: true, JobTimeout: time.Minute, MaxBlobs: 400},
		st: st, gh: gh, log: zerolog.Nop()}
	hook, err := webhook.New(webhook.Options{Secret: sim.WebhookSecret(), Store: st})
	if err != nil {
		t.Fatal(err)
	}
	return &rig{sim: sim, st: st, w: w, gh: gh, hook: hook, sc: sc, repo: sc.Repository.FullName}
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// deliver sends the run's workflow_run delivery through the webhook
// handler (which records it) and returns the diagnose job's arguments.
func (r *rig) deliver(t testing.TB, runID int64) jobs.DiagnoseArgs {
	t.Helper()
	ev, err := r.sim.WorkflowRunEvent(r.repo, runID)
	if err != nil {
		t.Fatal(err)
	}
	p, err := parseRunPayload(ev.Payload)
	if err != nil {
		t.Fatal(err)
	}
	guid := "guid-" + strings.ReplaceAll(time.Now().Format("150405.000000000"), ".", "")
	req := httptest.NewRequest(http.MethodPost, "/webhooks/github", strings.NewReader(string(ev.Payload)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(webhook.HeaderEvent, ev.Name)
	req.Header.Set(webhook.HeaderDelivery, guid)
	req.Header.Set(webhook.HeaderSignature, r.sim.Sign(ev.Payload))
	rec := httptest.NewRecorder()
	r.hook.ServeHTTP(rec, req)
	if rec.Code != http.StatusAccepted {
		t.Fatalf("delivery of run %d answered %d: %s", runID, rec.Code, rec.Body.String())
	}
	return jobs.DiagnoseArgs{DeliveryGUID: guid, InstallationID: r.sc.InstallationID, RepositoryID: p.Repository.ID,
		RunID: runID, Attempt: p.Run.RunAttempt}
}

// callCounts counts the simulator's calls since the last reset, by kind.
func (r *rig) callCounts() ghclient.Calls {
	var c ghclient.Calls
	for _, call := range r.sim.Calls() {
		switch call.Kind {
		case githubtest.KindAPI:
			c.API++
		case githubtest.KindToken:
			c.Token++
		case githubtest.KindBlob:
			c.Blob++
		}
	}
	return c
}

// botPulls lists the pull requests the app opened.
func (r *rig) botPulls() []githubtest.PullRequest {
	var out []githubtest.PullRequest
	for _, p := range r.sim.PullRequests(r.repo) {
		if p.User == r.sim.AppSlug()+"[bot]" {
			out = append(out, p)
		}
	}
	return out
}

// botComments lists the app's comments on an issue or pull request.
func (r *rig) botComments(number int) []githubtest.IssueComment {
	var out []githubtest.IssueComment
	for _, c := range r.sim.Comments(r.repo, number) {
		if c.User == r.sim.AppSlug()+"[bot]" {
			out = append(out, c)
		}
	}
	return out
}

// writes counts the successful write calls since the last reset.
func (r *rig) writes() int {
	n := 0
	for _, w := range r.sim.Writes() {
		if w.Status >= 200 && w.Status < 300 {
			n++
		}
	}
	return n
}

// callBreakdown names the API calls since the last reset by endpoint kind.
func (r *rig) callBreakdown() map[string]int {
	out := map[string]int{}
	for _, call := range r.sim.Calls() {
		kind := string(call.Kind)
		if call.Kind == githubtest.KindAPI {
			switch p := call.Path; {
			case strings.HasSuffix(p, "/runs"):
				kind = "runs"
			case strings.HasSuffix(p, "/jobs"):
				kind = "jobs"
			case strings.HasSuffix(p, "/logs"):
				kind = "log-address"
			case strings.Contains(p, "/git/trees/"):
				kind = "tree"
			case strings.Contains(p, "/git/blobs/"):
				kind = "git-blob"
			case strings.Contains(p, "/compare/"):
				kind = "compare"
			case strings.Contains(p, "/commits/"):
				kind = "commit"
			default:
				kind = "other"
			}
		}
		out[kind]++
	}
	return out
}

package main

import (
	"context"
	"encoding/base64"
	"encoding/pem"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/polylane/polylane/analysis/scenario"
	"github.com/polylane/polylane/server/githubtest"
	"github.com/polylane/polylane/store"
)

// crashScenario is an in-repository scenario: a default-branch failure
// whose diagnosis has a harness patch (so a fix pull request is opened),
// and other failed runs of the same class.
var crashScenario = filepath.Join("..", "..", "causal", "diagnosis", "testdata", "scenarios", "rs-go-gotestsum-flake")

// Crash-test bounds. A job left running by a killed process is rescued
// once it has run longer than crashRescueAfter: both are settings of
// serve, short here so that the test waits seconds, not the default
// quarter of an hour.
const (
	crashJobTimeout  = "10s"
	crashRescueAfter = "11s"
	crashSettle      = 2 * time.Minute
)

// crashRig is a simulator, the database serve runs on, and a handle on
// that database for the test's own reads.
type crashRig struct {
	sim   *githubtest.Server
	sc    *scenario.Scenario
	repo  string
	env   map[string]string
	st    store.Store
	procs []*replica
	// accepted are the GUIDs of the deliveries answered 202.
	accepted []string
}

func newCrashRig(t *testing.T, databaseURL string) *crashRig {
	t.Helper()
	sim, err := githubtest.Start(githubtest.Options{Scenarios: []string{crashScenario}, TreeAtRunHeads: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	sc, err := scenario.Load(os.DirFS(crashScenario))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"POLYLANE_DATABASE_URL": databaseURL, "POLYLANE_WEBHOOK_SECRET": sim.WebhookSecret(),
		"POLYLANE_GITHUB_APP_ID": strconv.FormatInt(sim.AppID(), 10), "POLYLANE_GITHUB_PRIVATE_KEY": string(sim.PrivateKeyPEM()),
		"POLYLANE_GITHUB_API_URL": sim.APIURL(), "POLYLANE_ADDR": "127.0.0.1:0", "POLYLANE_QUEUE_WORKERS": "1",
		"POLYLANE_JOB_TIMEOUT": crashJobTimeout, "POLYLANE_RESCUE_STUCK_JOBS_AFTER": crashRescueAfter,
		"POLYLANE_SHUTDOWN_TIMEOUT": "5s", "POLYLANE_LOG_LEVEL": "debug",
	}
	return &crashRig{sim: sim, sc: sc, repo: sc.Repository.FullName, env: env}
}

// start runs serve in a new process and, the first time, opens the test's
// own handle on its database (migrated by then).
func (g *crashRig) start(t *testing.T) *replica {
	t.Helper()
	r, err := startReplica(t, "serve #"+strconv.Itoa(len(g.procs)+1), g.env)
	if err != nil {
		t.Fatal(err)
	}
	g.procs = append(g.procs, r)
	if g.st == nil {
		cfg, err := loadConfig(cmdServe, "", nil, func(k string) string { return g.env[k] }, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		st, err := openStore(context.Background(), cfg, zerolog.Nop())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		g.st = st
	}
	return r
}

// kill ends a serve process with SIGKILL: no graceful stop, no cleanup.
func (g *crashRig) kill(t *testing.T, r *replica) {
	t.Helper()
	if err := r.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-r.exited
	_ = r.cmd.Wait()
}

// deliver sends a run's signed workflow_run delivery to a serve process.
func (g *crashRig) deliver(t *testing.T, r *replica, runID int64) githubtest.Delivery {
	t.Helper()
	ev, err := g.sim.WorkflowRunEvent(g.repo, runID)
	if err != nil {
		t.Fatal(err)
	}
	d, err := g.sim.Deliver(context.Background(), r.url+WebhookPath, ev)
	if err != nil {
		t.Fatal(err)
	}
	if d.Status == http.StatusAccepted {
		g.accepted = append(g.accepted, d.GUID)
	}
	return d
}

// waitHit waits until a fault holds a call.
func waitHit(t *testing.T, h *githubtest.InjectedFault, what string) {
	t.Helper()
	waitUntil(t, crashSettle, what, func() bool { return h.Hits() > 0 })
}

// settled reports an idle queue and every accepted delivery finished.
func (g *crashRig) settled() bool {
	ctx := context.Background()
	st, err := g.st.QueueStats(ctx)
	if err != nil || st.Depth()+st.Jobs["running"]+st.Jobs["pending"] != 0 {
		return false
	}
	for _, guid := range g.accepted {
		d, err := g.st.GetDelivery(ctx, guid)
		if err != nil || d.State == store.DeliveryQueued || d.State == store.DeliveryProcessing {
			return false
		}
	}
	return true
}

// checkConverged asserts the end state of the default-branch flow after a
// crash: every accepted delivery done, one fix pull request on one fix
// branch with one assessment comment, and no secret in any process's log.
func (g *crashRig) checkConverged(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	for _, guid := range g.accepted {
		d, err := g.st.GetDelivery(ctx, guid)
		if err != nil {
			t.Errorf("accepted delivery %s lost: %v", guid, err)
			continue
		}
		if d.State != store.DeliveryDone {
			t.Errorf("delivery %s ended %s %q", guid, d.State, d.Error)
		}
	}
	bot := g.sim.AppSlug() + "[bot]"
	var fixes []githubtest.PullRequest
	for _, p := range g.sim.PullRequests(g.repo) {
		if p.User == bot {
			fixes = append(fixes, p)
		}
		n := 0
		for _, c := range g.sim.Comments(g.repo, p.Number) {
			if c.User == bot && strings.HasPrefix(c.Body, "<!-- polylane:assessment") {
				n++
			}
		}
		if p.User == bot && n != 1 || n > 1 {
			t.Errorf("%d assessment comments on #%d", n, p.Number)
		}
	}
	if len(fixes) != 1 {
		t.Fatalf("%d fix pull requests, want 1", len(fixes))
	}
	branches := 0
	for ref := range g.sim.Refs(g.repo) {
		if strings.HasPrefix(ref, "refs/heads/polylane/") {
			branches++
		}
	}
	if branches != 1 {
		t.Errorf("%d fix branches, want 1", branches)
	}
	for _, r := range g.procs {
		if leak := logSecret(r.logs.String(), g.sim.WebhookSecret(), g.sim.PrivateKeyPEM()); leak != "" {
			t.Errorf("the log of %s holds %s", r.name, leak)
		}
	}
}

// crashPoint is a call that a simulator fault holds while serve is killed.
type crashPoint struct {
	name   string
	method string
	path   string // path.Match pattern
}

// TestCrashRecovery kills serve with SIGKILL while a GitHub call of the
// diagnosis (a log download) or of the fix pull request (its creation) is
// held by the simulator, with a second delivery queued behind it, then
// starts serve again on the same database (SQLite and PostgreSQL): the
// interrupted job is rescued, both deliveries finish, and the published
// state is the one of an undisturbed run (one fix pull request, one
// branch, one assessment comment).
func TestCrashRecovery(t *testing.T) {
	points := []crashPoint{
		{"diagnosing", http.MethodGet, "/repos/*/*/actions/jobs/*/logs"},
		{"publishing", http.MethodPost, "/repos/*/*/pulls"},
	}
	for _, b := range e2eBackends() {
		for _, p := range points {
			t.Run(b.name+"/"+p.name, func(t *testing.T) {
				t.Parallel()
				g := newCrashRig(t, b.url(t))
				hold := g.sim.InjectFault(githubtest.Fault{Kind: githubtest.FaultTimeout, Method: p.method, Path: p.path})
				first := g.start(t)
				trigger := g.sc.TriggerRunID
				if d := g.deliver(t, first, trigger); d.Status != http.StatusAccepted {
					t.Fatalf("delivery answered %d", d.Status)
				}
				other := otherMainFailure(t, g.sc, trigger)
				if d := g.deliver(t, first, other); d.Status != http.StatusAccepted {
					t.Fatalf("second delivery answered %d", d.Status)
				}
				waitHit(t, hold, p.name+": the held call")
				killed := time.Now()
				g.kill(t, first)
				if g.settled() {
					t.Fatal("the queue looks settled right after the kill: nothing was interrupted")
				}
				g.start(t)
				took := waitUntil(t, crashSettle, "convergence after the restart", g.settled)
				t.Logf("%s: killed while %s; converged %s after the restart (%s after the kill)", b.name, p.name,
					took.Round(time.Millisecond), time.Since(killed).Round(time.Millisecond))
				g.checkConverged(t)
				if n := g.callsLike(p); n < 2 {
					t.Errorf("the held call %s %s was made %d times: the interrupted job did not run again", p.method, p.path, n)
				}
			})
		}
	}
}

// callsLike counts the API calls that match a crash point and got an
// answer.
func (g *crashRig) callsLike(p crashPoint) int {
	n := 0
	for _, c := range g.sim.APICalls() {
		if ok, _ := path.Match(p.path, c.Path); ok && c.Method == p.method {
			n++
		}
	}
	return n
}

// otherMainFailure returns another failed run of the trigger's branch.
func otherMainFailure(t *testing.T, sc *scenario.Scenario, trigger int64) int64 {
	t.Helper()
	trig, _ := sc.Run(trigger)
	for _, r := range sc.Runs {
		if r.ID != trigger && r.Conclusion == "failure" && r.HeadBranch == trig.HeadBranch && r.Event == trig.Event {
			return r.ID
		}
	}
	t.Fatal("the scenario has no other failure on the trigger's branch")
	return 0
}

// tokenInLog matches GitHub tokens and JWTs.
var tokenInLog = regexp.MustCompile(`gh[spuor]_[A-Za-z0-9]{16,}|eyJ[A-Za-z0-9_-]{8,}\.eyJ`)

// logSecret names a secret found in logs, "" for none: the webhook secret,
// a token, or a 24-character piece of the private key.
func logSecret(logs, webhookSecret string, keyPEM []byte) string {
	if webhookSecret != "" && strings.Contains(logs, webhookSecret) {
		return "the webhook secret"
	}
	if m := tokenInLog.FindString(logs); m != "" {
		return "a token (" + m[:4] + "…)"
	}
	if block, _ := pem.Decode(keyPEM); block != nil {
		body := base64.StdEncoding.EncodeToString(block.Bytes)
		for i := 0; i+24 <= len(body); i += 24 {
			if strings.Contains(logs, body[i:i+24]) {
				return "a piece of the private key"
			}
		}
	}
	return ""
}

// TestCrashLoopIsStopped kills serve twice while the same diagnosis runs,
// as input that kills the process would: the third serve does not run the
// job again (a crash-looping job would stop it too) but marks its delivery
// failed with the reason, and logs it.
func TestCrashLoopIsStopped(t *testing.T) {
	const crashesAllowed = 2 // worker.maxCrashes
	for _, b := range e2eBackends() {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			g := newCrashRig(t, b.url(t))
			hold := g.sim.InjectFault(githubtest.Fault{Kind: githubtest.FaultTimeout, Method: http.MethodGet,
				Path: "/repos/*/*/actions/jobs/*/logs", Times: -1})
			r := g.start(t)
			d := g.deliver(t, r, g.sc.TriggerRunID)
			if d.Status != http.StatusAccepted {
				t.Fatalf("delivery answered %d", d.Status)
			}
			for i := 1; i <= crashesAllowed; i++ {
				waitUntil(t, crashSettle, "the diagnosis' log download", func() bool { return hold.Hits() >= i })
				g.kill(t, r)
				r = g.start(t)
			}
			before := hold.Hits()
			ctx := context.Background()
			waitUntil(t, crashSettle, "the delivery marked failed", func() bool {
				del, err := g.st.GetDelivery(ctx, d.GUID)
				return err == nil && del.State == store.DeliveryFailed
			})
			del, _ := g.st.GetDelivery(ctx, d.GUID)
			if !strings.Contains(del.Error, "stopped 2 times") {
				t.Errorf("delivery error %q does not say why", del.Error)
			}
			if n := hold.Hits() - before; n != 0 {
				t.Errorf("the job ran again after %d crashes: %d more log downloads", crashesAllowed, n)
			}
			if !strings.Contains(r.logs.String(), "is not run again") {
				t.Error("the log does not say the job is not run again")
			}
			waitUntil(t, crashSettle, "an idle queue", g.settled)
		})
	}
}

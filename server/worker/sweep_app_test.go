package worker

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/rs/zerolog"

	"github.com/polylane/polylane/analysis/scenario"
	"github.com/polylane/polylane/server"
	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/server/githubtest"
	"github.com/polylane/polylane/server/jobs"
	"github.com/polylane/polylane/server/webhook"
	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/store/sqlite"
)

// Bounds of the sweep's app. They are settings of the GitHub client and the
// queue, chosen short so that a fault costs about a second: one HTTP
// request may take sweepHTTPTimeout (a "timeout" fault costs that much), a
// rate limit is waited out inside the call up to sweepMaxWait, and a job
// runs at most sweepJobTimeout.
const (
	sweepHTTPTimeout = time.Second
	sweepMaxWait     = 3 * time.Second
	sweepRetryAfter  = time.Second
	sweepJobTimeout  = 30 * time.Second
	sweepPoll        = 400 * time.Millisecond
	sweepSettlePoll  = 100 * time.Millisecond
)

// sweepApp is Polylane's GitHub App loop as serve wires it (webhook behind
// the server's middleware, River workers on a SQLite store), against a
// GitHub simulator, with every log line captured and every GitHub API call
// labelled with the job kind (the phase) that made it.
type sweepApp struct {
	sim  *githubtest.Server
	st   store.Store
	path string // the SQLite file
	sc   *scenario.Scenario
	repo string
	logs *logBuffer
	log  zerolog.Logger
	hook *httptest.Server
	tr   *tracer
}

// sweepBase is what every case of a sweep shares: a migrated SQLite
// database to copy (migrating one takes longer than a case) and the app's
// key (generating one is slow too).
type sweepBase struct {
	dir string // the scenario
	db  string
	key *rsa.PrivateKey
}

func newSweepBase(t testing.TB) *sweepBase {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "template.db")
	st, err := sqlite.Open(context.Background(), sqlite.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return &sweepBase{dir: cutScenario(t, sweepSource, sweepKeepRuns), db: path, key: key}
}

// copyDB copies a closed SQLite database (with its WAL, if any) to dir.
func copyDB(t testing.TB, src, dir string) string {
	t.Helper()
	dst := filepath.Join(dir, "polylane.db")
	for _, suffix := range []string{"", "-wal"} {
		data, err := os.ReadFile(src + suffix)
		if suffix != "" && errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst+suffix, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// newSweepApp starts the simulator on a scenario directory, a SQLite store
// copied from db (the migrated template, or a snapshot) whose queue logs
// into the captured logs, and the webhook behind the server's router. The
// worker is started with startWorker.
func newSweepApp(t testing.TB, base *sweepBase, db string) *sweepApp {
	t.Helper()
	sim, err := githubtest.Start(githubtest.Options{Scenarios: []string{base.dir}, TreeAtRunHeads: true, RerunCreatesAttempt: true,
		PrivateKey: base.key})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	sc, err := scenario.Load(os.DirFS(base.dir))
	if err != nil {
		t.Fatal(err)
	}
	logs := &logBuffer{}
	log := zerolog.New(logs).With().Timestamp().Logger()
	queueLog := slog.New(zerolog.NewSlogHandler(log.With().Str("component", "queue").Logger()))
	path := copyDB(t, cmp.Or(db, base.db), t.TempDir())
	st, err := sqlite.Open(context.Background(), sqlite.Options{Path: path, Logger: queueLog})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	hook, err := webhook.New(webhook.Options{Secret: sim.WebhookSecret(), Store: st, FailingConclusions: webhook.AllFailingConclusions})
	if err != nil {
		t.Fatal(err)
	}
	srv := server.New(server.Options{Logger: log, Checker: st})
	srv.Method(http.MethodPost, "/webhooks/github", hook)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	a := &sweepApp{sim: sim, st: st, path: path, sc: sc, repo: sc.Repository.FullName, logs: logs, log: log, hook: hs, tr: newTracer()}
	a.tr.observe(sim)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = st.StopQueue(ctx)
	})
	return a
}

// startWorker starts a fresh worker process as far as Polylane can tell: a
// new GitHub client (no cached token or bot login), new workers and a new
// River client on the same store. publish false stores diagnoses without
// queueing their publication (how the sweep's snapshots are made).
func (a *sweepApp) startWorker(t testing.TB, publish bool) {
	t.Helper()
	gh, err := ghclient.New(ghclient.Config{AppID: a.sim.AppID(), PrivateKey: a.sim.PrivateKeyPEM(), BaseURL: a.sim.APIURL(),
		Timeout: sweepHTTPTimeout, MaxWait: sweepMaxWait, SecondaryWait: sweepRetryAfter})
	if err != nil {
		t.Fatal(err)
	}
	// The workers Register adds, each labelling the calls of its jobs with
	// its phase; a kind without a phase fails the sweep's clean run.
	workers := river.NewWorkers()
	_, err = Register(workers, Options{Store: a.st, GitHub: gh, Logger: a.log, Publish: publish, JobTimeout: sweepJobTimeout,
		Around: func(ctx context.Context, kind string, work func(context.Context) error) error {
			a.tr.enter(sweepPhases[kind])
			defer a.tr.enter("")
			return work(ctx)
		}})
	if err != nil {
		t.Fatal(err)
	}
	// One job at a time: the calls of a flow come in the same order on
	// every run, so that a call index names the same call.
	err = a.st.StartQueue(context.Background(), store.QueueOptions{Workers: workers, MaxWorkers: 1,
		JobTimeout: sweepJobTimeout, RescueAfter: 2 * sweepJobTimeout, PollInterval: sweepPoll, RetryPolicy: quickRetry{}})
	if err != nil {
		t.Fatal(err)
	}
}

// quickRetry retries a failed job after 100 ms, doubling with each error up
// to 2 s: River's default waits 1 s, then 16 s.
type quickRetry struct{}

func (quickRetry) NextRetry(job *rivertype.JobRow) time.Time {
	d := 100 * time.Millisecond << min(len(job.Errors), 5)
	return time.Now().Add(min(d, 2*time.Second))
}

// stopWorker stops the worker at once, as a crash would: running jobs are
// cancelled, and what they did is what the store and GitHub kept.
func (a *sweepApp) stopWorker(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_ = a.st.StopQueue(ctx) // a cancelled context: jobs are cancelled, not awaited
}

// closeStore stops the worker and closes the store, whose file can then be
// copied.
func (a *sweepApp) closeStore(t testing.TB) {
	t.Helper()
	a.stopWorker(t)
	if err := a.st.Close(); err != nil {
		t.Fatal(err)
	}
}

// settle waits until the queue has had nothing to do for two polls in a row.
func (a *sweepApp) settle(t testing.TB, bound time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	quiet := 0
	for quiet < 2 {
		if time.Since(start) > bound {
			t.Fatalf("the queue did not settle within %s", bound)
		}
		time.Sleep(sweepSettlePoll)
		st, err := a.st.QueueStats(context.Background())
		if err == nil && st.Depth()+st.Jobs["running"]+st.Jobs["pending"] == 0 {
			quiet++
		} else {
			quiet = 0
		}
	}
	return time.Since(start)
}

// deliver sends a signed delivery through the webhook and returns it.
func (a *sweepApp) deliver(t testing.TB, ev githubtest.Event) githubtest.Delivery {
	t.Helper()
	d, err := a.sim.Deliver(context.Background(), a.hook.URL+"/webhooks/github", ev)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// sweepPhases names the phase of each job kind in the sweep's case names.
var sweepPhases = map[string]string{jobs.KindDiagnose: "diagnose", jobs.KindPublish: "publish", jobs.KindFix: "fix",
	jobs.KindMention: "mention", jobs.KindPullRequest: "pull-request", jobs.KindLifecycle: "lifecycle"}

// tracer labels each API call the simulator receives with the phase (job
// kind) running at the time.
type tracer struct {
	mu     sync.Mutex
	phase  string
	phases map[int]string // API index -> phase
}

func newTracer() *tracer { return &tracer{phases: map[int]string{}} }

func (tr *tracer) enter(phase string) {
	tr.mu.Lock()
	tr.phase = phase
	tr.mu.Unlock()
}

// observe adds a fault rule that never fires and notes each API call's
// phase.
func (tr *tracer) observe(sim *githubtest.Server) {
	sim.InjectFault(githubtest.Fault{Kind: githubtest.FaultServerError, Times: -1, Match: func(c githubtest.Call) bool {
		tr.mu.Lock()
		tr.phases[c.APIIndex] = tr.phase
		tr.mu.Unlock()
		return false
	}})
}

// reset forgets the labels, with the simulator's recording.
func (tr *tracer) reset() {
	tr.mu.Lock()
	tr.phases = map[int]string{}
	tr.mu.Unlock()
}

func (tr *tracer) phaseOf(apiIndex int) string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.phases[apiIndex]
}

// logBuffer collects log lines from several goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

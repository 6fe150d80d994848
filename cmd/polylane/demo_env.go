package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/polylane/polylane/analysis/gha"

	"github.com/rs/zerolog"

	"github.com/polylane/polylane/analysis/scenario"
	"github.com/polylane/polylane/server/githubtest"
	"github.com/polylane/polylane/server/githubtest/demoscenario"
)

// runDemoServer is the demo's one call into serve: it opens the store the
// configuration names and serves on ln until ctx ends, as `polylane serve`
// does after parsing its settings.
func runDemoServer(ctx context.Context, cfg *Config, log zerolog.Logger, ln net.Listener) error {
	st, err := openStore(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer func() { _ = st.Close() }()
	return serve(ctx, cfg, log, st, ln, nil)
}

// demoUser is the GitHub user the simulator signs in to the dashboard.
const demoUser = "octocat"

// demoEnv is a running demo: the simulator, the server and the temporary
// directory that holds the database, the log and the app's key.
type demoEnv struct {
	dir     string
	keep    bool
	timeout time.Duration

	sim     *githubtest.Server
	repo    string
	trig    gha.Run
	mainRun int // runs on the default branch, for the banner
	// prRun is the newest failed pull-request run of the history, which
	// the demo also diagnoses to show whether it is the pull request's own.
	prRun *gha.Run

	url        string // Polylane's base URL, http://host:port
	logPath    string
	logFile    *os.File
	cancel     context.CancelFunc
	serverDone chan error
	stopped    bool
}

// startDemo loads the example scenario, starts the simulator and the
// server, and waits until the server is ready. On error the returned env,
// when not nil, holds what was started so far.
func startDemo(ctx context.Context, f *demoFlags, run demoServerFunc, out io.Writer) (*demoEnv, error) {
	// The example's history is moved to end yesterday, so that the
	// dashboard's 30-day charts show all of it.
	history := demoscenario.RecentFS(time.Now())
	s, err := scenario.Load(history)
	if err != nil {
		return nil, fmt.Errorf("load the example scenario: %w", err)
	}
	dir, err := os.MkdirTemp("", "polylane-demo-")
	if err != nil {
		return nil, fmt.Errorf("create a temporary directory: %w", err)
	}
	env := &demoEnv{dir: dir, keep: f.keep, timeout: f.timeout, repo: s.Repository.FullName, serverDone: make(chan error, 1)}
	env.trig, _ = s.Run(s.TriggerRunID)
	for _, r := range s.Runs {
		if strings.HasPrefix(r.Event, "pull_request") && r.Conclusion == "failure" && len(r.PullRequests) > 0 &&
			(env.prRun == nil || r.CreatedAt.After(env.prRun.CreatedAt)) {
			env.prRun = &r
		}
		if gha.OnDefaultBranch(r, gha.Repository{ID: s.Repository.ID, FullName: s.Repository.FullName}, s.Repository.DefaultBranch) {
			env.mainRun++
		}
	}
	cfg, err := env.startSimulator(f, history)
	if err != nil {
		return env, err
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return env, &demoUsageError{fmt.Errorf("--addr %s: %w", f.addr, err)}
	}
	env.url = "http://" + ln.Addr().String()
	if err := env.startServer(ctx, cfg, run, ln); err != nil {
		return env, err
	}
	return env, nil
}

// startSimulator serves the example scenario's history with fresh
// credentials and returns the server's configuration pointing at it.
func (e *demoEnv) startSimulator(f *demoFlags, history fs.FS) (map[string]string, error) {
	secret, err := randomHex(24)
	if err != nil {
		return nil, err
	}
	sim, err := githubtest.New(githubtest.Options{ScenarioFS: []fs.FS{history}, Addr: f.simAddr,
		WebhookSecret: secret, TreeAtRunHeads: true, OAuthUser: demoUser})
	if err != nil {
		return nil, fmt.Errorf("start the GitHub simulator: %w", err)
	}
	if err := sim.Listen(); err != nil {
		return nil, &demoUsageError{fmt.Errorf("--simulator-addr %s: %w", f.simAddr, err)}
	}
	e.sim = sim
	keyPath, err := writePrivateKey(filepath.Join(e.dir, "app.pem"), sim.AppID(), sim.PrivateKeyPEM())
	if err != nil {
		return nil, err
	}
	// Only these settings: a demo never reads the caller's POLYLANE_*
	// variables, which could point at a real database or GitHub.
	return map[string]string{
		"POLYLANE_DATABASE_URL":            "sqlite://" + filepath.Join(e.dir, "polylane.db"),
		"POLYLANE_WEBHOOK_SECRET":          secret,
		"POLYLANE_GITHUB_APP_ID":           strconv.FormatInt(sim.AppID(), 10),
		"POLYLANE_GITHUB_PRIVATE_KEY_FILE": keyPath,
		"POLYLANE_GITHUB_API_URL":          sim.APIURL(),
		"POLYLANE_GITHUB_CLIENT_ID":        sim.ClientID(),
		"POLYLANE_GITHUB_CLIENT_SECRET":    sim.ClientSecret(),
		"POLYLANE_GITHUB_WEB_URL":          sim.URL(),
		// The demo serves plain HTTP on loopback.
		"POLYLANE_DASHBOARD_INSECURE_COOKIES": "true",
		"POLYLANE_LOG_FORMAT":                 "console",
		"POLYLANE_LOG_LEVEL":                  "info",
		"POLYLANE_SHUTDOWN_TIMEOUT":           "5s",
	}, nil
}

// startServer builds serve's configuration through the settings table,
// starts the server with its log in the temporary directory and waits for
// /readyz.
func (e *demoEnv) startServer(ctx context.Context, vars map[string]string, run demoServerFunc, ln net.Listener) error {
	vars["POLYLANE_ADDR"] = ln.Addr().String()
	vars["POLYLANE_DASHBOARD_URL"] = e.url
	cfg, err := loadConfig(cmdServe, "", nil, func(k string) string { return vars[k] }, io.Discard)
	if err != nil {
		_ = ln.Close()
		return fmt.Errorf("configure the server: %w", err)
	}
	e.logPath = filepath.Join(e.dir, "polylane.log")
	e.logFile, err = os.OpenFile(e.logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		_ = ln.Close()
		return fmt.Errorf("create the server's log: %w", err)
	}
	srvCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	e.cancel = cancel
	log := newLogger(cfg, e.logFile)
	go func() {
		defer ln.Close()
		e.serverDone <- run(srvCtx, cfg, log, ln)
	}()
	return e.waitReady(ctx)
}

// waitReady polls /readyz until it answers 200, the server exits or the
// timeout passes.
func (e *demoEnv) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(e.timeout)
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.url+"/readyz", nil)
		if err != nil {
			return fmt.Errorf("check readiness: %w", err)
		}
		if resp, err := client.Do(req); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case err := <-e.serverDone:
			e.serverDone <- err
			return fmt.Errorf("the server stopped while starting: %w (log: %s)", orStopped(err), e.logPath)
		case <-ctx.Done():
			return errors.New("interrupted while the server was starting")
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server was not ready within %s (GET /readyz; log: %s)", e.timeout, e.logPath)
		}
	}
}

func orStopped(err error) error {
	if err == nil {
		return errors.New("it exited without an error")
	}
	return err
}

// stop shuts the server and the simulator down and removes the temporary
// directory unless it is kept. It is safe to call twice.
func (e *demoEnv) stop(out io.Writer) {
	if e.stopped {
		return
	}
	e.stopped = true
	if e.cancel != nil {
		e.cancel()
		select {
		case <-e.serverDone:
		case <-time.After(10 * time.Second):
		}
	}
	if e.sim != nil {
		e.sim.Close()
	}
	if e.logFile != nil {
		_ = e.logFile.Close()
	}
	if e.keep {
		fmt.Fprintf(out, "Kept %s (polylane.db, polylane.log, app.pem).\n", e.dir)
		return
	}
	_ = os.RemoveAll(e.dir)
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random secret: %w", err)
	}
	return hex.EncodeToString(b), nil
}

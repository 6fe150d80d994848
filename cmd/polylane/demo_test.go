package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v66/github"
	"github.com/rs/zerolog"
)

func TestDemoFlags(t *testing.T) {
	cases := []struct {
		name     string
		args     []string
		code     int
		stdout   []string
		stderr   string
		wantFlag *demoFlags
	}{
		{name: "help", args: []string{"--help"}, code: exitOK, stdout: []string{"Usage: polylane demo", "--once", "--keep", "--addr", "Ctrl-C"}},
		{name: "defaults", args: nil, code: exitOK, wantFlag: &demoFlags{addr: "127.0.0.1:8080", simAddr: "127.0.0.1:0", timeout: time.Minute}},
		{name: "all flags", args: []string{"--addr", "127.0.0.1:0", "--once", "--keep", "--timeout", "5s", "--simulator-addr", "127.0.0.1:9999"}, code: exitOK,
			wantFlag: &demoFlags{addr: "127.0.0.1:0", simAddr: "127.0.0.1:9999", once: true, keep: true, timeout: 5 * time.Second}},
		{name: "unknown flag", args: []string{"--bogus"}, code: exitUsage, stderr: "flag provided but not defined: -bogus"},
		{name: "argument", args: []string{"extra"}, code: exitUsage, stderr: `unexpected argument "extra"`},
		{name: "zero timeout", args: []string{"--timeout", "0s"}, code: exitUsage, stderr: "--timeout must be positive"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			f, code := parseDemoFlags(&invocation{args: tc.args, stdout: &out, stderr: &errb})
			if code != tc.code {
				t.Fatalf("exit %d, want %d (stderr %q)", code, tc.code, errb.String())
			}
			for _, s := range tc.stdout {
				if !strings.Contains(out.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, out.String())
				}
			}
			if !strings.Contains(errb.String(), tc.stderr) {
				t.Errorf("stderr %q lacks %q", errb.String(), tc.stderr)
			}
			if tc.wantFlag != nil && (f == nil || *f != *tc.wantFlag) {
				t.Errorf("flags = %+v, want %+v", f, tc.wantFlag)
			}
		})
	}
}

func TestDemoListedInHelp(t *testing.T) {
	var out bytes.Buffer
	if code := runMain(context.Background(), []string{"help"}, nil, &out, io.Discard, os.Getenv); code != exitOK {
		t.Fatalf("help exit %d", code)
	}
	if !regexp.MustCompile(`(?m)^  demo\s+\S`).MatchString(out.String()) {
		t.Errorf("help does not list demo:\n%s", out.String())
	}
}

// standIn is a demo server that answers like Polylane's (readiness, a
// signature-checked webhook) and, when post is set, posts a comment with
// the app's credentials from the configuration, as the worker would. It
// lets the demo's own logic be tested on its own.
type standIn struct {
	status int    // answer to the delivery
	post   string // comment to post on pull request #246; "" posts nothing
	wg     sync.WaitGroup
}

func (s *standIn) run(ctx context.Context, cfg *Config, _ zerolog.Logger, ln net.Listener) error {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.HandleFunc("POST /webhooks/github", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mac := hmac.New(sha256.New, []byte(cfg.WebhookSecret))
		mac.Write(body)
		if !hmac.Equal([]byte(r.Header.Get("X-Hub-Signature-256")), []byte("sha256="+hex.EncodeToString(mac.Sum(nil)))) {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var ev struct {
			Installation struct{ ID int64 } `json:"installation"`
		}
		_ = json.Unmarshal(body, &ev)
		w.WriteHeader(s.status)
		if s.post != "" && s.status == http.StatusAccepted {
			s.wg.Add(1)
			go func() { defer s.wg.Done(); s.comment(ctx, cfg, ev.Installation.ID) }()
		}
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: time.Second}
	go func() { <-ctx.Done(); _ = srv.Close() }()
	err := srv.Serve(ln)
	s.wg.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// comment posts with an installation token obtained from the app's key,
// the way the real client does.
func (s *standIn) comment(ctx context.Context, cfg *Config, installation int64) {
	tr, err := ghinstallation.New(http.DefaultTransport, cfg.GitHubAppID, installation, cfg.GitHubKey)
	if err != nil {
		return
	}
	tr.BaseURL = strings.TrimSuffix(cfg.GitHubAPIURL, "/")
	c, err := github.NewClient(&http.Client{Transport: tr}).WithEnterpriseURLs(cfg.GitHubAPIURL, cfg.GitHubAPIURL)
	if err != nil {
		return
	}
	_, _, _ = c.Issues.CreateComment(ctx, "lumenfield", "tally", 246, &github.IssueComment{Body: github.String(s.post)})
}

// demoRun runs the demo in-process and returns its exit status and output.
func demoRun(t *testing.T, ctx context.Context, f demoFlags, run demoServerFunc, stdout io.Writer) (int, string) {
	t.Helper()
	var errb bytes.Buffer
	if f.addr == "" {
		f.addr = "127.0.0.1:0"
	}
	f.simAddr = "127.0.0.1:0"
	code := demo(ctx, &invocation{stdout: stdout, stderr: &errb, getenv: func(string) string { return "" }}, &f, run)
	return code, errb.String()
}

const fakeComment = "## CI failing: Migrate database\n\x1b[31mred\x1b[0m\n```mermaid\nflowchart TD\n  a --> b\n```\n"

func TestDemoWithStandIn(t *testing.T) {
	cases := []struct {
		name     string
		loop     *standIn
		flags    demoFlags
		code     int
		stdout   []string
		stderr   string
		keptDirs bool
	}{
		{name: "posted", loop: &standIn{status: http.StatusAccepted, post: fakeComment}, flags: demoFlags{once: true, timeout: 20 * time.Second},
			code: exitOK, stdout: []string{"-> 202 Accepted", "Comment posted on pull request lumenfield/tally#246", "```mermaid", "?[31mred", "Dashboard: http://127.0.0.1:"}},
		{name: "never posted", loop: &standIn{status: http.StatusAccepted}, flags: demoFlags{once: true, timeout: time.Second},
			code: exitFailure, stderr: "no comment by polylane[bot] within 1s", keptDirs: true},
		{name: "delivery refused", loop: &standIn{status: http.StatusUnauthorized}, flags: demoFlags{once: true, timeout: 5 * time.Second},
			code: exitFailure, stderr: "answered the delivery 401", keptDirs: true},
		{name: "no webhook route", loop: &standIn{status: http.StatusNotFound}, flags: demoFlags{once: true, timeout: 5 * time.Second},
			code: exitFailure, stderr: errNoWebhookRoute.Error(), keptDirs: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			code, stderr := demoRun(t, context.Background(), tc.flags, tc.loop.run, &out)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out.String(), stderr)
			}
			for _, s := range tc.stdout {
				if !strings.Contains(out.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, out.String())
				}
			}
			if strings.ContainsRune(out.String(), '\x1b') {
				t.Errorf("stdout carries an escape character from the comment")
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr %q lacks %q", stderr, tc.stderr)
			}
			checkDemoDir(t, out.String()+stderr, tc.keptDirs)
		})
	}
}

var demoDirRe = regexp.MustCompile(`(/\S*polylane-demo-\d+)`)

// checkDemoDir checks the temporary directory named in the output was
// removed, or kept when it should be (and removes it then).
func checkDemoDir(t *testing.T, output string, kept bool) {
	t.Helper()
	m := demoDirRe.FindStringSubmatch(output)
	if m == nil {
		t.Fatalf("no temporary directory in the output:\n%s", output)
	}
	_, err := os.Stat(m[1])
	if exists := err == nil; exists != kept {
		t.Errorf("%s exists = %v, want %v", m[1], exists, kept)
	}
	_ = os.RemoveAll(m[1])
}

// signalWriter cancels when the output contains a marker, as Ctrl-C would.
type signalWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	marker string
	cancel context.CancelFunc
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.marker) {
		w.cancel()
	}
	return n, err
}

func TestDemoServesUntilInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &signalWriter{marker: "Serving until interrupted", cancel: cancel}
	loop := &standIn{status: http.StatusAccepted, post: fakeComment}
	code, stderr := demoRun(t, ctx, demoFlags{timeout: 20 * time.Second, keep: true}, loop.run, w)
	if code != exitOK {
		t.Fatalf("exit %d, want 0; stderr %s", code, stderr)
	}
	if !strings.Contains(w.buf.String(), "polylane demo: stopped") {
		t.Errorf("no stop message:\n%s", w.buf.String())
	}
	checkDemoDir(t, w.buf.String(), true) // --keep
}

func TestDemoBusyAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var out bytes.Buffer
	loop := &standIn{status: http.StatusAccepted}
	code, stderr := demoRun(t, context.Background(), demoFlags{addr: ln.Addr().String(), once: true, timeout: time.Second}, loop.run, &out)
	if code != exitUsage || !strings.Contains(stderr, "--addr "+ln.Addr().String()) {
		t.Fatalf("exit %d, stderr %q; want %d naming --addr", code, stderr, exitUsage)
	}
	if strings.Contains(stderr, "kept") {
		t.Errorf("a usage error keeps the temporary directory: %s", stderr)
	}
}

// TestDemoEndToEnd runs `polylane demo --once` with the real server: the
// simulator, SQLite, the webhook, the worker and publishing.
func TestDemoEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end demo in -short mode")
	}
	var out, errb bytes.Buffer
	code := runMain(context.Background(), []string{"demo", "--once", "--addr", "127.0.0.1:0", "--timeout", "60s"}, nil, &out, &errb, os.Getenv)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	for _, want := range []string{"-> 202 Accepted", "Polylane opened fix pull request", "```mermaid", "Dashboard: http://127.0.0.1:",
		"Its comment on pull request #246 leads with:\n  **Not caused by this pull request:**",
		"success (3 of 3); sent its workflow_run delivery", "Verification section of the fix pull request's description and assessment",
		"#### Verification", "- CI: success",
		"3 green runs of `CI` on the fix branch; at this class's", "of the time, so it is not yet evidence"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
	}
	checkDemoDir(t, out.String(), false)
}

// markerWriter closes seen once the output contains a marker.
type markerWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	marker string
	seen   chan struct{}
}

func (w *markerWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	if w.seen != nil && strings.Contains(w.buf.String(), w.marker) {
		close(w.seen)
		w.seen = nil
	}
	return n, err
}

func (w *markerWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

var dashboardRe = regexp.MustCompile(`Dashboard: (http://\S+)`)

// TestDemoDashboard runs the demo with the real server, signs in to the
// dashboard through the simulator's OAuth pages as a browser would, reads
// the repository's JSON (the whole history, both classes) and stops the
// demo as Ctrl-C does.
func TestDemoDashboard(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end demo in -short mode")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seen := make(chan struct{})
	w := &markerWriter{marker: "Serving until interrupted", seen: seen}
	done := make(chan int, 1)
	var errb bytes.Buffer
	go func() {
		done <- runMain(ctx, []string{"demo", "--addr", "127.0.0.1:0"}, nil, w, &errb, os.Getenv)
	}()
	select {
	case <-seen:
	case code := <-done:
		t.Fatalf("demo exited %d before serving: %s\n%s", code, w.String(), errb.String())
	case <-time.After(90 * time.Second):
		t.Fatalf("demo did not get to serving:\n%s", w.String())
	}
	m := dashboardRe.FindStringSubmatch(w.String())
	if m == nil {
		t.Fatalf("no dashboard URL:\n%s", w.String())
	}
	body := signInAndGet(t, m[1], "/api/v1/repos/lumenfield/tally")
	// The whole history is in the dashboard's 30 days: 86 runs on main, 6
	// of pull requests (the pull-request run's diagnosis lists the runs of
	// every branch), the 3 green runs of the fix pull request's branch and
	// both failure classes.
	for _, want := range []string{`"runs":\s*95\b`, `"migrate-database-`, `"unit-tests-`} {
		if !regexp.MustCompile(want).MatchString(body) {
			t.Errorf("repository JSON lacks %s:\n%.2000s", want, body)
		}
	}
	if strings.Contains(body, `"class_id":""`) {
		t.Errorf("a failure is charted in a class without id (the pull-request diagnosis overwrote a class):\n%.2000s", body)
	}
	cancel()
	if code := <-done; code != exitOK || !strings.Contains(w.String(), "polylane demo: stopped") {
		t.Errorf("exit %d after Ctrl-C, want 0 and a stop message; stderr %s", code, errb.String())
	}
}

// signInAndGet signs in from the repository page's URL (following the
// redirects through the simulator's OAuth pages) and returns the body of
// path on the same server.
func signInAndGet(t *testing.T, pageURL, path string) string {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	u, err := url.Parse(pageURL)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Get(u.Scheme + "://" + u.Host + "/auth/github?next=" + url.QueryEscape(u.Path))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != u.Path {
		t.Fatalf("sign-in ended at %s with %d, want %s with 200", resp.Request.URL, resp.StatusCode, u.Path)
	}
	resp, err = c.Get(u.Scheme + "://" + u.Host + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
	}
	return string(b)
}

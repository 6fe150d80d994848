package main

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/polylane/polylane/server/githubtest"
)

// setupRun is `polylane setup` running in this process.
type setupRun struct {
	stdout, stderr *lockedBuffer
	code           chan int
	cancel         context.CancelFunc
	page           string // the local page's URL
}

// startSetup runs setup with args and waits for the page's address.
func startSetup(t *testing.T, args ...string) *setupRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &setupRun{stdout: &lockedBuffer{}, stderr: &lockedBuffer{}, code: make(chan int, 1), cancel: cancel}
	go func() {
		r.code <- runMain(ctx, append([]string{"setup"}, args...), strings.NewReader(""), r.stdout, r.stderr,
			func(string) string { return "" })
	}()
	t.Cleanup(cancel)
	open := regexp.MustCompile(`Open (http://127\.0\.0\.1:\d+/) in a browser`)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if m := open.FindStringSubmatch(r.stdout.String()); m != nil {
			r.page = m[1]
			return r
		}
		select {
		case c := <-r.code:
			t.Fatalf("setup exited %d before serving its page: %s%s", c, r.stdout, r.stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("setup printed no page address: %s", r.stdout)
	return nil
}

func (r *setupRun) wait(t *testing.T) int {
	t.Helper()
	select {
	case c := <-r.code:
		return c
	case <-time.After(20 * time.Second):
		t.Fatalf("setup still running; stdout:\n%s", r.stdout)
	}
	return -1
}

var (
	formAction   = regexp.MustCompile(`<form action="([^"]+)" method="post">`)
	formManifest = regexp.MustCompile(`name="manifest" value="([^"]+)"`)
)

// readForm fetches setup's page and returns the form's action and manifest.
func readForm(t *testing.T, page string) (string, appManifest) {
	t.Helper()
	status, body := httpGet(t, page)
	a, m := formAction.FindStringSubmatch(body), formManifest.FindStringSubmatch(body)
	if status != http.StatusOK || a == nil || m == nil {
		t.Fatalf("setup page: %d %s", status, body)
	}
	var man appManifest
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &man); err != nil {
		t.Fatalf("manifest in the form: %v", err)
	}
	return html.UnescapeString(a[1]), man
}

// TestSetupAgainstSimulator drives the manifest flow as a browser would
// (the form's POST to GitHub, GitHub's redirect to the callback), then
// starts `polylane serve --config` with the written file and checks that
// it accepts the simulator's signed deliveries.
func TestSetupAgainstSimulator(t *testing.T) {
	sim, err := githubtest.Start(githubtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	out := filepath.Join(t.TempDir(), "polylane.env")
	run := startSetup(t, "--github-url", sim.URL(), "--org", "acme", "--name", "Polylane Test",
		"--webhook-url", "https://polylane.example.com", "--out", out)
	action, man := readForm(t, run.page)
	if want := sim.URL() + "/organizations/acme/settings/apps/new?state="; !strings.HasPrefix(action, want) {
		t.Fatalf("form posts to %s, want %s…", action, want)
	}
	checkManifest(t, man, run.page)

	resp, err := http.PostForm(action, url.Values{"manifest": {mustJSON(t, man)}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Polylane is registered") {
		t.Fatalf("after GitHub's redirect: %d %s", resp.StatusCode, body)
	}
	if c := run.wait(t); c != exitOK {
		t.Fatalf("setup exited %d: %s", c, run.stderr)
	}
	for _, secret := range []string{sim.WebhookSecret(), sim.ClientSecret(), "PRIVATE KEY"} {
		if strings.Contains(run.stdout.String()+run.stderr.String(), secret) || strings.Contains(string(body), secret) {
			t.Fatalf("setup showed a secret (%.12s…)", secret)
		}
	}
	if !strings.Contains(run.stdout.String(), sim.URL()+"/apps/polylane-test/installations/new") {
		t.Errorf("next steps lack the install link:\n%s", run.stdout)
	}
	checkWrittenConfig(t, out, sim)
	serveWithConfig(t, out, sim)
}

// checkManifest asserts the permissions, events and addresses setup asks for.
func checkManifest(t *testing.T, m appManifest, page string) {
	t.Helper()
	wantPerms := map[string]string{"actions": "write", "contents": "write", "pull_requests": "write", "issues": "write", "metadata": "read"}
	if mustJSON(t, m.DefaultPermissions) != mustJSON(t, wantPerms) {
		t.Errorf("permissions %v, want %v", m.DefaultPermissions, wantPerms)
	}
	if strings.Join(m.DefaultEvents, ",") != "workflow_run,issue_comment,pull_request,repository" {
		t.Errorf("events %v", m.DefaultEvents)
	}
	if m.HookAttributes.URL != "https://polylane.example.com"+WebhookPath || !m.HookAttributes.Active {
		t.Errorf("hook %+v", m.HookAttributes)
	}
	if m.RedirectURL != strings.TrimSuffix(page, "/")+"/callback" || m.Public || m.Name != "Polylane Test" {
		t.Errorf("redirect %s, public %v, name %q", m.RedirectURL, m.Public, m.Name)
	}
	if len(m.CallbackURLs) != 1 || m.CallbackURLs[0] != "https://polylane.example.com/auth/callback" {
		t.Errorf("callback URLs %v", m.CallbackURLs)
	}
}

// checkWrittenConfig asserts the file's mode and that it holds the app's
// credentials as the simulator issued them.
func checkWrittenConfig(t *testing.T, path string, sim *githubtest.Server) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %04o, want 0600", info.Mode().Perm())
	}
	vals, err := readConfigFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"POLYLANE_GITHUB_APP_ID": strconv.FormatInt(sim.AppID(), 10), "POLYLANE_GITHUB_API_URL": sim.APIURL(),
		"POLYLANE_GITHUB_WEB_URL": sim.URL(), "POLYLANE_WEBHOOK_SECRET": sim.WebhookSecret(),
		"POLYLANE_GITHUB_PRIVATE_KEY": string(sim.PrivateKeyPEM()), "POLYLANE_GITHUB_CLIENT_ID": sim.ClientID(),
		"POLYLANE_GITHUB_CLIENT_SECRET": sim.ClientSecret(), "POLYLANE_DASHBOARD_URL": "https://polylane.example.com",
	}
	for k, v := range want {
		if vals[k] != v {
			t.Errorf("%s differs from what the simulator issued (%d bytes, want %d)", k, len(vals[k]), len(v))
		}
	}
	if len(vals["POLYLANE_DASHBOARD_SESSION_SECRET"]) < 32 {
		t.Errorf("no dashboard session secret of 32 bytes or more")
	}
}

// serveWithConfig starts the binary with --config and a database only,
// checks readiness, and has the simulator deliver a signed ping and an
// installation event to it.
func serveWithConfig(t *testing.T, path string, sim *githubtest.Server) {
	t.Helper()
	env := map[string]string{"POLYLANE_DATABASE_URL": "sqlite://" + filepath.Join(t.TempDir(), "p.db"),
		"POLYLANE_ADDR": "127.0.0.1:0", "POLYLANE_SHUTDOWN_TIMEOUT": "5s"}
	cmd, addr, logs := startServe(t, env, "serve", "--config", path)
	deadline := time.Now().Add(30 * time.Second)
	for status, _ := httpGet(t, "http://"+addr+"/readyz"); status != http.StatusOK; status, _ = httpGet(t, "http://"+addr+"/readyz") {
		if time.Now().After(deadline) {
			t.Fatalf("serve --config not ready; logs:\n%s", logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	ping, err := sim.PingEvent()
	if err != nil {
		t.Fatal(err)
	}
	d, err := sim.Deliver(context.Background(), "http://"+addr+WebhookPath, ping)
	if err != nil || d.Status != http.StatusOK {
		t.Fatalf("signed ping answered %d (%v): %s", d.Status, err, d.Response)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve --config exited with %v; logs:\n%s", err, logs)
	}
	if strings.Contains(logs.String(), sim.WebhookSecret()) || strings.Contains(logs.String(), "PRIVATE KEY") {
		t.Fatal("serve logged a secret from the config file")
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSetupCallbackRefusesWrongState: a redirect without this run's state
// writes nothing and the flow keeps waiting; a second good one gets 410.
func TestSetupCallbackRefusesWrongState(t *testing.T) {
	sim, err := githubtest.Start(githubtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	out := filepath.Join(t.TempDir(), "polylane.env")
	run := startSetup(t, "--github-url", sim.URL(), "--webhook-url", "https://h.example/hook", "--out", out)
	action, man := readForm(t, run.page)
	code, err := sim.ManifestCode([]byte(mustJSON(t, man)))
	if err != nil {
		t.Fatal(err)
	}
	for _, state := range []string{"", "forged"} {
		status, _ := httpGet(t, run.page+"callback?code="+code+"&state="+state)
		if status != http.StatusBadRequest {
			t.Fatalf("state %q answered %d, want 400", state, status)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("a wrong state wrote the file: %v", err)
	}
	state := mustQuery(t, action, "state")
	if status, _ := httpGet(t, run.page+"callback?code="+code+"&state="+state); status != http.StatusOK {
		t.Fatalf("the right state answered %d", status)
	}
	if c := run.wait(t); c != exitOK {
		t.Fatalf("setup exited %d: %s", c, run.stderr)
	}
}

// TestSetupCallbackOnce: after the flow has finished, a callback gets 410
// and changes nothing.
func TestSetupCallbackOnce(t *testing.T) {
	f := &setupFlags{webhookURL: "https://h.example/hook", dashboardURL: "https://h.example", name: "p",
		out: filepath.Join(t.TempDir(), "p.env"), endpoints: gitHubEndpoints{Web: "http://127.0.0.1:1", API: "http://127.0.0.1:1/"}}
	flow, err := newSetupFlow(f, "http://127.0.0.1:2")
	if err != nil {
		t.Fatal(err)
	}
	flow.finished = true
	rec := httptest.NewRecorder()
	flow.routes().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/callback?code=c&state="+flow.state, nil))
	if rec.Code != http.StatusGone || len(flow.done) != 0 {
		t.Fatalf("callback after the end: %d, results %d", rec.Code, len(flow.done))
	}
}

func mustQuery(t *testing.T, raw, key string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get(key)
}

// TestSetupRefusesBadFlags: exit 2 with one line, before serving anything.
func TestSetupRefusesBadFlags(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "taken.env")
	if err := os.WriteFile(existing, []byte("# mine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no webhook URL", nil, "polylane: --webhook-url: is required"},
		{"bad webhook URL", []string{"--webhook-url", "ftp://x"}, "polylane: --webhook-url:"},
		{"existing file", []string{"--webhook-url", "https://x.example", "--out", existing}, "polylane: --out: " + existing + " exists"},
		{"bad org", []string{"--webhook-url", "https://x.example", "--org", "../x"}, "polylane: --org:"},
		{"long name", []string{"--webhook-url", "https://x.example", "--name", strings.Repeat("n", 35)}, "polylane: --name:"},
		{"bad GitHub URL", []string{"--webhook-url", "https://x.example", "--github-url", "github.com"}, "polylane: --github-url:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runMain(context.Background(), append([]string{"setup", "--out", filepath.Join(dir, "new.env")}, tc.args...),
				strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
			if code != exitUsage || !strings.HasPrefix(stderr.String(), tc.want) || strings.Count(stderr.String(), "\n") != 1 {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, stderr.String(), tc.want)
			}
		})
	}
	if b, _ := os.ReadFile(existing); string(b) != "# mine\n" {
		t.Fatal("setup changed an existing file")
	}
}

// TestEndpoints maps GitHub's web URL to its API and pages.
func TestEndpoints(t *testing.T) {
	tests := []struct {
		web, api         string
		wantWeb, wantAPI string
		org, newApp      string
	}{
		{"https://github.com", "", "https://github.com", "https://api.github.com/", "", "https://github.com/settings/apps/new?state=s"},
		{"https://github.com/", "", "https://github.com", "https://api.github.com/", "acme", "https://github.com/organizations/acme/settings/apps/new?state=s"},
		{"https://ghe.corp.example", "", "https://ghe.corp.example", "https://ghe.corp.example/api/v3/", "", "https://ghe.corp.example/settings/apps/new?state=s"},
		{"http://127.0.0.1:9000", "http://127.0.0.1:9000/api/v3", "http://127.0.0.1:9000", "http://127.0.0.1:9000/api/v3/", "", "http://127.0.0.1:9000/settings/apps/new?state=s"},
	}
	for _, tc := range tests {
		e, err := endpointsFor(tc.web, tc.api)
		if err != nil {
			t.Fatal(err)
		}
		if e.Web != tc.wantWeb || e.API != tc.wantAPI || e.newAppURL(tc.org, "s") != tc.newApp {
			t.Errorf("%s: %+v, new app %s", tc.web, e, e.newAppURL(tc.org, "s"))
		}
	}
	if got := (gitHubEndpoints{API: "https://api.github.com/"}).conversionURL("a/b"); got != "https://api.github.com/app-manifests/a%2Fb/conversions" {
		t.Errorf("conversion URL %s", got)
	}
}

// TestWorkflowsPermissionIsOptional: --workflows adds workflows: write.
func TestWorkflowsPermissionIsOptional(t *testing.T) {
	if _, ok := appPermissions(false)["workflows"]; ok {
		t.Error("workflows asked for without --workflows")
	}
	if appPermissions(true)["workflows"] != "write" {
		t.Error("--workflows does not ask for workflows: write")
	}
}

// TestSetupWritesKeyFile: with --key-file the key lands in its own 0600
// file, which the settings file names relative to itself and serve reads.
func TestSetupWritesKeyFile(t *testing.T) {
	sim, err := githubtest.Start(githubtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	dir := t.TempDir()
	out, key := filepath.Join(dir, "polylane.env"), filepath.Join(dir, "app.pem")
	run := startSetup(t, "--github-url", sim.URL(), "--webhook-url", "https://h.example/hook", "--out", out, "--key-file", key)
	action, man := readForm(t, run.page)
	code, err := sim.ManifestCode([]byte(mustJSON(t, man)))
	if err != nil {
		t.Fatal(err)
	}
	if status, body := httpGet(t, run.page+"callback?code="+code+"&state="+mustQuery(t, action, "state")); status != http.StatusOK {
		t.Fatalf("callback: %d %s", status, body)
	}
	if c := run.wait(t); c != exitOK {
		t.Fatalf("setup exited %d: %s", c, run.stderr)
	}
	info, err := os.Stat(key)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", err, info)
	}
	text, _ := os.ReadFile(out)
	if !strings.Contains(string(text), "\nPOLYLANE_GITHUB_PRIVATE_KEY_FILE=app.pem\n") || strings.Contains(string(text), "PRIVATE KEY-----") {
		t.Fatalf("settings file does not name the key file alone:\n%s", text)
	}
	t.Chdir(t.TempDir())
	cfg, err := loadConfig(cmdServe, "", []string{"--config", out}, func(string) string { return "" }, io.Discard)
	if err != nil || string(cfg.GitHubKey) != string(sim.PrivateKeyPEM()) || cfg.GitHubAppID != sim.AppID() {
		t.Fatalf("serve's settings from the file: %v", err)
	}
}

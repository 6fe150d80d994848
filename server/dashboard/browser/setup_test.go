//go:build browser

package browser

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/polylane/polylane/server/dashboard"
	"github.com/polylane/polylane/server/dashboard/dashboardtest"
	"github.com/polylane/polylane/server/githubtest"
	"github.com/polylane/polylane/store/sqlite"
)

// chromium finds the browser: $POLYLANE_CHROMIUM, or chromium on PATH. It
// skips the test without one, unless CI=true.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("POLYLANE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("CI=true but no Chromium: apt-get install -y chromium")
	}
	t.Skip("no Chromium found (apt-get install -y chromium, or set POLYLANE_CHROMIUM)")
	return ""
}

// artifacts is where screenshots go: $POLYLANE_BROWSER_ARTIFACTS, or
// artifacts/browser at the repository root (ignored by git).
func artifacts(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("POLYLANE_BROWSER_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "artifacts", "browser")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// site is a dashboard with generated history behind the GitHub simulator.
type site struct {
	url    string
	seeded *dashboardtest.Seeded
}

// startSite seeds a SQLite store and serves the dashboard; "octocat" signs
// in and sees installation 1001 (acme), not 1002 (globex).
func startSite(t *testing.T) site {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, sqlite.Options{Path: filepath.Join(t.TempDir(), "browser.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	seeded, err := dashboardtest.Seed(ctx, st, dashboardtest.Options{Installations: 2, Repos: 4, Workflows: 2, Classes: 4,
		RunsPerRepo: 360, Days: 60, Diagnoses: 12, End: time.Now().UTC().Truncate(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	url, sim := dashboardtest.Serve(t, seeded, dashboard.Options{Store: st})
	sim.AddUser(githubtest.User{Login: "octocat", Name: "The Octocat", Installations: []int64{dashboardtest.FirstInstallationID}})
	return site{url: url, seeded: seeded}
}

// newBrowser starts headless Chromium with the flags this machine needs
// (no sandbox as root, no GPU, no background network) and returns a tab.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("lang", "en-US"),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(alloc, chromedp.WithLogf(t.Logf))
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(cancelTimeout)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return ctx
}

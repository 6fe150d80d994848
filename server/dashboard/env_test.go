package dashboard_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/polylane/polylane/server/dashboard"
	"github.com/polylane/polylane/server/dashboard/dashboardtest"
	"github.com/polylane/polylane/server/githubtest"
	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/store/sqlite"
)

// end is the time of the newest generated run; the clock is an hour later.
var end = time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC)

// env is a dashboard over a seeded SQLite store, signing in through the
// GitHub simulator as "octocat", who can see installation 1001 (acme) but
// not 1002 (globex).
type env struct {
	t      *testing.T
	url    string
	sim    *githubtest.Server
	seeded *dashboardtest.Seeded
	st     store.Store
	client *http.Client
}

// template is a seeded database that each test copies, so that the history
// is generated once per test binary.
var template struct {
	once   sync.Once
	dir    string
	seeded *dashboardtest.Seeded
	err    error
}

// TestMain removes the template database after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if template.dir != "" {
		os.RemoveAll(template.dir)
	}
	os.Exit(code)
}

// seedTemplate generates the history into the template database once.
func seedTemplate() (string, *dashboardtest.Seeded, error) {
	template.once.Do(func() {
		ctx := context.Background()
		if template.dir, template.err = os.MkdirTemp("", "dashboard-test-"); template.err != nil {
			return
		}
		st, err := sqlite.Open(ctx, sqlite.Options{Path: filepath.Join(template.dir, "dash.db")})
		if err != nil {
			template.err = err
			return
		}
		defer st.Close()
		if _, err := st.Migrate(ctx); err != nil {
			template.err = err
			return
		}
		template.seeded, template.err = dashboardtest.Seed(ctx, st, dashboardtest.Options{Installations: 2, Repos: 4,
			RunsPerRepo: 240, Days: 40, End: end, Diagnoses: 30})
		if template.err == nil {
			_, template.err = st.DB().ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
		}
	})
	return filepath.Join(template.dir, "dash.db"), template.seeded, template.err
}

func newEnv(t *testing.T, public bool) *env {
	t.Helper()
	ctx := context.Background()
	src, seeded, err := seedTemplate()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "dash.db")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(ctx, sqlite.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	url, sim := dashboardtest.Serve(t, seeded, dashboard.Options{Store: st, Public: public,
		SessionSecret: []byte("0123456789abcdef0123456789abcdef-test"), Now: func() time.Time { return end.Add(time.Hour) }})
	sim.AddUser(githubtest.User{Login: "octocat", Name: "The Octocat", Installations: []int64{dashboardtest.FirstInstallationID}})
	jar, _ := cookiejar.New(nil)
	return &env{t: t, url: url, sim: sim, seeded: seeded, st: st, client: &http.Client{Jar: jar, Timeout: 30 * time.Second}}
}

// get fetches a path and returns the status and body.
func (e *env) get(path string) (int, string) {
	e.t.Helper()
	resp, err := e.client.Get(e.url + path)
	if err != nil {
		e.t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatalf("GET %s: %v", path, err)
	}
	return resp.StatusCode, string(b)
}

// signIn goes through the OAuth flow and lands on the overview.
func (e *env) signIn() string {
	e.t.Helper()
	code, body := e.get("/auth/github?next=/")
	if code != http.StatusOK || !strings.Contains(body, "Signed in as") {
		e.t.Fatalf("sign-in ended with %d:\n%.600s", code, body)
	}
	return body
}

// repoByIndex is a generated repository.
func (e *env) repo(i int) store.Repository { return e.seeded.Repos[i] }

// repoPath is a repository's dashboard path.
func repoPath(r store.Repository) string { return "/repos/" + r.FullName }

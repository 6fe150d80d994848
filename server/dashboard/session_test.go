package dashboard_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/polylane/polylane/server"
	"github.com/polylane/polylane/server/dashboard"
	"github.com/polylane/polylane/server/dashboard/dashboardtest"
)

// csrfOf is the sign-out form's CSRF token on a page.
func csrfOf(t *testing.T, body string) string {
	t.Helper()
	i := strings.Index(body, `name="csrf" value="`)
	if i < 0 {
		t.Fatal("no CSRF field in the page")
	}
	token := body[i+len(`name="csrf" value="`):]
	return token[:strings.IndexByte(token, '"')]
}

// replica serves a second dashboard over e's store, simulator and session
// secret, as another replica of the same deployment would.
func (e *env) replica(t *testing.T) string {
	t.Helper()
	d, err := dashboard.New(dashboard.Options{Store: e.st, SessionSecret: []byte("0123456789abcdef0123456789abcdef-test"),
		ClientID: dashboardtest.ClientID, ClientSecret: dashboardtest.ClientSecret, GitHubAPIURL: e.sim.APIURL(),
		InsecureCookies: true, Now: func() time.Time { return end.Add(time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	srv := server.New(server.Options{Logger: zerolog.Nop()})
	d.Mount(srv)
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return ts.URL
}

// withCookie fetches a URL with only the given session cookie.
func withCookie(t *testing.T, u string, c *http.Cookie) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(c)
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestSignOutRevokesTheSessionEverywhere signs in on one replica and keeps
// a copy of the session cookie, as a thief would. The copy works on both
// replicas until the user signs out on one; from then on it is refused on
// both, page and API, although the cookie itself has not expired.
func TestSignOutRevokesTheSessionEverywhere(t *testing.T) {
	e := newEnv(t, false)
	other := e.replica(t)
	body := e.signIn()
	u, _ := url.Parse(e.url)
	var stolen *http.Cookie
	for _, c := range e.client.Jar.Cookies(u) {
		if c.Name == "polylane_session" {
			stolen = c
		}
	}
	if stolen == nil {
		t.Fatal("no session cookie after signing in")
	}
	for _, base := range []string{e.url, other} {
		if code := withCookie(t, base+"/api/v1/overview", stolen); code != http.StatusOK {
			t.Fatalf("%s with the session cookie: %d, want 200", base, code)
		}
	}
	resp, err := e.client.PostForm(e.url+"/logout", url.Values{"csrf": {csrfOf(t, body)}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, base := range []string{e.url, other} {
		if code := withCookie(t, base+"/api/v1/overview", stolen); code != http.StatusUnauthorized {
			t.Errorf("%s API with the signed-out cookie: %d, want 401", base, code)
		}
		if code := withCookie(t, base+"/", stolen); code != http.StatusSeeOther {
			t.Errorf("%s page with the signed-out cookie: %d, want 303 to sign in", base, code)
		}
	}
	// Signing in again starts a new session that works.
	e.signIn()
	if code, _ := e.get("/api/v1/overview"); code != http.StatusOK {
		t.Fatalf("after signing in again: %d", code)
	}
}

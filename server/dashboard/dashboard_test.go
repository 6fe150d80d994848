package dashboard_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/polylane/polylane/server/dashboard"
	"github.com/polylane/polylane/server/dashboard/dashboardtest"
)

func TestSignInShowsOnlyAccessibleInstallations(t *testing.T) {
	e := newEnv(t, false)
	body := e.signIn()
	for _, want := range []string{"acme/service-01", "acme/service-03", "octocat"} {
		if !strings.Contains(body, want) {
			t.Errorf("overview lacks %q", want)
		}
	}
	if strings.Contains(body, "globex") {
		t.Errorf("overview shows the foreign installation globex")
	}
	code, raw := e.get("/api/v1/overview")
	if code != http.StatusOK {
		t.Fatalf("GET /api/v1/overview: %d %s", code, raw)
	}
	var ov dashboard.OverviewData
	if err := json.Unmarshal([]byte(raw), &ov); err != nil {
		t.Fatal(err)
	}
	if len(ov.Installations) != 1 || ov.Installations[0].ID != dashboardtest.FirstInstallationID || len(ov.Installations[0].Repositories) != 2 {
		t.Fatalf("overview installations: %+v", ov.Installations)
	}
	wf := ov.Installations[0].Repositories[0].Workflows
	if len(wf) != 2 || len(wf[0].Days) != dashboard.DefaultWindowDays || wf[0].TopClass == nil || wf[0].Failed == 0 {
		t.Fatalf("workflow rates: %+v", wf)
	}
}

func TestForeignAndMissingPagesAre404(t *testing.T) {
	e := newEnv(t, false)
	e.signIn()
	foreign := e.repo(1)
	paths := []string{
		fmt.Sprintf("/installations/%d", dashboardtest.FirstInstallationID+1),
		repoPath(foreign),
		repoPath(foreign) + "/diagnoses",
		fmt.Sprintf("%s/diagnoses/%d", repoPath(foreign), e.seeded.Diagnoses[foreign.ID][0]),
		// a diagnosis of a foreign repository under a visible repository's path
		fmt.Sprintf("%s/diagnoses/%d", repoPath(e.repo(0)), e.seeded.Diagnoses[foreign.ID][0]),
		repoPath(e.repo(0)) + "/classes/no-such-class",
		"/repos/acme/no-such-repo",
		"/installations/999999",
		"/no/such/page/at/all",
	}
	for _, p := range paths {
		for _, prefix := range []string{"", "/api/v1"} {
			if prefix != "" && strings.HasPrefix(p, "/no/") {
				continue
			}
			code, body := e.get(prefix + p)
			if code != http.StatusNotFound {
				t.Errorf("GET %s%s = %d, want 404 (%.200s)", prefix, p, code, body)
			}
		}
	}
	if code, _ := e.get(fmt.Sprintf("/installations/%d", dashboardtest.FirstInstallationID)); code != http.StatusOK {
		t.Errorf("own installation page: %d", code)
	}
}

func TestWithoutSessionPagesRedirectAndAPIRefuses(t *testing.T) {
	e := newEnv(t, false)
	e.client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := e.client.Get(e.url + repoPath(e.repo(0)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/login?next=") {
		t.Fatalf("page without session: %d to %q", resp.StatusCode, loc)
	}
	if code, _ := e.get("/api/v1/overview"); code != http.StatusUnauthorized {
		t.Fatalf("API without session: %d, want 401", code)
	}
	// A forged or tampered cookie is no session.
	u, _ := url.Parse(e.url)
	e.client.Jar.SetCookies(u, []*http.Cookie{{Name: "polylane_session", Value: "eyJzaWQiOiJ4In0.AAAA"}})
	if code, _ := e.get("/api/v1/overview"); code != http.StatusUnauthorized {
		t.Fatalf("API with a forged cookie: %d, want 401", code)
	}
}

func TestCallbackChecksState(t *testing.T) {
	e := newEnv(t, false)
	e.client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := e.client.Get(e.url + "/auth/callback?code=abc&state=forged")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); !strings.HasPrefix(loc, "/login?error=") {
		t.Fatalf("callback with a forged state went to %q", loc)
	}
	resp, err = e.client.Get(e.url + "/auth/github?next=//evil.example/x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	if !strings.HasPrefix(loc.String(), e.sim.URL()+"/login/oauth/authorize") || loc.Query().Get("state") == "" {
		t.Fatalf("sign-in start redirects to %q", loc)
	}
	for _, c := range resp.Cookies() {
		if c.Name == "polylane_oauth" && (!c.HttpOnly || c.SameSite != http.SameSiteLaxMode) {
			t.Fatalf("state cookie attributes: %+v", c)
		}
	}
}

func TestSignOutNeedsCSRFToken(t *testing.T) {
	e := newEnv(t, false)
	body := e.signIn()
	resp, err := e.client.PostForm(e.url+"/logout", url.Values{"csrf": {"wrong"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("sign-out without the token: %d, want 403", resp.StatusCode)
	}
	i := strings.Index(body, `name="csrf" value="`)
	if i < 0 {
		t.Fatal("no CSRF field in the page")
	}
	token := body[i+len(`name="csrf" value="`):]
	token = token[:strings.IndexByte(token, '"')]
	resp, err = e.client.PostForm(e.url+"/logout", url.Values{"csrf": {token}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if code, _ := e.get("/api/v1/overview"); code != http.StatusUnauthorized {
		t.Fatalf("API after signing out: %d, want 401", code)
	}
}

func TestPublicModeShowsPublicRepositoriesWithoutSignIn(t *testing.T) {
	e := newEnv(t, true)
	code, body := e.get("/")
	if code != http.StatusOK || !strings.Contains(body, "globex/service-02") || strings.Contains(body, "acme/service-03") {
		t.Fatalf("public overview: %d\n%.500s", code, body)
	}
	if code, _ := e.get(repoPath(e.repo(2))); code != http.StatusNotFound {
		t.Fatalf("private repository in public mode: %d, want 404", code)
	}
	if code, _ := e.get("/api/v1" + repoPath(e.repo(3))); code != http.StatusOK {
		t.Fatalf("public repository API: %d", code)
	}
}

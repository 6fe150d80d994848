package githubtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v66/github"
)

// noRedirect is a client that returns redirects instead of following them.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func TestOAuthCodeFlow(t *testing.T) {
	s := startTiny(t, Options{OAuthUser: "dana"})
	const callback = "http://127.0.0.1:1/auth/callback"
	authorize := s.URL() + "/login/oauth/authorize?" + url.Values{"client_id": {s.ClientID()}, "redirect_uri": {callback}, "state": {"xyz"}}.Encode()
	resp, err := noRedirect.Get(authorize)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusFound || !strings.HasPrefix(loc.String(), callback) || loc.Query().Get("state") != "xyz" || loc.Query().Get("code") == "" {
		t.Fatalf("authorize: %d %s", resp.StatusCode, loc)
	}
	exchange := func(code, secret string) map[string]string {
		form := url.Values{"client_id": {s.ClientID()}, "client_secret": {secret}, "code": {code}, "redirect_uri": {callback}}
		req, _ := http.NewRequest(http.MethodPost, s.URL()+"/login/oauth/access_token", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]string
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
			t.Fatalf("token exchange: %d %v", resp.StatusCode, err)
		}
		return out
	}
	if bad := exchange(loc.Query().Get("code"), "wrong"); bad["error"] != "incorrect_client_credentials" {
		t.Errorf("wrong secret: %v", bad)
	}
	tok := exchange(loc.Query().Get("code"), s.ClientSecret())
	if !strings.HasPrefix(tok["access_token"], "ghu_") || tok["token_type"] != "bearer" {
		t.Fatalf("token: %v", tok)
	}
	if again := exchange(loc.Query().Get("code"), s.ClientSecret()); again["error"] != "bad_verification_code" {
		t.Errorf("code reused: %v", again)
	}
	c := s.NewTokenClient(tok["access_token"])
	me, _, err := c.Users.Get(ctx(t), "")
	if err != nil || me.GetLogin() != "dana" {
		t.Errorf("/user: %v %+v", err, me)
	}
	insts, _, err := c.Apps.ListUserInstallations(ctx(t), nil)
	if err != nil || len(insts) != 1 || insts[0].GetID() != tinyInst {
		t.Fatalf("user installations: %v %+v", err, insts)
	}
	repos, _, err := c.Apps.ListUserRepos(ctx(t), tinyInst, nil)
	if err != nil || repos.GetTotalCount() != 1 || repos.Repositories[0].GetFullName() != tinyRepo {
		t.Errorf("installation repositories: %v %+v", err, repos)
	}
	if _, _, err := installClient(t, s).Users.Get(ctx(t), ""); statusOf(err) != 403 {
		t.Errorf("/user with an installation token: %v, want 403", err)
	}
}

func TestUserSeesOnlyItsInstallations(t *testing.T) {
	s := startTiny(t, Options{})
	s.AddUser(User{Login: "outsider", Installations: []int64{}})
	c := s.NewTokenClient(s.UserToken("outsider"))
	insts, _, err := c.Apps.ListUserInstallations(ctx(t), nil)
	if err != nil || len(insts) != 0 {
		t.Errorf("installations: %v %d", err, len(insts))
	}
	if _, _, err := c.Apps.ListUserRepos(ctx(t), tinyInst, nil); statusOf(err) != 404 {
		t.Errorf("foreign installation: %v, want 404", err)
	}
	if _, _, err := c.Repositories.Get(ctx(t), tinyOwner, tinyName); statusOf(err) != 404 {
		t.Errorf("foreign repository: %v, want 404", err)
	}
}

func TestManifestFlow(t *testing.T) {
	s := startTiny(t, Options{})
	var code, state string
	cb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		code, state = r.URL.Query().Get("code"), r.URL.Query().Get("state")
	}))
	defer cb.Close()
	manifest := `{"name":"Polylane Acme","url":"https://example.test","redirect_url":"` + cb.URL + `/setup/callback",` +
		`"hook_attributes":{"url":"http://127.0.0.1:9/webhooks/github"},"default_events":["workflow_run"]}`
	resp, err := http.PostForm(s.URL()+"/settings/apps/new?state=s1", url.Values{"manifest": {manifest}})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if code == "" || state != "s1" {
		t.Fatalf("callback got code %q state %q", code, state)
	}
	anon, _ := github.NewClient(nil).WithEnterpriseURLs(s.URL(), s.URL())
	cfg, _, err := anon.Apps.CompleteAppManifest(ctx(t), code)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.GetID() != s.AppID() || cfg.GetSlug() != "polylane-acme" || cfg.GetWebhookSecret() != s.WebhookSecret() ||
		cfg.GetClientID() != s.ClientID() || cfg.GetClientSecret() != s.ClientSecret() || !strings.Contains(cfg.GetPEM(), "RSA PRIVATE KEY") {
		t.Errorf("conversion = %+v", cfg)
	}
	if _, _, err := anon.Apps.CompleteAppManifest(ctx(t), code); statusOf(err) != 404 {
		t.Errorf("second conversion: %v, want 404", err)
	}
	// The converted credentials work: the pem signs JWTs the simulator accepts.
	atr, err := ghinstallation.NewAppsTransport(http.DefaultTransport, cfg.GetID(), []byte(cfg.GetPEM()))
	if err != nil {
		t.Fatal(err)
	}
	atr.BaseURL = strings.TrimSuffix(s.APIURL(), "/")
	app, _ := github.NewClient(&http.Client{Transport: atr}).WithEnterpriseURLs(s.URL(), s.URL())
	if a, _, err := app.Apps.Get(ctx(t), ""); err != nil || a.GetName() != "Polylane Acme" {
		t.Errorf("GET /app with the converted key: %v", err)
	}
}

func TestManifestConversionWithPublicKeyOnly(t *testing.T) {
	key := mustKey(t)
	s := startTiny(t, Options{PublicKey: &key.PublicKey})
	if s.PrivateKeyPEM() != nil {
		t.Fatal("a public-key-only simulator must not have a private key")
	}
	code, err := s.ManifestCode([]byte(`{"name":"x","url":"https://x.test"}`))
	if err != nil {
		t.Fatal(err)
	}
	anon, _ := github.NewClient(nil).WithEnterpriseURLs(s.URL(), s.URL())
	cfg, _, err := anon.Apps.CompleteAppManifest(ctx(t), code)
	if err != nil || cfg.GetPEM() == "" {
		t.Fatalf("conversion: %v", err)
	}
	if _, err := s.NewAppClient(); err != nil {
		t.Errorf("the generated key is now the app's: %v", err)
	}
}

package githubtest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v66/github"
)

func TestInstallationTokenExchangedOnce(t *testing.T) {
	s := startTiny(t, Options{})
	c := installClient(t, s)
	for i := 0; i < 3; i++ {
		if _, _, err := c.Actions.GetWorkflowRunByID(ctx(t), tinyOwner, tinyName, tinyTrigger); err != nil {
			t.Fatal(err)
		}
	}
	var tokens, api int
	for _, call := range s.Calls() {
		switch call.Kind {
		case KindToken:
			tokens++
			if call.Actor != "app" || call.Status != http.StatusCreated || call.APIIndex != 0 {
				t.Errorf("token call = %+v", call)
			}
		case KindAPI:
			api++
			if call.Actor != "installation:77" || call.APIIndex != api {
				t.Errorf("api call = %+v", call)
			}
		}
	}
	if tokens != 1 || api != 3 {
		t.Errorf("%d token exchanges and %d API calls, want 1 and 3", tokens, api)
	}
}

// signJWT makes an app JWT with the given times and issuer.
func signJWT(t *testing.T, key *rsa.PrivateKey, iat, exp time.Time, iss string) string {
	t.Helper()
	enc := base64.RawURLEncoding.EncodeToString
	head := enc([]byte(`{"alg":"RS256","typ":"JWT"}`))
	body := enc([]byte(fmt.Sprintf(`{"iat":%d,"exp":%d,"iss":%q}`, iat.Unix(), exp.Unix(), iss)))
	sum := sha256.Sum256([]byte(head + "." + body))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return head + "." + body + "." + enc(sig)
}

func TestAppJWTVerification(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	s := startTiny(t, Options{PrivateKey: key, AppID: 42})
	now := time.Now()
	tests := []struct {
		name string
		jwt  string
		want int
	}{
		{"valid", signJWT(t, key, now.Add(-30*time.Second), now.Add(2*time.Minute), "42"), 200},
		{"wrong key", signJWT(t, other, now.Add(-30*time.Second), now.Add(2*time.Minute), "42"), 401},
		{"wrong issuer", signJWT(t, key, now.Add(-30*time.Second), now.Add(2*time.Minute), "43"), 401},
		{"expired", signJWT(t, key, now.Add(-20*time.Minute), now.Add(-10*time.Minute), "42"), 401},
		{"too far ahead", signJWT(t, key, now, now.Add(30*time.Minute), "42"), 401},
		{"issued in the future", signJWT(t, key, now.Add(5*time.Minute), now.Add(8*time.Minute), "42"), 401},
		{"garbage", "a.b.c", 401},
		{"installation token", "", 401},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			jwt := tc.jwt
			if jwt == "" {
				jwt, _ = s.InstallationToken(tinyInst)
			}
			resp := plainGet(t, s.APIURL()+"app", http.Header{"Authorization": {"Bearer " + jwt}})
			if resp.StatusCode != tc.want {
				t.Errorf("GET /app = %d, want %d", resp.StatusCode, tc.want)
			}
		})
	}
}

func TestAppEndpoints(t *testing.T) {
	s := startTiny(t, Options{AppSlug: "polylane-test"})
	app, err := s.NewAppClient()
	if err != nil {
		t.Fatal(err)
	}
	a, _, err := app.Apps.Get(ctx(t), "")
	if err != nil || a.GetID() != s.AppID() || a.GetSlug() != "polylane-test" {
		t.Errorf("GET /app: %v %+v", err, a)
	}
	insts, _, err := app.Apps.ListInstallations(ctx(t), nil)
	if err != nil || len(insts) != 1 || insts[0].GetID() != tinyInst || insts[0].GetAccount().GetLogin() != tinyOwner {
		t.Errorf("installations: %v %+v", err, insts)
	}
	inst, _, err := app.Apps.FindRepositoryInstallation(ctx(t), tinyOwner, tinyName)
	if err != nil || inst.GetID() != tinyInst {
		t.Errorf("repository installation: %v", err)
	}
	if _, _, err := app.Apps.FindRepositoryInstallation(ctx(t), "acme", "nope"); statusOf(err) != 404 {
		t.Errorf("installation of an unknown repository: %v", err)
	}
	tok, _, err := app.Apps.CreateInstallationToken(ctx(t), tinyInst, &github.InstallationTokenOptions{Repositories: []string{"widget"}})
	if err != nil || !strings.HasPrefix(tok.GetToken(), "ghs_") || tok.GetExpiresAt().Before(time.Now().Add(50*time.Minute)) || len(tok.Repositories) != 1 {
		t.Errorf("token: %v %+v", err, tok)
	}
	if _, _, err := app.Apps.CreateInstallationToken(ctx(t), tinyInst, &github.InstallationTokenOptions{Repositories: []string{"other"}}); statusOf(err) != 422 {
		t.Errorf("token for a repository outside the installation: %v", err)
	}
	if _, _, err := app.Actions.GetWorkflowRunByID(ctx(t), tinyOwner, tinyName, tinyTrigger); statusOf(err) != 403 {
		t.Errorf("repository endpoint with the app JWT: %v, want 403", err)
	}
	c := installClient(t, s)
	repos, _, err := c.Apps.ListRepos(ctx(t), nil)
	if err != nil || repos.GetTotalCount() != 1 || repos.Repositories[0].GetFullName() != tinyRepo || repos.Repositories[0].GetDefaultBranch() != "main" {
		t.Errorf("installation repositories: %v %+v", err, repos)
	}
}

func TestRepositoryAccess(t *testing.T) {
	s := startTiny(t, Options{TokenTTL: time.Second})
	tests := []struct {
		name   string
		client *github.Client
		want   int
	}{
		{"anonymous", github.NewClient(nil), 401},
		{"bad token", s.NewTokenClient("ghs_nope"), 401},
	}
	for _, tc := range tests {
		c := tc.client
		if c.BaseURL.Host == "api.github.com" {
			c, _ = c.WithEnterpriseURLs(s.URL(), s.URL())
		}
		if _, _, err := c.Actions.GetWorkflowRunByID(ctx(t), tinyOwner, tinyName, tinyTrigger); statusOf(err) != tc.want {
			t.Errorf("%s: %v, want %d", tc.name, err, tc.want)
		}
	}
	tok, _ := s.InstallationToken(tinyInst)
	c := s.NewTokenClient(tok)
	if _, _, err := c.Repositories.Get(ctx(t), tinyOwner, tinyName); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond)
	if _, _, err := c.Repositories.Get(ctx(t), tinyOwner, tinyName); statusOf(err) != 401 {
		t.Errorf("expired token: %v, want 401", err)
	}
	if err := s.SetInstallation(tinyRepo, 78); err != nil {
		t.Fatal(err)
	}
	tok, _ = s.InstallationToken(tinyInst)
	if _, _, err := s.NewTokenClient(tok).Repositories.Get(ctx(t), tinyOwner, tinyName); statusOf(err) != 404 {
		t.Errorf("repository of another installation: %v, want 404", err)
	}
	tok, _ = s.InstallationToken(78)
	if _, _, err := s.NewTokenClient(tok).Repositories.Get(ctx(t), "ACME", "Widget"); err != nil {
		t.Errorf("owner and name are case-insensitive: %v", err)
	}
}

func TestRateLimitHeaders(t *testing.T) {
	s := startTiny(t, Options{RateLimit: 100})
	c := installClient(t, s)
	var remaining []int
	for i := 0; i < 3; i++ {
		_, resp, err := c.Repositories.Get(ctx(t), tinyOwner, tinyName)
		if err != nil {
			t.Fatal(err)
		}
		remaining = append(remaining, resp.Rate.Remaining)
		if resp.Header.Get("X-RateLimit-Resource") != "core" || resp.Header.Get("X-RateLimit-Used") != fmt.Sprint(i+1) || resp.Rate.Limit != 100 {
			t.Errorf("headers: %v", resp.Header)
		}
	}
	if remaining[0] != 99 || remaining[2] != 97 {
		t.Errorf("remaining = %v", remaining)
	}
	limits, _, err := c.RateLimit.Get(ctx(t))
	if err != nil || limits.GetCore().Remaining != 97 {
		t.Errorf("/rate_limit: %v %+v (it must not count)", err, limits.GetCore())
	}
	s.SetRateRemaining("installation:77", 0)
	_, _, err = c.Repositories.Get(ctx(t), tinyOwner, tinyName)
	var rle *github.RateLimitError
	if !errors.As(err, &rle) || !strings.Contains(rle.Message, "installation ID 77") {
		t.Errorf("exhausted limit: %v, want *RateLimitError", err)
	}
}

func TestGHInstallationNarrowedToken(t *testing.T) {
	s := startTiny(t, Options{})
	atr, err := s.AppTransport()
	if err != nil {
		t.Fatal(err)
	}
	itr := ghinstallation.NewFromAppsTransport(atr, tinyInst)
	itr.BaseURL = atr.BaseURL
	itr.InstallationTokenOptions = &github.InstallationTokenOptions{Repositories: []string{"widget"}}
	tok, err := itr.Token(ctx(t))
	if err != nil || !strings.HasPrefix(tok, "ghs_") {
		t.Fatalf("token: %v", err)
	}
	repos, err := itr.Repositories()
	if err != nil || len(repos) != 1 || repos[0].GetName() != tinyName {
		t.Errorf("token repositories: %v %+v", err, repos)
	}
}

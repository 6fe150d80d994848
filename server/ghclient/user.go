package ghclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-github/v66/github"
)

// maxListPages bounds the pages read from one GitHub listing (100 items each).
const maxListPages = 20

// UserClient talks to GitHub with a user's token, for the dashboard's
// sign-in: the OAuth code exchange, the user, and the installations and
// repositories the user can access.
type UserClient struct {
	http   *http.Client
	apiURL *url.URL // with a trailing slash
	webURL string   // without a trailing slash
	id     string
	secret string
}

// NewUserClient returns a user client for an OAuth app (client id and
// secret) on the GitHub whose API and web roots are given (apiURL with a
// trailing slash, webURL without).
func NewUserClient(hc *http.Client, apiURL *url.URL, webURL, clientID, clientSecret string) *UserClient {
	if hc == nil {
		hc = http.DefaultClient
	}
	return &UserClient{http: hc, apiURL: apiURL, webURL: webURL, id: clientID, secret: clientSecret}
}

// WebURL is GitHub's web root, without a trailing slash.
func (c *UserClient) WebURL() string { return c.webURL }

// ErrOAuth is an OAuth error GitHub answered with.
var ErrOAuth = errors.New("GitHub refused the sign-in")

// AuthorizeURL is where the browser goes to approve the sign-in.
func (c *UserClient) AuthorizeURL(state, redirect string) string {
	q := url.Values{"client_id": {c.id}, "redirect_uri": {redirect}, "state": {state}}
	return c.webURL + "/login/oauth/authorize?" + q.Encode()
}

// Exchange trades an authorization code for a user token.
func (c *UserClient) Exchange(ctx context.Context, code, redirect string) (string, error) {
	form := url.Values{"client_id": {c.id}, "client_secret": {c.secret}, "code": {code}, "redirect_uri": {redirect}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.webURL+"/login/oauth/access_token",
		strings.NewReader(form.Encode()))
	if err != nil {
		return "", fmt.Errorf("token request: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return "", fmt.Errorf("exchange OAuth code: %w", err)
	}
	defer resp.Body.Close()
	var body struct {
		AccessToken string `json:"access_token"`
		Error       string `json:"error"`
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("exchange OAuth code: HTTP %d: %w", resp.StatusCode, ErrOAuth)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&body); err != nil {
		return "", fmt.Errorf("exchange OAuth code: decode answer: %w", err)
	}
	if body.Error != "" || body.AccessToken == "" {
		return "", fmt.Errorf("exchange OAuth code: %q: %w", body.Error, ErrOAuth)
	}
	return body.AccessToken, nil
}

// api returns a go-github client authenticated with a user token.
func (c *UserClient) api(token string) *github.Client {
	gh := github.NewClient(c.http).WithAuthToken(token)
	gh.BaseURL = c.apiURL
	return gh
}

// User returns the login and id of a token's user.
func (c *UserClient) User(ctx context.Context, token string) (string, int64, error) {
	u, _, err := c.api(token).Users.Get(ctx, "")
	if err != nil {
		return "", 0, fmt.Errorf("get signed-in user: %w", err)
	}
	return u.GetLogin(), u.GetID(), nil
}

// Grant is what a user can see: installations and their repositories, by
// id.
type Grant struct {
	Installations map[int64]bool
	Repos         map[int64]bool
}

// Access lists the installations and repositories a user token can access.
func (c *UserClient) Access(ctx context.Context, token string) (Grant, error) {
	gh := c.api(token)
	g := Grant{Installations: map[int64]bool{}, Repos: map[int64]bool{}}
	opts := &github.ListOptions{PerPage: 100}
	for page := 0; page < maxListPages; page++ {
		list, resp, err := gh.Apps.ListUserInstallations(ctx, opts)
		if err != nil {
			return Grant{}, fmt.Errorf("list installations of the user: %w", err)
		}
		for _, in := range list {
			g.Installations[in.GetID()] = true
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	for id := range g.Installations {
		if err := c.addRepos(ctx, gh, id, g.Repos); err != nil {
			return Grant{}, err
		}
	}
	return g, nil
}

// addRepos adds the repositories of one installation the user can access.
func (c *UserClient) addRepos(ctx context.Context, gh *github.Client, installationID int64, into map[int64]bool) error {
	opts := &github.ListOptions{PerPage: 100}
	for page := 0; page < maxListPages; page++ {
		list, resp, err := gh.Apps.ListUserRepos(ctx, installationID, opts)
		if err != nil {
			return fmt.Errorf("list repositories of installation %d for the user: %w", installationID, err)
		}
		for _, r := range list.Repositories {
			into[r.GetID()] = true
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	return nil
}

package ghclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v66/github"
)

// DefaultBaseURL is github.com's REST API.
const DefaultBaseURL = "https://api.github.com/"

// Config configures a Client.
type Config struct {
	// AppID and PrivateKey (PEM) identify the GitHub App.
	AppID      int64
	PrivateKey []byte
	// Token, instead of the app's credentials, authenticates every request
	// with a personal access token or GITHUB_TOKEN (polylane capture). Such
	// a client has no app: BotLogin fails, and Repo ignores the installation.
	// It is never logged.
	Token string
	// BaseURL is the REST API root: DefaultBaseURL (the default), GitHub
	// Enterprise Server's "https://HOST/api/v3/", or the simulator's.
	BaseURL string
	// Transport carries every request (nil: a clone of
	// http.DefaultTransport).
	Transport http.RoundTripper
	// Timeout bounds one HTTP request (0: 30 s).
	Timeout time.Duration
	// MaxWait is the longest rate-limit wait spent inside one call (0: one
	// minute); a longer wait returns *RateLimitedError.
	MaxWait time.Duration
	// Retries is how often a transient failure of an idempotent call is
	// retried (0: 4; negative: never).
	Retries int
	// SecondaryWait is the first wait after a secondary rate limit that
	// comes without Retry-After (0: one minute, GitHub's advice); it
	// doubles for each further one of the installation in a row.
	SecondaryWait time.Duration
	// WriteInterval is the least time between two content-creating
	// requests (POST, PATCH, PUT, DELETE) of one installation (0: no
	// spacing); GitHub asks integrators for a second.
	WriteInterval time.Duration
	// LogLimit bounds a downloaded job log in bytes (0: 256 MiB).
	LogLimit int64
	// Metrics receive the request counts (nil: none).
	Metrics *Metrics
	// Now is the clock for rate-limit resets (nil: time.Now).
	Now func() time.Time
}

// Client talks to GitHub as one GitHub App: as the app (JWT) for app
// endpoints and as each installation (a cached token per installation) for
// repositories. It is safe for concurrent use.
type Client struct {
	cfg     Config
	metrics *Metrics
	base    *url.URL
	atr     *ghinstallation.AppsTransport
	app     *github.Client
	plain   *http.Client // log downloads: no credentials
	now     func() time.Time

	mu       sync.Mutex
	installs map[int64]*install
	bot      string
	byToken  *github.Client // set when the client authenticates with Config.Token
}

// New parses the app's key once and prepares the client; it makes no
// request.
func New(cfg Config) (*Client, error) {
	if cfg.Token == "" && (cfg.AppID <= 0 || len(cfg.PrivateKey) == 0) {
		return nil, errors.New("github client: an app id and a private key, or a token, are required")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if !strings.HasSuffix(cfg.BaseURL, "/") {
		cfg.BaseURL += "/"
	}
	base, err := url.Parse(cfg.BaseURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("github client: base URL %q is not an http(s) URL", cfg.BaseURL)
	}
	if cfg.Transport == nil {
		cfg.Transport = http.DefaultTransport.(*http.Transport).Clone()
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.MaxWait <= 0 {
		cfg.MaxWait = defaultMaxWait
	}
	if cfg.Retries == 0 {
		cfg.Retries = defaultRetries
	}
	if cfg.SecondaryWait <= 0 {
		cfg.SecondaryWait = secondaryFloor
	}
	if cfg.LogLimit <= 0 {
		cfg.LogLimit = 256 << 20
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	counted := &countingTransport{base: cfg.Transport, metrics: cfg.Metrics}
	if cfg.Token != "" {
		return newTokenClient(cfg, base, counted)
	}
	atr, err := ghinstallation.NewAppsTransport(counted, cfg.AppID, cfg.PrivateKey)
	if err != nil {
		return nil, fmt.Errorf("github client: app key: %w", err)
	}
	atr.BaseURL = strings.TrimSuffix(cfg.BaseURL, "/")
	c := &Client{cfg: cfg, metrics: cfg.Metrics, base: base, atr: atr, now: cfg.Now,
		installs: map[int64]*install{},
		plain: &http.Client{Timeout: cfg.Timeout,
			Transport: &countingTransport{base: cfg.Transport, kind: KindBlob, metrics: cfg.Metrics}},
	}
	// App calls (the app itself, installation lookups) get the same
	// secondary-limit handling, with state of their own.
	if c.app, err = c.newGitHub(&installTransport{base: atr, floor: cfg.SecondaryWait}); err != nil {
		return nil, err
	}
	return c, nil
}

// newGitHub builds a go-github client over rt, pointed at the base URL.
func (c *Client) newGitHub(rt http.RoundTripper) (*github.Client, error) {
	gh := github.NewClient(&http.Client{Transport: rt, Timeout: c.cfg.Timeout})
	if c.cfg.BaseURL == DefaultBaseURL {
		return gh, nil
	}
	gh, err := gh.WithEnterpriseURLs(c.cfg.BaseURL, c.cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("github client: base URL %s: %w", c.cfg.BaseURL, err)
	}
	return gh, nil
}

// install is the cached client of one installation and the transport
// that holds its token (and the permissions the token was issued with).
type install struct {
	gh  *github.Client
	itr *ghinstallation.Transport
	tr  *installTransport
}

// installation returns the cached client of an installation: its token is
// exchanged on first use and reused until it nears expiry.
func (c *Client) installation(id int64) (*install, error) {
	if c.byToken != nil {
		return &install{gh: c.byToken}, nil
	}
	if id <= 0 {
		return nil, fmt.Errorf("github client: installation id %d is not valid", id)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if in, ok := c.installs[id]; ok {
		return in, nil
	}
	itr := ghinstallation.NewFromAppsTransport(c.atr, id)
	itr.BaseURL = c.atr.BaseURL
	tr := &installTransport{base: itr, interval: c.cfg.WriteInterval, floor: c.cfg.SecondaryWait}
	gh, err := c.newGitHub(tr)
	if err != nil {
		return nil, err
	}
	in := &install{gh: gh, itr: itr, tr: tr}
	c.installs[id] = in
	return in, nil
}

// ForgetInstallation drops an installation's cached token, so that the next
// call mints one with the installation's current permissions (after an
// admin accepted new ones, GitHub's new_permissions_accepted).
func (c *Client) ForgetInstallation(id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.installs, id)
}

// Granted returns the level ("read", "write", "admin", or "" when not
// granted) of one permission in the installation token in use; known is
// false before the first token of the repository's installation is minted,
// for a client with a plain token, and for a permission not listed here.
func (r *Repo) Granted(permission string) (level string, known bool) {
	if r == nil || r.itr == nil {
		return "", false
	}
	p, err := r.itr.Permissions()
	if err != nil {
		return "", false
	}
	switch permission {
	case "workflows":
		return p.GetWorkflows(), true
	case "actions":
		return p.GetActions(), true
	case "contents":
		return p.GetContents(), true
	case "pull_requests":
		return p.GetPullRequests(), true
	case "issues":
		return p.GetIssues(), true
	}
	return "", false
}

// Repo returns a handle on one repository ("owner/name") through an
// installation.
func (c *Client) Repo(installationID int64, fullName string) (*Repo, error) {
	owner, name, ok := strings.Cut(fullName, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return nil, fmt.Errorf("github client: %q is not owner/name", fullName)
	}
	in, err := c.installation(installationID)
	if err != nil {
		return nil, err
	}
	return &Repo{c: c, gh: in.gh, itr: in.itr, tr: in.tr, owner: owner, name: name}, nil
}

// BotLogin returns the login of the app's bot user, "<slug>[bot]", asking
// GitHub (as the app) once.
func (c *Client) BotLogin(ctx context.Context) (string, error) {
	if c.byToken != nil {
		return "", errors.New("get the app: a client with a token has no app")
	}
	c.mu.Lock()
	bot := c.bot
	c.mu.Unlock()
	if bot != "" {
		return bot, nil
	}
	var app *github.App
	err := c.do(ctx, "get the app", idempotent, func(ctx context.Context) (*github.Response, error) {
		var resp *github.Response
		var err error
		app, resp, err = c.app.Apps.Get(ctx, "")
		return resp, err
	})
	if err != nil {
		return "", err
	}
	if app.GetSlug() == "" {
		return "", errors.New("get the app: GitHub returned no slug")
	}
	bot = app.GetSlug() + "[bot]"
	c.mu.Lock()
	c.bot = bot
	c.mu.Unlock()
	return bot, nil
}

// InstallationURL returns the installation's settings page on GitHub (its
// html_url), where an owner reviews and accepts the app's permissions.
func (c *Client) InstallationURL(ctx context.Context, id int64) (string, error) {
	if c.byToken != nil {
		return "", errors.New("get the installation: a client with a token has no app")
	}
	var inst *github.Installation
	err := c.do(ctx, fmt.Sprintf("get installation %d", id), idempotent, func(ctx context.Context) (*github.Response, error) {
		var resp *github.Response
		var err error
		inst, resp, err = c.app.Apps.GetInstallation(ctx, id)
		return resp, err
	})
	if err != nil {
		return "", err
	}
	return inst.GetHTMLURL(), nil
}

// Repo is one repository seen through an installation.
type Repo struct {
	c           *Client
	gh          *github.Client
	itr         *ghinstallation.Transport // nil for a client with a plain token
	tr          *installTransport         // nil for a client with a plain token
	owner, name string
}

// Budget is the installation's primary rate limit as GitHub's last answer
// on it told; known is false before any answer.
func (r *Repo) Budget() (b Budget, known bool) {
	if r == nil || r.tr == nil {
		return Budget{}, false
	}
	r.tr.mu.Lock()
	defer r.tr.mu.Unlock()
	return r.tr.budget, r.tr.budget.Limit > 0
}

// FullName returns "owner/name".
func (r *Repo) FullName() string { return r.owner + "/" + r.name }

// Owner returns the repository's owner login.
func (r *Repo) Owner() string { return r.owner }

// newTokenClient builds a client that sends cfg.Token with every request.
func newTokenClient(cfg Config, base *url.URL, counted http.RoundTripper) (*Client, error) {
	c := &Client{cfg: cfg, metrics: cfg.Metrics, base: base, now: cfg.Now, installs: map[int64]*install{},
		plain: &http.Client{Timeout: cfg.Timeout,
			Transport: &countingTransport{base: cfg.Transport, kind: KindBlob, metrics: cfg.Metrics}},
	}
	gh, err := c.newGitHub(&tokenTransport{token: cfg.Token, base: counted})
	if err != nil {
		return nil, err
	}
	c.byToken, c.app = gh, gh
	return c, nil
}

// tokenTransport adds "Authorization: Bearer <token>" to each request,
// as GitHub expects a personal access token or GITHUB_TOKEN.
type tokenTransport struct {
	token string
	base  http.RoundTripper
}

func (t *tokenTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+t.token)
	return t.base.RoundTrip(r)
}

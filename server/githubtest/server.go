package githubtest

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// Options configure a Server. The zero value serves no repositories, on a
// free loopback port, for app 1 with a freshly generated key.
type Options struct {
	// Scenarios are scenario directories (contracts.md §1) to serve. Several
	// scenarios of one repository merge their runs.
	Scenarios []string
	// ScenarioFS are scenarios given as file systems rooted at a scenario
	// directory (an embedded example, a testing/fstest.MapFS), loaded after
	// Scenarios. Job logs are read from them when downloaded, so they must
	// stay readable while the server runs.
	ScenarioFS []fs.FS
	// Addr is the listen address; default "127.0.0.1:0" (a free port).
	Addr string
	// AppID is the GitHub App's id; default 1.
	AppID int64
	// AppSlug is the app's slug; its bot user is "<slug>[bot]". Default "polylane".
	AppSlug string
	// PrivateKey is the app's key. When both it and PublicKey are nil a
	// 2048-bit key is generated and PrivateKeyPEM returns it.
	PrivateKey *rsa.PrivateKey
	// PublicKey verifies app JWTs when the private key is kept elsewhere.
	PublicKey *rsa.PublicKey
	// WebhookSecret signs deliveries; default: random.
	WebhookSecret string
	// WebhookURL is where Deliver sends when given no URL (a manifest's
	// hook_attributes.url replaces it).
	WebhookURL string
	// ClientID and ClientSecret are the app's OAuth credentials; default random.
	ClientID, ClientSecret string
	// OAuthUser is the user /login/oauth/authorize signs in; default "octocat".
	OAuthUser string
	// Permissions are the repository permissions each installation holds
	// (default DefaultPermissions); endpoints refuse what they do not cover
	// as GitHub does. SetInstallationPermissions changes one installation's.
	Permissions map[string]string
	// TreeLimit is how many entries a recursive tree listing holds before
	// it is cut and marked truncated; default 100,000, GitHub's ("The limit
	// for the tree array is 100,000 entries with a maximum size of 7 MB",
	// REST reference, "Get a tree").
	TreeLimit int
	// ContentPerMinute is a secondary limit on content-creating requests
	// (POST, PATCH, PUT, DELETE) per installation and minute, answered as
	// GitHub may: 403 with the secondary-limit body and no Retry-After.
	// GitHub documents 80 a minute ("Secondary rate limits", REST docs);
	// 0 (the default) sets none.
	ContentPerMinute int
	// RateLimit is the primary limit per installation, user and app; default 5000.
	RateLimit int
	// TokenTTL is the lifetime of installation tokens; default 1 hour.
	TokenTTL time.Duration
	// LogURLTTL is how long a job-log download URL stays valid; default 1 minute.
	LogURLTTL time.Duration
	// HangLimit bounds how long a timeout fault holds a request when the
	// client never gives up; default 2 minutes.
	HangLimit time.Duration
	// TreeAtRunHeads serves a scenario's repo/ tree at the head commit of
	// every run, not only the trigger's and the default branch's, and points
	// each scenario pull request's head branch at its newest head, so that
	// any run of the scenario can act as a trigger (its harness files
	// resolve). Scenarios hold one tree, so older commits show today's files.
	TreeAtRunHeads bool
	// RerunCreatesAttempt makes POST …/rerun and …/rerun-failed-jobs add a
	// new queued attempt to the run (as GitHub does) instead of only
	// recording the write.
	RerunCreatesAttempt bool
	// Now is the clock for timestamps the simulator writes (comments, pull
	// requests, commits) and for job-log URL expiry; default time.Now.
	// Credentials (app JWTs, tokens, OAuth codes) and rate-limit windows
	// always use the wall clock, because clients sign and cache with it.
	Now func() time.Time
}

// Server is a running GitHub simulator. All methods are safe for concurrent
// use.
type Server struct {
	opts Options
	now  func() time.Time

	mu            sync.Mutex
	app           appIdentity
	repos         map[string]*repoState
	installations map[int64]*installation
	tokens        map[string]*token
	users         map[string]*User
	oauthCodes    map[string]*oauthCode
	manifests     map[string]*manifestCode
	rates         map[string]*rateState
	content       map[string][]time.Time // recent writes per caller, for ContentPerMinute
	blobs         map[string]*blobTicket
	calls         []Call
	writes        []Write
	deliveries    []Delivery
	faults        []*faultRule
	apiCalls      int
	recGen        int
	nextID        int64

	router   http.Handler
	listener net.Listener
	httpSrv  *http.Server
	closing  chan struct{}
	closed   sync.Once
	url      string
}

// New loads the scenarios and prepares a server without listening; Start
// begins serving. Most callers want Start(opts) instead.
func New(opts Options) (*Server, error) {
	if err := defaults(&opts); err != nil {
		return nil, err
	}
	s := &Server{
		opts: opts, now: opts.Now,
		repos: map[string]*repoState{}, installations: map[int64]*installation{},
		tokens: map[string]*token{}, users: map[string]*User{},
		oauthCodes: map[string]*oauthCode{}, manifests: map[string]*manifestCode{},
		rates: map[string]*rateState{}, content: map[string][]time.Time{}, blobs: map[string]*blobTicket{},
		nextID: 1_000_000_000, closing: make(chan struct{}),
	}
	if err := s.initApp(); err != nil {
		return nil, err
	}
	s.users[strings.ToLower(opts.OAuthUser)] = &User{Login: opts.OAuthUser, ID: 583231, Name: "The Octocat"}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, dir := range opts.Scenarios {
		if err := s.loadScenario(scenarioSource{fsys: os.DirFS(dir), dir: dir}); err != nil {
			return nil, fmt.Errorf("load scenario: %w", err)
		}
	}
	for i, fsys := range opts.ScenarioFS {
		if err := s.loadScenario(scenarioSource{fsys: fsys, dir: fmt.Sprintf("ScenarioFS[%d]", i)}); err != nil {
			return nil, fmt.Errorf("load scenario: %w", err)
		}
	}
	s.router = s.routes()
	return s, nil
}

// Start loads the scenarios and serves them on opts.Addr.
func Start(opts Options) (*Server, error) {
	s, err := New(opts)
	if err != nil {
		return nil, err
	}
	if err := s.Listen(); err != nil {
		return nil, err
	}
	return s, nil
}

// Listen starts serving on the configured address in the background.
func (s *Server) Listen() error {
	ln, err := net.Listen("tcp", s.opts.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.opts.Addr, err)
	}
	s.listener = ln
	s.url = "http://" + ln.Addr().String()
	s.httpSrv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.httpSrv.Serve(ln) }()
	return nil
}

// Close stops the server: hanging requests are released and connections
// closed.
func (s *Server) Close() {
	s.closed.Do(func() { close(s.closing) })
	if s.httpSrv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := s.httpSrv.Shutdown(ctx); err != nil {
			_ = s.httpSrv.Close()
		}
	}
}

// URL is the server's root, e.g. "http://127.0.0.1:41234". OAuth pages
// (/login/oauth/…) and the app-manifest page live here.
func (s *Server) URL() string { return s.url }

// APIURL is the REST base URL with a trailing slash,
// "http://127.0.0.1:41234/api/v3/", the GitHub Enterprise Server layout.
// Give it to go-github's WithEnterpriseURLs (which also accepts URL()) and,
// without the trailing slash, to ghinstallation's BaseURL. The API is also
// served at the root, so a client whose BaseURL is URL()+"/" works too.
func (s *Server) APIURL() string { return s.url + "/api/v3/" }

func defaults(o *Options) error {
	if o.Addr == "" {
		o.Addr = "127.0.0.1:0"
	}
	if o.AppID == 0 {
		o.AppID = 1
	}
	if o.AppSlug == "" {
		o.AppSlug = "polylane"
	}
	if o.OAuthUser == "" {
		o.OAuthUser = "octocat"
	}
	if o.RateLimit <= 0 {
		o.RateLimit = 5000
	}
	if o.Permissions == nil {
		o.Permissions = maps.Clone(DefaultPermissions)
	}
	if o.TreeLimit <= 0 {
		o.TreeLimit = maxTreeEntries
	}
	if o.TokenTTL <= 0 {
		o.TokenTTL = time.Hour
	}
	if o.LogURLTTL <= 0 {
		o.LogURLTTL = time.Minute
	}
	if o.HangLimit <= 0 {
		o.HangLimit = 2 * time.Minute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	var err error
	for _, p := range []*string{&o.WebhookSecret, &o.ClientID, &o.ClientSecret} {
		if *p == "" && err == nil {
			*p, err = randomString(20)
			if p == &o.ClientID && err == nil {
				*p = "Iv1." + (*p)[:16]
			}
		}
	}
	return err
}

// randomString returns n random lower-case letters and digits.
func randomString(n int) (string, error) {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random: %w", err)
	}
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b), nil
}

// mustRandom is randomString for callers that cannot fail usefully;
// crypto/rand does not fail on supported platforms.
func mustRandom(n int) string {
	v, err := randomString(n)
	if err != nil {
		panic(err)
	}
	return v
}

// newID returns a fresh object id. Callers hold s.mu.
func (s *Server) newID() int64 {
	s.nextID++
	return s.nextID
}

// repo looks up a repository by owner and name. Callers hold s.mu.
func (s *Server) repo(owner, name string) *repoState { return s.repos[repoKey(owner, name)] }

// errUnknownRepo is returned by control methods for a repository the
// simulator does not serve.
var errUnknownRepo = errors.New("unknown repository")

// lookupRepo finds a repository by "owner/name". Callers hold s.mu.
func (s *Server) lookupRepo(full string) (*repoState, error) {
	owner, name, _ := strings.Cut(full, "/")
	r := s.repo(owner, name)
	if r == nil {
		return nil, fmt.Errorf("%w %q", errUnknownRepo, full)
	}
	return r, nil
}

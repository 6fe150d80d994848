package dashboard

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/polylane/polylane/server"
	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/store"
)

// Defaults of Options.
const (
	DefaultAccessTTL  = time.Minute
	DefaultSessionTTL = 8 * time.Hour
	DefaultWindowDays = 30
)

// Options configure the dashboard.
type Options struct {
	// Store is where every page reads from.
	Store store.Store
	// Public serves public repositories only, to anyone, without sign-in.
	Public bool
	// ClientID and ClientSecret are the GitHub App's OAuth credentials;
	// without them (and without Public) nobody can sign in.
	ClientID, ClientSecret string
	// SessionSecret signs and encrypts cookies (at least 32 bytes). Empty:
	// a random one, so sessions end when the process stops.
	SessionSecret []byte
	// InsecureCookies drops the Secure attribute, for plain-HTTP localhost.
	InsecureCookies bool
	// GitHubAPIURL is the REST API base (default https://api.github.com/).
	GitHubAPIURL string
	// GitHubURL is GitHub's web base for OAuth pages and links (default: from
	// GitHubAPIURL: https://github.com for api.github.com, otherwise the API
	// URL without "/api/v3/").
	GitHubURL string
	// BaseURL is the dashboard's public URL, for the OAuth callback; empty:
	// from each request's Host, which the client chooses (serve refuses
	// sign-in without it).
	BaseURL string
	// AccessTTL is how long a session's installations and repositories are
	// cached (0: DefaultAccessTTL).
	AccessTTL time.Duration
	// SessionTTL is how long a sign-in lasts (0: DefaultSessionTTL).
	SessionTTL time.Duration
	// HTTPClient calls GitHub (nil: a client with a 15 s timeout).
	HTTPClient *http.Client
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Dashboard serves the dashboard's pages, its JSON API under /api/v1/, the
// sign-in flow and the static assets.
type Dashboard struct {
	opts   Options
	st     store.Store
	jar    cookieJar
	gh     *ghclient.UserClient
	grants *grantCache
	pages  map[string]*template.Template
	now    func() time.Time
}

// New checks the options and prepares the dashboard.
func New(opts Options) (*Dashboard, error) {
	if opts.Store == nil {
		return nil, errors.New("dashboard: a store is required")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.AccessTTL <= 0 {
		opts.AccessTTL = DefaultAccessTTL
	}
	if opts.SessionTTL <= 0 {
		opts.SessionTTL = DefaultSessionTTL
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Timeout: 15 * time.Second}
	}
	secret := opts.SessionSecret
	if len(secret) == 0 {
		secret = []byte(randomToken(48))
	}
	seal, err := newSealer(secret)
	if err != nil {
		return nil, fmt.Errorf("dashboard: %w", err)
	}
	gh, err := newUserClient(opts)
	if err != nil {
		return nil, err
	}
	pages, err := parseTemplates()
	if err != nil {
		return nil, err
	}
	d := &Dashboard{opts: opts, st: opts.Store, gh: gh, pages: pages, now: opts.Now,
		jar: cookieJar{sealer: seal, secure: !opts.InsecureCookies, now: opts.Now}}
	d.grants = &grantCache{ttl: opts.AccessTTL, now: opts.Now, fetch: gh.Access,
		entries: map[string]cachedGrant{}, loading: map[string]*sync.Mutex{}}
	return d, nil
}

// newUserClient builds the GitHub user client from the options.
func newUserClient(opts Options) (*ghclient.UserClient, error) {
	api := opts.GitHubAPIURL
	if api == "" {
		api = "https://api.github.com/"
	}
	if !strings.HasSuffix(api, "/") {
		api += "/"
	}
	u, err := url.Parse(api)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("dashboard: GitHub API URL %q is not an http(s) URL", api)
	}
	web := strings.TrimSuffix(opts.GitHubURL, "/")
	if web == "" {
		web = webURLOf(u)
	}
	return ghclient.NewUserClient(opts.HTTPClient, u, web, opts.ClientID, opts.ClientSecret), nil
}

// webURLOf derives GitHub's web base from its API base.
func webURLOf(api *url.URL) string {
	if strings.EqualFold(api.Host, "api.github.com") {
		return "https://github.com"
	}
	p := strings.TrimSuffix(strings.TrimSuffix(api.Path, "/"), "/api/v3")
	return strings.TrimSuffix(api.Scheme+"://"+api.Host+p, "/")
}

// signInEnabled reports whether users can sign in.
func (d *Dashboard) signInEnabled() bool { return d.opts.ClientID != "" && d.opts.ClientSecret != "" }

// Mount adds the dashboard's routes to a server.
func (d *Dashboard) Mount(srv *server.Server) { srv.Mount("/", d.Routes()) }

// Routes returns the dashboard's router.
func (d *Dashboard) Routes() http.Handler {
	r := chi.NewRouter()
	r.Use(securityHeaders)
	r.NotFound(func(w http.ResponseWriter, r *http.Request) { d.notFound(w, r) })
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	})
	r.Get("/static/*", serveStatic)
	r.Get("/login", d.loginPage)
	r.Get("/auth/github", d.startSignIn)
	r.Get("/auth/callback", d.callback)
	r.Post("/logout", d.signOut)
	r.Group(func(r chi.Router) {
		r.Use(d.requireViewer(false))
		r.Get("/", d.html("overview", d.overview))
		r.Get("/installations/{installation}", d.html("installation", d.installation))
		r.Get("/repos/{owner}/{repo}", d.html("repository", d.repository))
		r.Get("/repos/{owner}/{repo}/diagnoses", d.html("diagnoses", d.diagnoses))
		r.Get("/repos/{owner}/{repo}/classes/{class}", d.html("class", d.class))
		r.Get("/repos/{owner}/{repo}/diagnoses/{id}", d.html("diagnosis", d.diagnosis))
	})
	r.Route("/api/v1", func(r chi.Router) {
		r.Use(d.requireViewer(true))
		r.Get("/overview", d.json(d.overview))
		r.Get("/installations/{installation}", d.json(d.installation))
		r.Get("/repos/{owner}/{repo}", d.json(d.repository))
		r.Get("/repos/{owner}/{repo}/diagnoses", d.json(d.diagnoses))
		r.Get("/repos/{owner}/{repo}/classes/{class}", d.json(d.class))
		r.Get("/repos/{owner}/{repo}/diagnoses/{id}", d.json(d.diagnosis))
	})
	return r
}

// viewerKey carries the viewer in a request context.
type viewerKey struct{}

// viewerOf returns the request's viewer (set by requireViewer).
func viewerOf(ctx context.Context) *viewer {
	v, _ := ctx.Value(viewerKey{}).(*viewer)
	return v
}

// requireViewer resolves who is looking: anyone in public mode, otherwise a
// signed-in user whose ghclient.Grant is read (or taken from the cache). Without a
// session, pages redirect to the sign-in page and the API answers 401.
func (d *Dashboard) requireViewer(api bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if d.opts.Public {
				next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), viewerKey{}, &viewer{public: true})))
				return
			}
			s, ok, err := d.currentSession(r)
			if err != nil {
				server.Logger(r.Context()).Error().Err(err).Msg("read the session")
				d.fail(w, r, api, http.StatusServiceUnavailable, "the dashboard cannot check your session; try again shortly")
				return
			}
			if !ok {
				if api {
					writeJSONError(w, http.StatusUnauthorized, "sign in first: GET /login")
					return
				}
				http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			g, err := d.grants.get(r.Context(), s)
			if err != nil {
				server.Logger(r.Context()).Warn().Err(err).Str("login", s.Login).Msg("read the user's GitHub access")
				d.fail(w, r, api, http.StatusBadGateway, "GitHub did not say what you can access; try again shortly")
				return
			}
			v := &viewer{session: s, grant: g, csrf: d.jar.sealer.csrfToken(s.ID)}
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), viewerKey{}, v)))
		})
	}
}

// securityHeaders sets the headers every dashboard response carries.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "+
			"script-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
		next.ServeHTTP(w, r)
	})
}

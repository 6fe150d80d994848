package dashboard

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/polylane/polylane/server"
	"github.com/polylane/polylane/store"
)

// stateTTL bounds the time between leaving for GitHub and coming back.
const stateTTL = 10 * time.Minute

// safeNext returns a local path to go to after signing in ("/" otherwise):
// never another host, so the sign-in cannot redirect elsewhere.
func safeNext(next string) string {
	if next == "" || len(next) > 2048 || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") ||
		strings.ContainsAny(next, "\\\r\n\t") {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Host != "" || u.Scheme != "" {
		return "/"
	}
	return next
}

// callbackURL is the OAuth redirect URI of this dashboard.
func (d *Dashboard) callbackURL(r *http.Request) string {
	if d.opts.BaseURL != "" {
		return strings.TrimSuffix(d.opts.BaseURL, "/") + "/auth/callback"
	}
	scheme := "http"
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		scheme = "https"
	}
	return scheme + "://" + r.Host + "/auth/callback"
}

// loginData is the sign-in page's data.
type loginData struct {
	Enabled bool
	Next    string
	Error   string
}

// loginPage shows the sign-in button (or, in public mode, goes home).
func (d *Dashboard) loginPage(w http.ResponseWriter, r *http.Request) {
	if d.opts.Public {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	if _, ok, err := d.currentSession(r); ok && err == nil {
		http.Redirect(w, r, safeNext(r.URL.Query().Get("next")), http.StatusSeeOther)
		return
	}
	data := loginData{Enabled: d.signInEnabled(), Next: safeNext(r.URL.Query().Get("next"))}
	if r.URL.Query().Get("error") != "" {
		data.Error = "Signing in with GitHub did not work. Please try again."
	}
	d.render(w, r, http.StatusOK, "login", pageMeta{Title: "Sign in"}, data)
}

// startSignIn sends the browser to GitHub's authorization page with a fresh
// state, which a cookie remembers.
func (d *Dashboard) startSignIn(w http.ResponseWriter, r *http.Request) {
	if d.opts.Public || !d.signInEnabled() {
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return
	}
	st := oauthState{State: randomToken(32), Next: safeNext(r.URL.Query().Get("next")),
		Expires: d.now().Add(stateTTL).Unix()}
	if err := d.jar.set(w, stateCookie, "/auth/", st, d.now().Add(stateTTL)); err != nil {
		d.fail(w, r, false, http.StatusInternalServerError, "could not start signing in")
		return
	}
	http.Redirect(w, r, d.gh.AuthorizeURL(st.State, d.callbackURL(r)), http.StatusFound)
}

// callback finishes the sign-in: it checks the state, exchanges the code
// for a user token, reads the user and sets the session cookie.
func (d *Dashboard) callback(w http.ResponseWriter, r *http.Request) {
	log := server.Logger(r.Context())
	st, ok := d.jar.state(r)
	d.jar.clear(w, stateCookie, "/auth/")
	got := r.URL.Query().Get("state")
	if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(st.State)) != 1 {
		log.Warn().Msg("sign-in callback with a missing or wrong state")
		http.Redirect(w, r, "/login?error=state", http.StatusSeeOther)
		return
	}
	code := r.URL.Query().Get("code")
	if code == "" || len(code) > 512 {
		http.Redirect(w, r, "/login?error=code", http.StatusSeeOther)
		return
	}
	token, err := d.gh.Exchange(r.Context(), code, d.callbackURL(r))
	if err != nil {
		log.Warn().Err(err).Msg("sign-in: code exchange failed")
		http.Redirect(w, r, "/login?error=exchange", http.StatusSeeOther)
		return
	}
	login, id, err := d.gh.User(r.Context(), token)
	if err != nil {
		log.Warn().Err(err).Msg("sign-in: reading the user failed")
		http.Redirect(w, r, "/login?error=user", http.StatusSeeOther)
		return
	}
	now := d.now()
	exp := now.Add(d.opts.SessionTTL)
	s := session{ID: randomToken(24), UserID: id, Login: login, Token: token, Expires: exp.Unix()}
	err = d.st.CreateSession(r.Context(), store.DashboardSession{ID: s.key(), UserID: id, Login: login, CreatedAt: now, ExpiresAt: exp})
	if err != nil {
		log.Error().Err(err).Msg("sign-in: store the session")
		d.fail(w, r, false, http.StatusInternalServerError, "could not start the session")
		return
	}
	if err := d.jar.set(w, sessionCookie, "/", s, exp); err != nil {
		d.fail(w, r, false, http.StatusInternalServerError, "could not start the session")
		return
	}
	log.Info().Str("login", login).Msg("signed in to the dashboard")
	http.Redirect(w, r, st.Next, http.StatusSeeOther)
}

// signOut ends the session, on the server (the store forgets it, for every
// replica) and in the browser; it is a POST with the session's CSRF token.
func (d *Dashboard) signOut(w http.ResponseWriter, r *http.Request) {
	s, ok := d.jar.session(r)
	if !ok {
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return
	}
	if err := r.ParseForm(); err != nil || !d.jar.sealer.checkCSRF(s.ID, r.PostForm.Get("csrf")) || !sameOrigin(r) {
		d.fail(w, r, false, http.StatusForbidden, "the sign-out form expired; reload the page and try again")
		return
	}
	if err := d.st.DeleteSession(r.Context(), s.key()); err != nil {
		server.Logger(r.Context()).Error().Err(err).Msg("sign-out: delete the session")
		d.fail(w, r, false, http.StatusServiceUnavailable, "signing out did not work; try again shortly")
		return
	}
	d.grants.forget(s.ID)
	d.jar.clear(w, sessionCookie, "/")
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// sameOrigin rejects a cross-site form post: when the browser says where
// the request comes from, it must be this host.
func sameOrigin(r *http.Request) bool {
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" || origin == "null" {
		return origin == ""
	}
	u, err := url.Parse(origin)
	return err == nil && strings.EqualFold(u.Host, r.Host)
}

// currentSession returns the request's session: its cookie verifies and
// has not expired, and the store still holds it (signing out, on any
// replica, deletes it).
func (d *Dashboard) currentSession(r *http.Request) (session, bool, error) {
	s, ok := d.jar.session(r)
	if !ok {
		return session{}, false, nil
	}
	held, err := d.st.GetSession(r.Context(), s.key())
	switch {
	case errors.Is(err, store.ErrNotFound):
		return session{}, false, nil
	case err != nil:
		return session{}, false, err
	case held.UserID != s.UserID || !d.now().Before(held.ExpiresAt):
		return session{}, false, nil
	}
	return s, true, nil
}

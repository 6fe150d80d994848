package githubtest

import (
	"encoding/json"
	"hash/fnv"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
)

// User is a GitHub user the simulator knows: it can sign in through OAuth,
// comment, and react.
type User struct {
	Login string
	ID    int64
	Name  string
	// Installations are the installations the user can see through
	// /user/installations; nil means every installation.
	Installations []int64
}

func (u *User) canSee(id int64) bool {
	if u.Installations == nil {
		return true
	}
	for _, have := range u.Installations {
		if have == id {
			return true
		}
	}
	return false
}

// AddUser adds or replaces a user. A zero ID is derived from the login.
func (s *Server) AddUser(u User) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u.ID == 0 {
		u.ID = userID(u.Login)
	}
	s.users[strings.ToLower(u.Login)] = &u
}

// ensureUser returns the user, creating one with access to every
// installation if needed. Callers hold s.mu.
func (s *Server) ensureUser(login string) *User {
	k := strings.ToLower(login)
	if u := s.users[k]; u != nil {
		return u
	}
	u := &User{Login: login, ID: userID(login)}
	s.users[k] = u
	return u
}

// userID derives a stable user id from a login.
func userID(login string) int64 {
	h := fnv.New32a()
	h.Write([]byte(strings.ToLower(login)))
	return int64(h.Sum32()%90_000_000) + 10_000_000
}

// oauthCode is an authorization code waiting to be exchanged.
type oauthCode struct {
	login       string
	redirectURI string
	expires     time.Time
}

// handleAuthorize serves GET /login/oauth/authorize: it approves at once for
// the configured user (or the user a "login" parameter names) and redirects
// to redirect_uri with the code and state.
func (s *Server) handleAuthorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("client_id") != s.opts.ClientID {
		http.Error(w, "The client_id is not valid.", http.StatusNotFound)
		return
	}
	redirect, err := url.Parse(q.Get("redirect_uri"))
	if err != nil || redirect.Scheme == "" || redirect.Host == "" {
		http.Error(w, "The redirect_uri is missing or not valid.", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	login := s.opts.OAuthUser
	if l := q.Get("login"); l != "" {
		login = s.ensureUser(l).Login
	}
	code := mustRandom(20)
	s.oauthCodes[code] = &oauthCode{login: login, redirectURI: redirect.String(), expires: time.Now().Add(10 * time.Minute)}
	s.mu.Unlock()
	rq := redirect.Query()
	rq.Set("code", code)
	if st := q.Get("state"); st != "" {
		rq.Set("state", st)
	}
	redirect.RawQuery = rq.Encode()
	http.Redirect(w, r, redirect.String(), http.StatusFound)
}

// handleAccessTokenExchange serves POST /login/oauth/access_token. Like
// GitHub it answers 200 even for errors, with an "error" field, in JSON when
// the client accepts JSON and form-encoded otherwise.
func (s *Server) handleAccessTokenExchange(w http.ResponseWriter, r *http.Request) {
	params := url.Values{}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		var body map[string]any
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&body); err == nil {
			for k, v := range body {
				params.Set(k, jsonString(v))
			}
		}
	} else if err := r.ParseForm(); err == nil {
		params = r.Form
	}
	reply := func(v map[string]string) {
		if strings.Contains(r.Header.Get("Accept"), "json") {
			writeJSON(w, http.StatusOK, v)
			return
		}
		form := url.Values{}
		for k, val := range v {
			form.Set(k, val)
		}
		w.Header().Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
		_, _ = w.Write([]byte(form.Encode()))
	}
	if params.Get("client_id") != s.opts.ClientID || params.Get("client_secret") != s.opts.ClientSecret {
		reply(map[string]string{"error": "incorrect_client_credentials",
			"error_description": "The client_id and/or client_secret passed are incorrect."})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.oauthCodes[params.Get("code")]
	delete(s.oauthCodes, params.Get("code"))
	if c == nil || !time.Now().Before(c.expires) {
		reply(map[string]string{"error": "bad_verification_code", "error_description": "The code passed is incorrect or expired."})
		return
	}
	if ru := params.Get("redirect_uri"); ru != "" && ru != c.redirectURI {
		reply(map[string]string{"error": "redirect_uri_mismatch",
			"error_description": "The redirect_uri MUST match the registered callback URL for this application."})
		return
	}
	s.ensureUser(c.login)
	tok := s.issueToken("ghu_", &token{kind: kindUser, login: c.login, expires: time.Now().Add(8 * time.Hour)})
	reply(map[string]string{"access_token": tok, "token_type": "bearer", "scope": "",
		"expires_in": "28800", "refresh_token": "ghr_" + mustRandom(36), "refresh_token_expires_in": "15897600"})
}

// jsonString renders a decoded JSON value as a string parameter.
func jsonString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// handleUser serves GET /user for a user token.
func (s *Server) handleUser(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.ensureUser(principalOf(r).login)
	body := s.accountJSON(account{Login: u.Login, ID: u.ID, Type: "User"})
	body["name"] = orNil(u.Name)
	writeJSON(w, http.StatusOK, body)
}

// handleUserInstallations serves GET /user/installations.
func (s *Server) handleUserInstallations(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.ensureUser(principalOf(r).login)
	all := s.sortedInstallations(u.canSee)
	pg := pageOf(r)
	lo, hi := pg.bounds(len(all))
	list := []map[string]any{}
	for _, inst := range all[lo:hi] {
		list = append(list, s.installationJSON(inst))
	}
	setLink(w, r, pg, len(all))
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(all), "installations": list})
}

// handleUserInstallationRepos serves GET /user/installations/{id}/repositories.
func (s *Server) handleUserInstallationRepos(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.ensureUser(principalOf(r).login)
	inst := s.installations[id]
	if inst == nil || !u.canSee(id) {
		notFound(w)
		return
	}
	var list []json.RawMessage
	for _, k := range inst.Repos {
		list = append(list, s.repoJSON(s.repos[k]))
	}
	pg := pageOf(r)
	lo, hi := pg.bounds(len(list))
	setLink(w, r, pg, len(list))
	body := listEnvelope("repositories", len(list), list[lo:hi])
	writeJSON(w, http.StatusOK, append(body[:len(body)-1], []byte(`,"repository_selection":"selected"}`)...))
}

// orNil returns nil (JSON null) for an empty string.
func orNil(v string) any {
	if v == "" {
		return nil
	}
	return v
}

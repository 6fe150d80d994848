package githubtest

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
)

// urlParam returns a decoded route parameter (chi matches on the escaped
// path when the request has one, so "%2F" reaches handlers escaped).
func urlParam(r *http.Request, name string) string {
	v := chi.URLParam(r, name)
	if r.URL.RawPath != "" {
		if u, err := url.PathUnescape(v); err == nil {
			return u
		}
	}
	return v
}

// repoOf returns the repository the access middleware resolved.
func repoOf(r *http.Request) *repoState {
	repo, _ := r.Context().Value(ctxRepo).(*repoState)
	return repo
}

// accountJSON renders a user or bot the way the REST API embeds one.
// Callers hold s.mu.
func (s *Server) accountJSON(a account) map[string]any {
	api := s.APIURL() + "users/" + url.PathEscape(a.Login)
	html := s.url + "/" + url.PathEscape(a.Login)
	if a.Type == "Bot" {
		html = s.url + "/apps/" + url.PathEscape(strings.TrimSuffix(a.Login, "[bot]"))
	}
	return map[string]any{
		"login": a.Login, "id": a.ID, "node_id": nodeID("MDQ6VXNlcg", a.ID),
		"avatar_url": "https://avatars.githubusercontent.com/u/" + itoa(a.ID) + "?v=4", "gravatar_id": "",
		"url": api, "html_url": html, "followers_url": api + "/followers",
		"following_url": api + "/following{/other_user}", "gists_url": api + "/gists{/gist_id}",
		"starred_url": api + "/starred{/owner}{/repo}", "subscriptions_url": api + "/subscriptions",
		"organizations_url": api + "/orgs", "repos_url": api + "/repos",
		"events_url": api + "/events{/privacy}", "received_events_url": api + "/received_events",
		"type": orDefault(a.Type, "User"), "user_view_type": "public", "site_admin": false,
	}
}

// botAccount is the app's bot user. Callers hold s.mu.
func (s *Server) botAccount() account {
	return account{Login: s.app.botLogin(), ID: s.app.botID, Type: "Bot"}
}

// actorAccount is the account a write is attributed to: the app's bot for
// installation tokens, the user for user tokens. Callers hold s.mu.
func (s *Server) actorAccount(p principal) account {
	if p.kind == kindUser {
		u := s.ensureUser(p.login)
		return account{Login: u.Login, ID: u.ID, Type: "User"}
	}
	return s.botAccount()
}

// repoJSON renders a repository object, keeping every field the scenario
// gave it. Callers hold s.mu.
func (s *Server) repoJSON(repo *repoState) json.RawMessage {
	meta := make(map[string]json.RawMessage, len(repo.meta)+4)
	for k, v := range repo.meta {
		meta[k] = v
	}
	set := func(k string, v any) {
		if _, ok := meta[k]; !ok {
			b, _ := json.Marshal(v)
			meta[k] = b
		}
	}
	set("id", repo.id)
	set("name", repo.name)
	set("full_name", repo.fullName())
	set("private", repo.private)
	set("default_branch", repo.defaultBranch)
	set("owner", s.accountJSON(account{Login: repo.owner, ID: repo.ownerID, Type: orDefault(repo.ownerType, "Organization")}))
	set("html_url", s.url+"/"+repo.fullName())
	set("url", s.APIURL()+"repos/"+repo.fullName())
	b, _ := json.Marshal(meta)
	return b
}

// handleGetRepo serves GET /repos/{o}/{r}.
func (s *Server) handleGetRepo(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	writeJSON(w, http.StatusOK, s.repoJSON(repoOf(r)))
}

// repoAPI is the API URL of a repository path, e.g. repoAPI(repo, "pulls/1").
// Callers hold s.mu.
func (s *Server) repoAPI(repo *repoState, rest string) string {
	return s.APIURL() + "repos/" + repo.fullName() + "/" + rest
}

// repoHTML is the web URL of a repository path.
func (s *Server) repoHTML(repo *repoState, rest string) string {
	return s.url + "/" + repo.fullName() + "/" + rest
}

// itoa formats an id.
func itoa(v int64) string { return strconv.FormatInt(v, 10) }

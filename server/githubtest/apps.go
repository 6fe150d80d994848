package githubtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
)

// installation is an installation of the app on an account.
type installation struct {
	ID        int64
	Account   actorRef
	Repos     []string // repository keys, in installation order
	CreatedAt time.Time
	perms     map[string]string // nil: Options.Permissions
}

// appEvents are the events the simulated app subscribes to.
var appEvents = []string{"installation", "installation_repositories", "issue_comment", "pull_request", "workflow_run"}

// installRepo adds a repository to an installation, creating the
// installation for the repository's owner on first use. Callers hold s.mu.
func (s *Server) installRepo(repo *repoState, id int64) {
	if id == 0 {
		return
	}
	repo.installationID = id
	inst := s.installations[id]
	if inst == nil {
		inst = &installation{ID: id, CreatedAt: s.now().Add(-time.Hour),
			Account: actorRef{Login: repo.owner, ID: repo.ownerID, Type: orDefault(repo.ownerType, "Organization")}}
		s.installations[id] = inst
	}
	k := repoKey(repo.owner, repo.name)
	for _, have := range inst.Repos {
		if have == k {
			return
		}
	}
	inst.Repos = append(inst.Repos, k)
}

// canAccess reports whether the caller may use the repository. Callers
// hold s.mu.
func (s *Server) canAccess(p principal, repo *repoState) bool {
	switch p.kind {
	case kindInstallation:
		return repo.installationID == p.installationID && (p.repos == nil || p.repos[repoKey(repo.owner, repo.name)])
	case kindUser:
		u := s.users[strings.ToLower(p.login)]
		return u != nil && repo.installationID != 0 && u.canSee(repo.installationID)
	}
	return false
}

// installationJSON renders an installation. Callers hold s.mu.
func (s *Server) installationJSON(inst *installation) map[string]any {
	return map[string]any{
		"id": inst.ID, "node_id": nodeID("MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9u", inst.ID),
		"account":              s.accountJSON(account{Login: inst.Account.Login, ID: inst.Account.ID, Type: inst.Account.Type}),
		"repository_selection": "selected",
		"access_tokens_url":    fmt.Sprintf("%sapp/installations/%d/access_tokens", s.APIURL(), inst.ID),
		"repositories_url":     s.APIURL() + "installation/repositories",
		"html_url":             fmt.Sprintf("%s/organizations/%s/settings/installations/%d", s.url, inst.Account.Login, inst.ID),
		"app_id":               s.app.ID, "app_slug": s.app.Slug,
		"target_id": inst.Account.ID, "target_type": inst.Account.Type,
		"permissions": s.installationPerms(inst.ID), "events": appEvents,
		"created_at": ts(inst.CreatedAt), "updated_at": ts(inst.CreatedAt),
		"single_file_name": nil, "has_multiple_single_files": false, "single_file_paths": []string{},
		"suspended_by": nil, "suspended_at": nil,
	}
}

// appJSON renders the app. Callers hold s.mu.
func (s *Server) appJSON() map[string]any {
	owner := account{Login: "polylane-dev", ID: 1, Type: "Organization"}
	if all := s.sortedInstallations(nil); len(all) > 0 {
		owner = account{Login: all[0].Account.Login, ID: all[0].Account.ID, Type: all[0].Account.Type}
	}
	return map[string]any{
		"id": s.app.ID, "slug": s.app.Slug, "node_id": nodeID("MDM6QXBw", s.app.ID), "client_id": s.opts.ClientID,
		"owner": s.accountJSON(owner), "name": s.app.Name, "description": "Diagnoses failing GitHub Actions runs.",
		"external_url": s.url, "html_url": s.url + "/apps/" + s.app.Slug,
		"created_at": ts(s.app.createdAt), "updated_at": ts(s.app.createdAt),
		"permissions": s.opts.Permissions, "events": appEvents, "installations_count": len(s.installations),
	}
}

func (s *Server) handleGetApp(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	writeJSON(w, http.StatusOK, s.appJSON())
}

// sortedInstallations lists installations by id. Callers hold s.mu.
func (s *Server) sortedInstallations(keep func(int64) bool) []*installation {
	var out []*installation
	for _, inst := range s.installations {
		if keep == nil || keep(inst.ID) {
			out = append(out, inst)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func (s *Server) handleListInstallations(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	all := s.sortedInstallations(nil)
	pg := pageOf(r)
	lo, hi := pg.bounds(len(all))
	out := []map[string]any{}
	for _, inst := range all[lo:hi] {
		out = append(out, s.installationJSON(inst))
	}
	setLink(w, r, pg, len(all))
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleGetInstallation(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	inst := s.installations[id]
	if inst == nil {
		notFound(w)
		return
	}
	writeJSON(w, http.StatusOK, s.installationJSON(inst))
}

func (s *Server) handleRepoInstallation(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	repo := s.repo(urlParam(r, "owner"), urlParam(r, "repo"))
	if repo == nil || s.installations[repo.installationID] == nil {
		notFound(w)
		return
	}
	writeJSON(w, http.StatusOK, s.installationJSON(s.installations[repo.installationID]))
}

// handleAccessToken serves POST /app/installations/{id}/access_tokens,
// optionally narrowed to some repositories.
func (s *Server) handleAccessToken(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	var req struct {
		Repositories  []string          `json:"repositories"`
		RepositoryIDs []int64           `json:"repository_ids"`
		Permissions   map[string]string `json:"permissions"`
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
	if err != nil || (len(bytes.TrimSpace(body)) > 0 && json.Unmarshal(body, &req) != nil) {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	inst := s.installations[id]
	if inst == nil {
		notFound(w)
		return
	}
	t := &token{kind: kindInstallation, installationID: id, expires: time.Now().Add(s.opts.TokenTTL).Truncate(time.Second)}
	repos, ok := s.narrowRepos(inst, req.Repositories, req.RepositoryIDs)
	if !ok {
		writeValidation(w, "There is at least one repository that does not exist or is not accessible to the parent installation.")
		return
	}
	t.repos = repos
	perms := s.installationPerms(id)
	if len(req.Permissions) > 0 {
		if !grantable(perms, req.Permissions) {
			// GitHub's answer when a token asks for more than the
			// installation holds (docs: "Create an installation access
			// token for an app", 422 "Validation failed").
			writeValidation(w, "The permissions requested are not granted to this installation.")
			return
		}
		perms = req.Permissions
	}
	t.perms = perms
	out := map[string]any{
		"token": s.issueToken("ghs_", t), "expires_at": ts(t.expires),
		"permissions": perms, "repository_selection": "selected",
	}
	if repos != nil {
		var list []json.RawMessage
		for _, k := range inst.Repos {
			if repos[k] {
				list = append(list, s.repoJSON(s.repos[k]))
			}
		}
		out["repositories"] = list
	}
	writeJSON(w, http.StatusCreated, out)
}

// narrowRepos maps requested repository names and ids to keys of the
// installation's repositories; nil means no narrowing. Callers hold s.mu.
func (s *Server) narrowRepos(inst *installation, names []string, ids []int64) (map[string]bool, bool) {
	if len(names) == 0 && len(ids) == 0 {
		return nil, true
	}
	out := map[string]bool{}
	for _, k := range inst.Repos {
		repo := s.repos[k]
		for _, n := range names {
			if strings.EqualFold(n, repo.name) || strings.EqualFold(n, repo.fullName()) {
				out[k] = true
			}
		}
		for _, id := range ids {
			if id == repo.id {
				out[k] = true
			}
		}
	}
	return out, len(out) == len(names)+len(ids)
}

// handleInstallationRepos serves GET /installation/repositories.
func (s *Server) handleInstallationRepos(w http.ResponseWriter, r *http.Request) {
	p := principalOf(r)
	if unauthenticated(w, p) {
		return
	}
	if p.kind != kindInstallation {
		writeError(w, http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var list []json.RawMessage
	for _, k := range s.installations[p.installationID].Repos {
		if p.repos == nil || p.repos[k] {
			list = append(list, s.repoJSON(s.repos[k]))
		}
	}
	pg := pageOf(r)
	lo, hi := pg.bounds(len(list))
	setLink(w, r, pg, len(list))
	body := listEnvelope("repositories", len(list), list[lo:hi])
	writeJSON(w, http.StatusOK, append(body[:len(body)-1], []byte(`,"repository_selection":"selected"}`)...))
}

// nodeID makes a GraphQL-style node id from a prefix and a number.
func nodeID(prefix string, id int64) string {
	return prefix + strconv.FormatInt(id, 36)
}

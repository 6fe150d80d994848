package githubtest

import (
	"net/http"
	"sort"
	"strings"
)

// refJSON renders a git reference. Callers hold s.mu.
func (s *Server) refJSON(repo *repoState, ref, sha string) map[string]any {
	return map[string]any{
		"ref": ref, "node_id": "REF_" + sha[:min(12, len(sha))], "url": s.repoAPI(repo, "git/"+escapePath(ref)),
		"object": map[string]any{"sha": sha, "type": "commit", "url": s.repoAPI(repo, "git/commits/"+sha)},
	}
}

// fullRef turns "heads/x" (as the ref routes carry it) into "refs/heads/x".
func fullRef(p string) string {
	p = strings.Trim(p, "/")
	if strings.HasPrefix(p, "refs/") {
		return p
	}
	return "refs/" + p
}

// handleGetRef serves GET /repos/{o}/{r}/git/ref/{ref}: one exact ref.
func (s *Server) handleGetRef(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	repo := repoOf(r)
	ref := fullRef(wildcard(r))
	sha, ok := repo.refs[ref]
	if !ok {
		notFound(w)
		return
	}
	writeJSON(w, http.StatusOK, s.refJSON(repo, ref, sha))
}

// handleListRefs serves GET git/refs (every ref), git/matching-refs/{prefix}
// (a list, possibly empty) and the legacy git/refs/{ref} (the ref itself on
// an exact match, else the refs under it, 404 when none).
func (s *Server) handleListRefs(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	repo := repoOf(r)
	prefix := ""
	if p := strings.Trim(wildcard(r), "/"); p != "" {
		prefix = fullRef(p)
	}
	legacy := strings.Contains(r.URL.Path, "/git/refs/") && prefix != ""
	if sha, ok := repo.refs[prefix]; legacy && ok {
		writeJSON(w, http.StatusOK, s.refJSON(repo, prefix, sha))
		return
	}
	var names []string
	for ref := range repo.refs {
		if strings.HasPrefix(ref, prefix) {
			names = append(names, ref)
		}
	}
	sort.Strings(names)
	if legacy && len(names) == 0 {
		notFound(w)
		return
	}
	pg := pageOf(r)
	lo, hi := pg.bounds(len(names))
	list := []map[string]any{}
	for _, ref := range names[lo:hi] {
		list = append(list, s.refJSON(repo, ref, repo.refs[ref]))
	}
	setLink(w, r, pg, len(names))
	writeJSON(w, http.StatusOK, list)
}

// handleCreateRef serves POST /repos/{o}/{r}/git/refs.
func (s *Server) handleCreateRef(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	if !strings.HasPrefix(req.Ref, "refs/") || strings.Count(req.Ref, "/") < 2 || !validPath(req.Ref) {
		writeValidation(w, "Reference name is invalid")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	repo := repoOf(r)
	if _, exists := repo.refs[req.Ref]; exists {
		writeValidation(w, "Reference already exists")
		return
	}
	if repo.git.commits[req.SHA] == nil {
		writeValidation(w, "Object does not exist")
		return
	}
	if s.refusesWorkflowWrite(w, r, repo, req.SHA) {
		return
	}
	repo.refs[req.Ref] = req.SHA
	w.Header().Set("Location", s.repoAPI(repo, "git/"+escapePath(req.Ref)))
	writeJSON(w, http.StatusCreated, s.refJSON(repo, req.Ref, req.SHA))
}

// handleUpdateRef serves PATCH /repos/{o}/{r}/git/refs/{ref}; without
// force the new commit must descend from the current one.
func (s *Server) handleUpdateRef(w http.ResponseWriter, r *http.Request) {
	var req struct {
		SHA   string `json:"sha"`
		Force bool   `json:"force"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	repo := repoOf(r)
	ref := fullRef(wildcard(r))
	cur, ok := repo.refs[ref]
	switch {
	case !ok:
		writeValidation(w, "Reference does not exist")
		return
	case repo.git.commits[req.SHA] == nil:
		writeValidation(w, "Object does not exist")
		return
	case !req.Force && !repo.git.isAncestor(cur, req.SHA):
		writeValidation(w, "Update is not a fast forward")
		return
	case s.refusesWorkflowWrite(w, r, repo, req.SHA):
		return
	}
	repo.refs[ref] = req.SHA
	s.notePullHeads(repo, ref, req.SHA)
	writeJSON(w, http.StatusOK, s.refJSON(repo, ref, req.SHA))
}

// handleDeleteRef serves DELETE /repos/{o}/{r}/git/refs/{ref}.
func (s *Server) handleDeleteRef(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	repo := repoOf(r)
	ref := fullRef(wildcard(r))
	if _, ok := repo.refs[ref]; !ok {
		writeValidation(w, "Reference does not exist")
		return
	}
	delete(repo.refs, ref)
	w.WriteHeader(http.StatusNoContent)
}

// notePullHeads records a new head SHA on the open pull requests whose head
// branch moved. Callers hold s.mu.
func (s *Server) notePullHeads(repo *repoState, ref, sha string) {
	branch := strings.TrimPrefix(ref, "refs/heads/")
	for _, p := range repo.pulls {
		if p.State == "open" && p.HeadRef == branch {
			p.HeadSHA = sha
			p.shas[sha] = true
			p.UpdatedAt = s.now()
		}
	}
}

// refusesWorkflowWrite answers GitHub's refusal when an installation
// without workflows: write points a ref at commits that change
// .github/workflows/, and reports whether it did. Over REST GitHub answers
// 403 "Resource not accessible by integration" naming
// "contents=write; contents=write,workflows=write" in
// X-Accepted-GitHub-Permissions (mkb79/Audible#882 quotes it); a git push
// gets "refusing to allow a GitHub App to create or update workflow … without
// `workflows` permission" (repo-sync/github-sync#23). Callers hold s.mu.
func (s *Server) refusesWorkflowWrite(w http.ResponseWriter, r *http.Request, repo *repoState, sha string) bool {
	p := principalOf(r)
	if p.kind != kindInstallation || permits(p.perms, "workflows=write") || !s.touchesWorkflows(repo, sha) {
		return false
	}
	refuseIntegration(w, needWorkflowRef, docsBase+"/git/refs#create-a-reference")
	return true
}

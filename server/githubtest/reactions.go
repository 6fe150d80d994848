package githubtest

import (
	"net/http"
	"strings"
)

// reactionJSON renders a reaction. Callers hold s.mu.
func (s *Server) reactionJSON(re *reaction) map[string]any {
	return map[string]any{"id": re.ID, "node_id": nodeID("REA_lADO", re.ID), "user": s.accountJSON(re.User),
		"content": re.Content, "created_at": ts(re.CreatedAt)}
}

// handleCreateReaction serves POST …/issues/comments/{id}/reactions: 201
// for a new reaction, 200 with the existing one when the caller already
// reacted with that content.
func (s *Server) handleCreateReaction(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Content string `json:"content"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	if !reactionContents[req.Content] {
		writeValidation(w, "Validation Failed", validationError{Resource: "Reaction", Field: "content", Code: "invalid"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := lookupComment(w, r)
	if c == nil {
		return
	}
	by := s.actorAccount(principalOf(r))
	for _, re := range c.Reactions {
		if re.Content == req.Content && strings.EqualFold(re.User.Login, by.Login) {
			writeJSON(w, http.StatusOK, s.reactionJSON(re))
			return
		}
	}
	re := &reaction{ID: s.newID(), Content: req.Content, User: by, CreatedAt: s.now()}
	c.Reactions = append(c.Reactions, re)
	writeJSON(w, http.StatusCreated, s.reactionJSON(re))
}

// handleListReactions serves GET …/issues/comments/{id}/reactions with the
// optional content filter.
func (s *Server) handleListReactions(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := lookupComment(w, r)
	if c == nil {
		return
	}
	want := r.URL.Query().Get("content")
	var list []*reaction
	for _, re := range c.Reactions {
		if want == "" || re.Content == want {
			list = append(list, re)
		}
	}
	pg := pageOf(r)
	lo, hi := pg.bounds(len(list))
	out := []map[string]any{}
	for _, re := range list[lo:hi] {
		out = append(out, s.reactionJSON(re))
	}
	setLink(w, r, pg, len(list))
	writeJSON(w, http.StatusOK, out)
}

// commitCommentJSON renders a commit comment. Callers hold s.mu.
func (s *Server) commitCommentJSON(repo *repoState, c *commitComment) map[string]any {
	var p, line any
	if c.Path != "" {
		p, line = c.Path, c.Line
	}
	return map[string]any{
		"url": s.repoAPI(repo, "comments/"+itoa(c.ID)), "html_url": s.repoHTML(repo, "commit/"+c.SHA+"#commitcomment-"+itoa(c.ID)),
		"id": c.ID, "node_id": nodeID("CC_kwDO", c.ID), "user": s.accountJSON(c.User), "commit_id": c.SHA,
		"path": p, "position": nil, "line": line, "body": c.Body, "author_association": s.association(repo, c.User),
		"created_at": ts(c.CreatedAt), "updated_at": ts(c.CreatedAt),
	}
}

// knownCommit reports whether a SHA names a commit of the repository: a
// stored commit or the head of a scenario run. Callers hold s.mu.
func knownCommit(repo *repoState, sha string) bool {
	return repo.git.commits[sha] != nil || repo.knownSHAs[sha]
}

// handleCreateCommitComment serves POST /repos/{o}/{r}/commits/{sha}/comments.
func (s *Server) handleCreateCommitComment(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Body *string `json:"body"`
		Path string  `json:"path"`
		Line int     `json:"line"`
	}
	if !decodeBody(w, r, &req) || !checkBody(w, req.Body, "CommitComment") {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	repo := repoOf(r)
	sha := urlParam(r, "sha")
	if !knownCommit(repo, sha) {
		writeValidation(w, "No commit found for SHA: "+sha)
		return
	}
	c := &commitComment{ID: s.newID(), SHA: sha, Body: *req.Body, Path: req.Path, Line: req.Line,
		User: s.actorAccount(principalOf(r)), CreatedAt: s.now()}
	repo.commitComments = append(repo.commitComments, c)
	writeJSON(w, http.StatusCreated, s.commitCommentJSON(repo, c))
}

// handleListCommitComments serves GET /repos/{o}/{r}/commits/{sha}/comments.
func (s *Server) handleListCommitComments(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	repo := repoOf(r)
	sha := urlParam(r, "sha")
	var list []*commitComment
	for _, c := range repo.commitComments {
		if c.SHA == sha {
			list = append(list, c)
		}
	}
	pg := pageOf(r)
	lo, hi := pg.bounds(len(list))
	out := []map[string]any{}
	for _, c := range list[lo:hi] {
		out = append(out, s.commitCommentJSON(repo, c))
	}
	setLink(w, r, pg, len(list))
	writeJSON(w, http.StatusOK, out)
}

// permissionOf is a user's permission on a repository: as set with
// SetPermission, admin for the owner, otherwise read on a public
// repository and none on a private one. Callers hold s.mu.
func permissionOf(repo *repoState, login string) string {
	if p, ok := repo.perms[strings.ToLower(login)]; ok {
		return p
	}
	switch {
	case strings.EqualFold(login, repo.owner):
		return "admin"
	case repo.private:
		return "none"
	}
	return "read"
}

// handlePermission serves GET /repos/{o}/{r}/collaborators/{user}/permission.
func (s *Server) handlePermission(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	repo := repoOf(r)
	u := s.ensureUser(urlParam(r, "user"))
	perm := permissionOf(repo, u.Login)
	user := s.accountJSON(account{Login: u.Login, ID: u.ID, Type: "User"})
	rank := map[string]int{"none": 0, "read": 1, "triage": 2, "write": 3, "maintain": 4, "admin": 5}[perm]
	user["permissions"] = map[string]bool{"admin": rank >= 5, "maintain": rank >= 4, "push": rank >= 3, "triage": rank >= 2, "pull": rank >= 1}
	legacy := perm
	switch perm {
	case "maintain":
		legacy = "write"
	case "triage":
		legacy = "read"
	}
	writeJSON(w, http.StatusOK, map[string]any{"permission": legacy, "role_name": perm, "user": user})
}

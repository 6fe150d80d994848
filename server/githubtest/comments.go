package githubtest

import (
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// reactionContents are the reactions GitHub accepts.
var reactionContents = map[string]bool{
	"+1": true, "-1": true, "laugh": true, "confused": true, "heart": true, "hooray": true, "rocket": true, "eyes": true,
}

// commentsOn lists the comments of an issue or pull request in ascending
// id order. Callers hold s.mu.
func (s *Server) commentsOn(repo *repoState, number int) []*comment {
	var out []*comment
	for _, c := range repo.comments {
		if c.Number == number {
			out = append(out, c)
		}
	}
	return out
}

// association is the author_association GitHub shows for a user on a
// repository. Callers hold s.mu.
func (s *Server) association(repo *repoState, a account) string {
	switch {
	case a.Type == "Bot":
		return "NONE"
	case strings.EqualFold(a.Login, repo.owner):
		return "OWNER"
	}
	switch repo.perms[strings.ToLower(a.Login)] {
	case "admin", "maintain", "write", "triage":
		return "COLLABORATOR"
	}
	return "NONE"
}

// commentJSON renders an issue comment. Callers hold s.mu.
func (s *Server) commentJSON(repo *repoState, c *comment) map[string]any {
	id := itoa(c.ID)
	url := s.repoAPI(repo, "issues/comments/"+id)
	rollup := map[string]any{"url": url + "/reactions", "total_count": len(c.Reactions)}
	for k := range reactionContents {
		rollup[k] = 0
	}
	for _, re := range c.Reactions {
		rollup[re.Content] = rollup[re.Content].(int) + 1
	}
	var via any
	if c.ViaApp {
		via = s.appJSON()
	}
	kind := "issues"
	if repo.pulls[c.Number] != nil {
		kind = "pull"
	}
	return map[string]any{
		"url": url, "html_url": s.repoHTML(repo, kind+"/"+strconv.Itoa(c.Number)+"#issuecomment-"+id),
		"issue_url": s.repoAPI(repo, "issues/"+strconv.Itoa(c.Number)), "id": c.ID, "node_id": nodeID("IC_kwDO", c.ID),
		"user": s.accountJSON(c.User), "created_at": ts(c.CreatedAt), "updated_at": ts(c.UpdatedAt),
		"author_association": s.association(repo, c.User), "body": c.Body, "reactions": rollup,
		"performed_via_github_app": via,
	}
}

// issueExists reports whether an issue or pull request number exists.
// Callers hold s.mu.
func issueExists(repo *repoState, n int) bool { return repo.pulls[n] != nil || repo.issues[n] != nil }

// issueJSON renders an issue, or a pull request as an issue (with a
// pull_request field); nil when the number does not exist. Callers hold s.mu.
func (s *Server) issueJSON(repo *repoState, n int) map[string]any {
	num := strconv.Itoa(n)
	body := map[string]any{"url": s.repoAPI(repo, "issues/"+num), "number": n, "labels": s.labelsJSON(repo, n),
		"comments": len(s.commentsOn(repo, n)), "comments_url": s.repoAPI(repo, "issues/"+num+"/comments"),
		"repository_url": s.APIURL() + "repos/" + repo.fullName(), "locked": false, "assignees": []any{},
		"assignee": nil, "milestone": nil, "closed_at": nil, "active_lock_reason": nil}
	var id int64
	var user account
	switch p, is := repo.pulls[n], repo.issues[n]; {
	case p != nil:
		id, user = p.ID, p.User
		body["title"], body["state"], body["body"] = p.Title, p.State, orNil(p.Body)
		body["created_at"], body["updated_at"], body["closed_at"] = ts(p.CreatedAt), ts(p.UpdatedAt), tsOrNil(p.ClosedAt)
		body["html_url"] = s.repoHTML(repo, "pull/"+num)
		body["pull_request"] = map[string]any{"url": s.repoAPI(repo, "pulls/"+num), "html_url": s.repoHTML(repo, "pull/"+num),
			"diff_url": s.repoHTML(repo, "pull/"+num+".diff"), "patch_url": s.repoHTML(repo, "pull/"+num+".patch"),
			"merged_at": tsOrNil(p.MergedAt)}
	case is != nil:
		id, user = is.ID, is.User
		body["title"], body["state"], body["body"] = is.Title, is.State, orNil(is.Body)
		body["created_at"], body["updated_at"] = ts(is.CreatedAt), ts(is.CreatedAt)
		body["html_url"] = s.repoHTML(repo, "issues/"+num)
	default:
		return nil
	}
	body["id"], body["node_id"], body["user"] = id, nodeID("I_kwDO", id), s.accountJSON(user)
	body["author_association"] = s.association(repo, user)
	return body
}

// handleGetIssue serves GET /repos/{o}/{r}/issues/{n}.
func (s *Server) handleGetIssue(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(urlParam(r, "number"))
	s.mu.Lock()
	defer s.mu.Unlock()
	body := s.issueJSON(repoOf(r), n)
	if body == nil {
		notFound(w)
		return
	}
	writeJSON(w, http.StatusOK, body)
}

// handleListComments serves GET /repos/{o}/{r}/issues/{n}/comments:
// ascending id, "since" and page filters.
func (s *Server) handleListComments(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(urlParam(r, "number"))
	var since time.Time
	if v := r.URL.Query().Get("since"); v != "" {
		since, _ = time.Parse(time.RFC3339, v)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	repo := repoOf(r)
	if !issueExists(repo, n) {
		notFound(w)
		return
	}
	var list []*comment
	for _, c := range s.commentsOn(repo, n) {
		if since.IsZero() || !c.UpdatedAt.Before(since) {
			list = append(list, c)
		}
	}
	pg := pageOf(r)
	lo, hi := pg.bounds(len(list))
	out := []map[string]any{}
	for _, c := range list[lo:hi] {
		out = append(out, s.commentJSON(repo, c))
	}
	setLink(w, r, pg, len(list))
	writeJSON(w, http.StatusOK, out)
}

// checkBody validates a comment body and answers 422 when it is empty or
// longer than 65,536 characters.
func checkBody(w http.ResponseWriter, body *string, resource string) bool {
	switch {
	case body == nil || strings.TrimSpace(*body) == "":
		writeValidation(w, "Validation Failed", validationError{Resource: resource, Field: "body", Code: "missing_field"})
		return false
	case utf8.RuneCountInString(*body) > maxCommentLength:
		writeValidation(w, "Validation Failed", validationError{Resource: resource, Field: "body", Code: "custom",
			Message: "Body is too long (maximum is 65536 characters)"})
		return false
	}
	return true
}

// handleCreateComment serves POST /repos/{o}/{r}/issues/{n}/comments. The
// author is the app's bot for an installation token, the user for a user
// token.
func (s *Server) handleCreateComment(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(urlParam(r, "number"))
	var req struct {
		Body *string `json:"body"`
	}
	if !decodeBody(w, r, &req) || !checkBody(w, req.Body, "IssueComment") {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	repo := repoOf(r)
	if !issueExists(repo, n) {
		notFound(w)
		return
	}
	p := principalOf(r)
	c := s.addComment(repo, n, s.actorAccount(p), *req.Body)
	c.ViaApp = p.kind == kindInstallation
	w.Header().Set("Location", s.repoAPI(repo, "issues/comments/"+itoa(c.ID)))
	writeJSON(w, http.StatusCreated, s.commentJSON(repo, c))
}

// addComment stores a new comment. Callers hold s.mu.
func (s *Server) addComment(repo *repoState, n int, by account, body string) *comment {
	now := s.now()
	c := &comment{ID: s.newID(), Number: n, Body: body, User: by, CreatedAt: now, UpdatedAt: now}
	repo.comments = append(repo.comments, c)
	repo.commentByID[c.ID] = c
	return c
}

// lookupComment finds the comment of a route. Callers hold s.mu.
func lookupComment(w http.ResponseWriter, r *http.Request) *comment {
	id, _ := strconv.ParseInt(urlParam(r, "id"), 10, 64)
	c := repoOf(r).commentByID[id]
	if c == nil {
		notFound(w)
	}
	return c
}

func (s *Server) handleGetComment(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := lookupComment(w, r); c != nil {
		writeJSON(w, http.StatusOK, s.commentJSON(repoOf(r), c))
	}
}

// handleEditComment serves PATCH /repos/{o}/{r}/issues/comments/{id}.
func (s *Server) handleEditComment(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Body *string `json:"body"`
	}
	if !decodeBody(w, r, &req) || !checkBody(w, req.Body, "IssueComment") {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := lookupComment(w, r)
	if c == nil {
		return
	}
	c.PrevBody, c.Body, c.UpdatedAt = c.Body, *req.Body, s.now()
	writeJSON(w, http.StatusOK, s.commentJSON(repoOf(r), c))
}

// handleDeleteComment serves DELETE /repos/{o}/{r}/issues/comments/{id}.
func (s *Server) handleDeleteComment(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := lookupComment(w, r)
	if c == nil {
		return
	}
	repo := repoOf(r)
	delete(repo.commentByID, c.ID)
	for i, have := range repo.comments {
		if have == c {
			repo.comments = append(repo.comments[:i], repo.comments[i+1:]...)
			break
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

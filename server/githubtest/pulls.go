package githubtest

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// pullJSON renders a pull request. An open pull request's head follows its
// branch. Callers hold s.mu.
func (s *Server) pullJSON(repo *repoState, p *pull) map[string]any {
	n := strconv.Itoa(p.Number)
	side := func(ref, sha string) map[string]any {
		return map[string]any{"label": repo.owner + ":" + ref, "ref": ref, "sha": sha,
			"user": s.accountJSON(account{Login: repo.owner, ID: repo.ownerID, Type: orDefault(repo.ownerType, "Organization")}),
			"repo": s.repoJSON(repo)}
	}
	baseSHA := p.BaseSHA
	if sha, ok := repo.refs["refs/heads/"+p.BaseRef]; ok && p.State == "open" {
		baseSHA = sha
	}
	mergeable, state := any(nil), "unknown"
	if p.State == "open" {
		mergeable, state = true, "clean"
	}
	var mergedBy any
	if p.Merged {
		mergedBy = s.accountJSON(p.User)
	}
	return map[string]any{
		"url": s.repoAPI(repo, "pulls/"+n), "id": p.ID, "node_id": nodeID("PR_kwDO", p.ID),
		"html_url": s.repoHTML(repo, "pull/"+n), "diff_url": s.repoHTML(repo, "pull/"+n+".diff"),
		"patch_url": s.repoHTML(repo, "pull/"+n+".patch"), "issue_url": s.repoAPI(repo, "issues/"+n),
		"commits_url": s.repoAPI(repo, "pulls/"+n+"/commits"), "comments_url": s.repoAPI(repo, "issues/"+n+"/comments"),
		"statuses_url": s.repoAPI(repo, "statuses/"+p.HeadSHA),
		"number":       p.Number, "state": p.State, "locked": false, "title": p.Title, "user": s.accountJSON(p.User),
		"body": orNil(p.Body), "labels": s.labelsJSON(repo, p.Number), "milestone": nil, "active_lock_reason": nil,
		"created_at": ts(p.CreatedAt), "updated_at": ts(p.UpdatedAt), "closed_at": tsOrNil(p.ClosedAt),
		"merged_at": tsOrNil(p.MergedAt), "merge_commit_sha": orNil(p.MergeCommitSHA),
		"assignee": nil, "assignees": []any{}, "requested_reviewers": []any{}, "requested_teams": []any{},
		"head": side(p.HeadRef, p.HeadSHA), "base": side(p.BaseRef, baseSHA),
		"author_association": s.association(repo, p.User), "auto_merge": nil, "draft": p.Draft,
		"merged": p.Merged, "mergeable": mergeable, "rebaseable": mergeable, "mergeable_state": state,
		"merged_by": mergedBy, "comments": len(s.commentsOn(repo, p.Number)), "review_comments": 0,
		"maintainer_can_modify": p.MaintainerCanModify, "commits": 1, "additions": 0, "deletions": 0, "changed_files": 0,
	}
}

// handleListPulls serves GET /repos/{o}/{r}/pulls with state, head
// ("owner:branch") and base filters, newest first.
func (s *Server) handleListPulls(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	state := orDefault(q.Get("state"), "open")
	s.mu.Lock()
	defer s.mu.Unlock()
	repo := repoOf(r)
	var list []*pull
	for _, p := range repo.pulls {
		if state != "all" && p.State != state {
			continue
		}
		if h := q.Get("head"); h != "" {
			owner, branch, ok := strings.Cut(h, ":")
			if !ok || !strings.EqualFold(owner, repo.owner) || branch != p.HeadRef {
				continue
			}
		}
		if b := q.Get("base"); b != "" && b != p.BaseRef {
			continue
		}
		list = append(list, p)
	}
	asc := q.Get("direction") == "asc"
	sort.Slice(list, func(i, j int) bool {
		if asc {
			return list[i].Number < list[j].Number
		}
		return list[i].Number > list[j].Number
	})
	s.writePulls(w, r, repo, list)
}

// writePulls answers one page of pull requests. Callers hold s.mu.
func (s *Server) writePulls(w http.ResponseWriter, r *http.Request, repo *repoState, list []*pull) {
	pg := pageOf(r)
	lo, hi := pg.bounds(len(list))
	out := []map[string]any{}
	for _, p := range list[lo:hi] {
		out = append(out, s.pullJSON(repo, p))
	}
	setLink(w, r, pg, len(list))
	writeJSON(w, http.StatusOK, out)
}

// lookupPull finds the pull request of a route. Callers hold s.mu.
func lookupPull(w http.ResponseWriter, r *http.Request) *pull {
	n, _ := strconv.Atoi(urlParam(r, "number"))
	p := repoOf(r).pulls[n]
	if p == nil {
		notFound(w)
	}
	return p
}

func (s *Server) handleGetPull(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := lookupPull(w, r); p != nil {
		writeJSON(w, http.StatusOK, s.pullJSON(repoOf(r), p))
	}
}

// handleCreatePull serves POST /repos/{o}/{r}/pulls. Like GitHub it refuses
// (422) a second open pull request for the same head and base, a head or
// base branch that does not exist, and a head with no commits over base.
func (s *Server) handleCreatePull(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Title               string `json:"title"`
		Head                string `json:"head"`
		Base                string `json:"base"`
		Body                string `json:"body"`
		Draft               bool   `json:"draft"`
		MaintainerCanModify *bool  `json:"maintainer_can_modify"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	repo := repoOf(r)
	branch := req.Head
	if owner, b, ok := strings.Cut(req.Head, ":"); ok {
		if !strings.EqualFold(owner, repo.owner) {
			writeValidation(w, "Validation Failed", validationError{Resource: "PullRequest", Field: "head", Code: "invalid"})
			return
		}
		branch = b
	}
	if msg := s.checkNewPull(repo, req.Title, branch, req.Base); msg != nil {
		writeValidation(w, "Validation Failed", *msg)
		return
	}
	p := &pull{Number: s.nextNumber(repo), ID: s.newID(), Title: req.Title, Body: req.Body, State: "open",
		HeadRef: branch, HeadSHA: repo.refs["refs/heads/"+branch], BaseRef: req.Base,
		BaseSHA: repo.refs["refs/heads/"+req.Base], User: s.actorAccount(principalOf(r)), Draft: req.Draft,
		// maintainer_can_modify concerns a fork's head branch; a pull
		// request within one repository reports false whatever was asked
		// (docs: "Create a pull request", maintainer_can_modify).
		MaintainerCanModify: false,
		CreatedAt:           s.now(), UpdatedAt: s.now(), shas: map[string]bool{}}
	p.shas[p.HeadSHA] = true
	repo.pulls[p.Number] = p
	w.Header().Set("Location", s.repoAPI(repo, "pulls/"+strconv.Itoa(p.Number)))
	writeJSON(w, http.StatusCreated, s.pullJSON(repo, p))
}

// checkNewPull validates a new pull request. Callers hold s.mu.
func (s *Server) checkNewPull(repo *repoState, title, head, base string) *validationError {
	headSHA, headOK := repo.refs["refs/heads/"+head]
	baseSHA, baseOK := repo.refs["refs/heads/"+base]
	switch {
	case title == "":
		return &validationError{Resource: "PullRequest", Field: "title", Code: "missing_field"}
	case !baseOK:
		return &validationError{Resource: "PullRequest", Field: "base", Code: "invalid"}
	case !headOK:
		return &validationError{Resource: "PullRequest", Field: "head", Code: "invalid"}
	case headSHA == baseSHA || repo.git.isAncestor(headSHA, baseSHA):
		return &validationError{Resource: "PullRequest", Code: "custom", Message: "No commits between " + base + " and " + head}
	}
	for _, p := range repo.pulls {
		if p.State == "open" && p.HeadRef == head && p.BaseRef == base {
			return &validationError{Resource: "PullRequest", Code: "custom",
				Message: "A pull request already exists for " + repo.owner + ":" + head + "."}
		}
	}
	return nil
}

// nextNumber is the next issue/pull request number. Callers hold s.mu.
func (s *Server) nextNumber(repo *repoState) int {
	n := 0
	for k := range repo.pulls {
		n = max(n, k)
	}
	for k := range repo.issues {
		n = max(n, k)
	}
	return n + 1
}

// handleUpdatePull serves PATCH /repos/{o}/{r}/pulls/{n}: title, body,
// state and base.
func (s *Server) handleUpdatePull(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Title *string `json:"title"`
		Body  *string `json:"body"`
		State *string `json:"state"`
		Base  *string `json:"base"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := lookupPull(w, r)
	if p == nil {
		return
	}
	repo := repoOf(r)
	if req.State != nil && *req.State != "open" && *req.State != "closed" {
		writeValidation(w, "Validation Failed", validationError{Resource: "PullRequest", Field: "state", Code: "invalid"})
		return
	}
	if req.Base != nil {
		if _, ok := repo.refs["refs/heads/"+*req.Base]; !ok {
			writeValidation(w, "Validation Failed", validationError{Resource: "PullRequest", Field: "base", Code: "invalid"})
			return
		}
		p.BaseRef = *req.Base
	}
	if req.Title != nil {
		p.Title = *req.Title
	}
	if req.Body != nil {
		p.Body = *req.Body
	}
	if req.State != nil && !p.Merged {
		s.setPullState(p, *req.State)
	}
	p.UpdatedAt = s.now()
	writeJSON(w, http.StatusOK, s.pullJSON(repo, p))
}

// setPullState opens or closes a pull request. Callers hold s.mu.
func (s *Server) setPullState(p *pull, state string) {
	if p.State == state {
		return
	}
	p.State = state
	p.ClosedAt = time.Time{}
	if state == "closed" {
		p.ClosedAt = s.now()
	}
}

// handlePullsForCommit serves GET /repos/{o}/{r}/commits/{sha}/pulls: the
// pull requests that merged as the commit or whose head is or was the
// commit and, for a commit not on the default branch, the open pull
// requests whose head contains it.
func (s *Server) handlePullsForCommit(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	repo := repoOf(r)
	sha := urlParam(r, "sha")
	onDefault := repo.git.isAncestor(sha, repo.refs["refs/heads/"+repo.defaultBranch])
	var list []*pull
	for _, p := range repo.pulls {
		contains := p.State == "open" && p.HeadSHA != "" && !onDefault && repo.git.isAncestor(sha, p.HeadSHA)
		if p.MergeCommitSHA == sha || p.shas[sha] || p.HeadSHA == sha || contains {
			list = append(list, p)
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Number > list[j].Number })
	s.writePulls(w, r, repo, list)
}

package githubtest

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// handleCreateBlob serves POST /repos/{o}/{r}/git/blobs.
func (s *Server) handleCreateBlob(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Content  *string `json:"content"`
		Encoding string  `json:"encoding"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	if req.Content == nil {
		writeValidation(w, "Invalid request.\n\n\"content\" wasn't supplied.")
		return
	}
	data := []byte(*req.Content)
	switch req.Encoding {
	case "", "utf-8":
	case "base64":
		dec, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(*req.Content, "\n", ""))
		if err != nil {
			writeValidation(w, "Invalid request.\n\ncontent is not valid Base64.")
			return
		}
		data = dec
	default:
		writeValidation(w, "Invalid request.\n\nencoding must be one of utf-8, base64.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	repo := repoOf(r)
	sha := repo.git.putBlob(data)
	w.Header().Set("Location", s.repoAPI(repo, "git/blobs/"+sha))
	writeJSON(w, http.StatusCreated, map[string]any{"sha": sha, "url": s.repoAPI(repo, "git/blobs/"+sha)})
}

// treeInput is one entry of a create-tree request; sha and content are raw
// so that an explicit "sha": null (delete) differs from an absent sha.
type treeInput struct {
	Path    string          `json:"path"`
	Mode    string          `json:"mode"`
	Type    string          `json:"type"`
	SHA     json.RawMessage `json:"sha"`
	Content *string         `json:"content"`
}

// handleCreateTree serves POST /repos/{o}/{r}/git/trees: entries are laid
// over base_tree (if given); inline content makes a blob; "sha": null
// deletes the path.
func (s *Server) handleCreateTree(w http.ResponseWriter, r *http.Request) {
	var req struct {
		BaseTree string      `json:"base_tree"`
		Tree     []treeInput `json:"tree"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	repo := repoOf(r)
	files := map[string]fileEntry{}
	if req.BaseTree != "" {
		base, ok := resolveTree(repo, req.BaseTree)
		if !ok {
			writeValidation(w, "Invalid tree info", validationError{Resource: "Tree", Field: "base_tree", Code: "invalid"})
			return
		}
		files, _ = repo.git.flatten(base)
	}
	for _, in := range req.Tree {
		if msg := applyTreeInput(repo.git, files, in); msg != "" {
			writeValidation(w, msg)
			return
		}
	}
	sha := repo.git.build(files)
	body := s.treeJSON(repo, sha, false)
	w.Header().Set("Location", s.repoAPI(repo, "git/trees/"+sha))
	writeJSON(w, http.StatusCreated, body)
}

// applyTreeInput applies one create-tree entry to the flattened files and
// returns a validation message on error.
func applyTreeInput(g *gitStore, files map[string]fileEntry, in treeInput) string {
	if !validPath(in.Path) {
		return "tree.path contains a malformed path component"
	}
	deleting := in.Content == nil && string(in.SHA) == "null"
	if deleting {
		removePath(files, in.Path)
		return ""
	}
	switch in.Mode {
	case modeFile, modeExec, modeSymlink, modeTree, "40000", modeCommit:
	default:
		return "tree.mode must be one of 100644, 100755, 040000, 160000, 120000"
	}
	if in.Content != nil {
		removePath(files, in.Path)
		files[in.Path] = fileEntry{Mode: in.Mode, SHA: g.putBlob([]byte(*in.Content))}
		return ""
	}
	var sha string
	if json.Unmarshal(in.SHA, &sha) != nil || sha == "" {
		return "Must supply either tree.sha or tree.content"
	}
	if in.Mode == modeTree || in.Mode == "40000" || in.Type == "tree" {
		sub, err := g.flatten(sha)
		if err != nil {
			return "tree.sha " + sha + " is not a valid tree"
		}
		removePath(files, in.Path)
		for p, f := range sub {
			files[in.Path+"/"+p] = f
		}
		return ""
	}
	if _, ok := g.blobs[sha]; !ok && in.Mode != modeCommit {
		return "tree.sha " + sha + " is not a valid blob"
	}
	removePath(files, in.Path)
	files[in.Path] = fileEntry{Mode: in.Mode, SHA: sha}
	return ""
}

// removePath deletes a file, or everything under a directory.
func removePath(files map[string]fileEntry, p string) {
	delete(files, p)
	for k := range files {
		if strings.HasPrefix(k, p+"/") {
			delete(files, k)
		}
	}
}

// sigInput is an author or committer in a create-commit request.
type sigInput struct {
	Name  string    `json:"name"`
	Email string    `json:"email"`
	Date  time.Time `json:"date"`
}

// handleCreateCommit serves POST /repos/{o}/{r}/git/commits.
func (s *Server) handleCreateCommit(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Message   string    `json:"message"`
		Tree      string    `json:"tree"`
		Parents   []string  `json:"parents"`
		Author    *sigInput `json:"author"`
		Committer *sigInput `json:"committer"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	repo := repoOf(r)
	if _, ok := repo.git.trees[req.Tree]; !ok {
		writeValidation(w, "Tree SHA does not exist")
		return
	}
	for _, p := range req.Parents {
		if repo.git.commits[p] == nil {
			writeValidation(w, "Parent SHA does not exist or is not a commit object")
			return
		}
	}
	who := s.actorAccount(principalOf(r))
	def := signature{Name: who.Login, Email: itoa(who.ID) + "+" + who.Login + "@users.noreply.github.com", Date: s.now().UTC().Truncate(time.Second)}
	c := &commitObj{Tree: req.Tree, Parents: req.Parents, Message: req.Message, Author: sigOr(req.Author, def)}
	c.Committer = sigOr(req.Committer, c.Author)
	repo.git.putCommit(c)
	w.Header().Set("Location", s.repoAPI(repo, "git/commits/"+c.SHA))
	writeJSON(w, http.StatusCreated, s.gitCommitJSON(repo, c))
}

// sigOr returns the requested signature, filled from def.
func sigOr(in *sigInput, def signature) signature {
	if in == nil {
		return def
	}
	out := signature{Name: orDefault(in.Name, def.Name), Email: orDefault(in.Email, def.Email), Date: in.Date}
	if out.Date.IsZero() {
		out.Date = def.Date
	}
	return out
}

// gitCommitJSON renders a git commit object. Callers hold s.mu.
func (s *Server) gitCommitJSON(repo *repoState, c *commitObj) map[string]any {
	parents := []map[string]any{}
	for _, p := range c.Parents {
		parents = append(parents, map[string]any{"sha": p, "url": s.repoAPI(repo, "git/commits/"+p), "html_url": s.repoHTML(repo, "commit/"+p)})
	}
	sig := func(g signature) map[string]any {
		return map[string]any{"name": g.Name, "email": g.Email, "date": ts(g.Date)}
	}
	return map[string]any{
		"sha": c.SHA, "node_id": "C_" + c.SHA[:min(12, len(c.SHA))], "url": s.repoAPI(repo, "git/commits/"+c.SHA),
		"html_url": s.repoHTML(repo, "commit/"+c.SHA), "author": sig(c.Author), "committer": sig(c.Committer),
		"tree":    map[string]any{"sha": c.Tree, "url": s.repoAPI(repo, "git/trees/"+c.Tree)},
		"message": c.Message, "parents": parents,
		"verification": map[string]any{"verified": false, "reason": "unsigned", "signature": nil, "payload": nil},
	}
}

// handleGetGitCommit serves GET /repos/{o}/{r}/git/commits/{sha}.
func (s *Server) handleGetGitCommit(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	repo := repoOf(r)
	c := repo.git.commits[urlParam(r, "sha")]
	if c == nil {
		notFound(w)
		return
	}
	writeJSON(w, http.StatusOK, s.gitCommitJSON(repo, c))
}

// restCommitJSON renders the commit object of GET /repos/{o}/{r}/commits/{ref}
// and of branches. Callers hold s.mu.
func (s *Server) restCommitJSON(repo *repoState, c *commitObj) map[string]any {
	git := s.gitCommitJSON(repo, c)
	delete(git, "sha")
	delete(git, "node_id")
	delete(git, "html_url")
	delete(git, "parents")
	git["comment_count"] = 0
	return map[string]any{
		"sha": c.SHA, "node_id": "C_" + c.SHA[:min(12, len(c.SHA))], "commit": git,
		"url": s.repoAPI(repo, "commits/"+c.SHA), "html_url": s.repoHTML(repo, "commit/"+c.SHA),
		"comments_url": s.repoAPI(repo, "commits/"+c.SHA+"/comments"),
		"author":       nil, "committer": nil, "parents": s.gitCommitJSON(repo, c)["parents"],
	}
}

// handleGetCommit serves GET /repos/{o}/{r}/commits/{ref}.
func (s *Server) handleGetCommit(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	repo := repoOf(r)
	sha, ok := resolveCommit(repo, urlParam(r, "sha"))
	if !ok {
		writeValidation(w, "No commit found for SHA: "+urlParam(r, "sha"))
		return
	}
	writeJSON(w, http.StatusOK, s.commitWithFiles(repo, repo.git.commits[sha]))
}

// handleGetBranch serves GET /repos/{o}/{r}/branches/{branch}.
func (s *Server) handleGetBranch(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	repo := repoOf(r)
	name := wildcard(r)
	sha, ok := repo.refs["refs/heads/"+name]
	if !ok {
		writeError(w, http.StatusNotFound, "Branch not found")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"name": name, "commit": s.restCommitJSON(repo, repo.git.commits[sha]), "protected": false,
		"protection":     map[string]any{"enabled": false, "required_status_checks": map[string]any{"enforcement_level": "off", "contexts": []string{}, "checks": []string{}}},
		"protection_url": s.repoAPI(repo, "branches/"+escapePath(name)+"/protection"),
		"_links":         map[string]any{"self": s.repoAPI(repo, "branches/"+escapePath(name)), "html": s.repoHTML(repo, "tree/"+name)},
	})
}

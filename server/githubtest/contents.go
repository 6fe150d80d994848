package githubtest

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"path"
	"strings"
)

// Size limits of the contents and trees APIs.
const (
	maxContentsSize = 1 << 20 // larger files need the raw media type
	maxTreeEntries  = 100_000 // recursive trees beyond this are truncated
)

// resolveCommit turns a ref (branch, tag, "heads/x", "refs/…", full or
// abbreviated SHA; empty for the default branch) into a commit SHA.
// Callers hold s.mu.
func resolveCommit(repo *repoState, ref string) (string, bool) {
	if ref == "" {
		ref = "refs/heads/" + repo.defaultBranch
	}
	candidates := []string{ref, "refs/" + ref, "refs/heads/" + ref, "refs/tags/" + ref}
	for _, c := range candidates {
		if sha, ok := repo.refs[c]; ok {
			return sha, true
		}
	}
	if _, ok := repo.git.commits[ref]; ok {
		return ref, true
	}
	if len(ref) >= 7 && len(ref) < 40 {
		found := ""
		for sha := range repo.git.commits {
			if strings.HasPrefix(sha, ref) {
				if found != "" {
					return "", false
				}
				found = sha
			}
		}
		return found, found != ""
	}
	return "", false
}

// resolveTree turns a tree SHA or anything resolveCommit accepts into a
// tree SHA. Callers hold s.mu.
func resolveTree(repo *repoState, treeish string) (string, bool) {
	if _, ok := repo.git.trees[treeish]; ok {
		return treeish, true
	}
	sha, ok := resolveCommit(repo, treeish)
	if !ok {
		return "", false
	}
	c := repo.git.commits[sha]
	if c == nil {
		return "", false
	}
	return c.Tree, true
}

// entryType is the contents API's type of a tree entry.
func entryType(e treeEntry) string {
	switch e.Mode {
	case modeTree:
		return "dir"
	case modeSymlink:
		return "symlink"
	case modeCommit:
		return "submodule"
	}
	return "file"
}

// contentsEntry renders one entry of the contents API. Callers hold s.mu.
func (s *Server) contentsEntry(repo *repoState, ref, p string, e treeEntry) map[string]any {
	self := s.repoAPI(repo, "contents/"+escapePath(p)+"?ref="+url.QueryEscape(ref))
	gitURL := s.repoAPI(repo, "git/blobs/"+e.SHA)
	htmlURL := s.repoHTML(repo, "blob/"+ref+"/"+escapePath(p))
	var download any = s.url + "/_raw/" + repo.fullName() + "/" + url.PathEscape(ref) + "/" + escapePath(p)
	size := 0
	switch e.Mode {
	case modeTree:
		gitURL = s.repoAPI(repo, "git/trees/"+e.SHA)
		htmlURL = s.repoHTML(repo, "tree/"+ref+"/"+escapePath(p))
		download = nil
	case modeCommit:
		download = nil
	default:
		size = len(repo.git.blobs[e.SHA])
	}
	return map[string]any{
		"name": path.Base(p), "path": p, "sha": e.SHA, "size": size, "url": self,
		"html_url": htmlURL, "git_url": gitURL, "download_url": download, "type": entryType(e),
		"_links": map[string]any{"self": self, "git": gitURL, "html": htmlURL},
	}
}

// escapePath escapes each segment of a slash-separated path.
func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, part := range parts {
		parts[i] = url.PathEscape(part)
	}
	return strings.Join(parts, "/")
}

// wrapBase64 encodes data as GitHub does in contents and blobs: base64
// with a newline after every 60 characters.
func wrapBase64(data []byte) string {
	enc := base64.StdEncoding.EncodeToString(data)
	var b strings.Builder
	for len(enc) > 60 {
		b.WriteString(enc[:60])
		b.WriteByte('\n')
		enc = enc[60:]
	}
	b.WriteString(enc)
	b.WriteByte('\n')
	return b.String()
}

// handleContents serves GET /repos/{o}/{r}/contents/{path}?ref=: a file as
// base64 JSON (or raw bytes with the raw media type), a directory as a list
// of entries (or an object with the object media type), 404 when absent.
func (s *Server) handleContents(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	repo := repoOf(r)
	p := strings.Trim(wildcard(r), "/")
	ref := r.URL.Query().Get("ref")
	sha, ok := resolveCommit(repo, ref)
	if !ok {
		writeError(w, http.StatusNotFound, "No commit found for the ref "+ref)
		return
	}
	if ref == "" {
		ref = repo.defaultBranch
	}
	e, ok := repo.git.lookup(repo.git.commits[sha].Tree, p)
	if !ok {
		notFound(w)
		return
	}
	if e.Mode == modeTree {
		s.writeDir(w, r, repo, ref, p, e)
		return
	}
	data := repo.git.blobs[e.SHA]
	if wantsMedia(r, rawMediaType) {
		w.Header().Set("Content-Type", answeredMedia(r, rawMediaType)+"; charset=utf-8")
		_, _ = w.Write(data)
		return
	}
	if len(data) > maxContentsSize {
		writeJSON(w, http.StatusForbidden, map[string]any{
			"message":           "This API returns blobs up to 1 MB in size. The requested blob is too large to fetch via the API, but you can use the Git Data API to request blobs up to 100 MB in size.",
			"errors":            []validationError{{Resource: "Blob", Field: "data", Code: "too_large"}},
			"documentation_url": docsBase + "/repos/contents#get-repository-content",
		})
		return
	}
	body := s.contentsEntry(repo, ref, p, e)
	body["content"], body["encoding"] = wrapBase64(data), "base64"
	if e.Mode == modeSymlink {
		body["target"] = string(data)
	}
	writeJSON(w, http.StatusOK, body)
}

// writeDir answers a directory listing. Callers hold s.mu.
func (s *Server) writeDir(w http.ResponseWriter, r *http.Request, repo *repoState, ref, p string, dir treeEntry) {
	entries := []map[string]any{}
	for _, e := range repo.git.trees[dir.SHA] {
		entries = append(entries, s.contentsEntry(repo, ref, path.Join(p, e.Name), e))
		if len(entries) == 1000 {
			break // GitHub lists at most 1,000 entries
		}
	}
	if wantsMedia(r, objectMediaType) {
		body := s.contentsEntry(repo, ref, p, dir)
		body["entries"] = entries
		writeJSON(w, http.StatusOK, body)
		return
	}
	writeJSON(w, http.StatusOK, entries)
}

// handleRawFile serves the raw-file host that contents' download_url
// points at: /_raw/{owner}/{repo}/{ref}/{path}.
func (s *Server) handleRawFile(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	repo := s.repo(urlParam(r, "owner"), urlParam(r, "repo"))
	if repo == nil || (repo.private && !s.canAccess(principalOf(r), repo)) {
		http.Error(w, "404: Not Found", http.StatusNotFound)
		return
	}
	sha, ok := resolveCommit(repo, urlParam(r, "ref"))
	var e treeEntry
	if ok {
		e, ok = repo.git.lookup(repo.git.commits[sha].Tree, wildcard(r))
	}
	if !ok || e.Mode == modeTree {
		http.Error(w, "404: Not Found", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write(repo.git.blobs[e.SHA])
}

// handleGetTree serves GET /repos/{o}/{r}/git/trees/{sha}[?recursive=1].
func (s *Server) handleGetTree(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	repo := repoOf(r)
	sha, ok := resolveTree(repo, urlParam(r, "sha"))
	if !ok {
		notFound(w)
		return
	}
	recursive := r.URL.Query().Get("recursive")
	writeJSON(w, http.StatusOK, s.treeJSON(repo, sha, recursive != "" && recursive != "0" && recursive != "false"))
}

// treeJSON renders a tree, optionally with every nested entry in git's
// pre-order. Callers hold s.mu.
func (s *Server) treeJSON(repo *repoState, sha string, recursive bool) map[string]any {
	entries := []map[string]any{}
	truncated := false
	var walk func(treeSHA, prefix string)
	walk = func(treeSHA, prefix string) {
		for _, e := range repo.git.trees[treeSHA] {
			if len(entries) >= s.opts.TreeLimit {
				truncated = true
				return
			}
			p := path.Join(prefix, e.Name)
			entry := map[string]any{"path": p, "mode": e.Mode, "type": e.kind(), "sha": e.SHA,
				"url": s.repoAPI(repo, "git/"+e.kind()+"s/"+e.SHA)}
			if e.kind() == "blob" {
				entry["size"] = len(repo.git.blobs[e.SHA])
			}
			entries = append(entries, entry)
			if recursive && e.Mode == modeTree {
				walk(e.SHA, p)
			}
		}
	}
	walk(sha, "")
	return map[string]any{"sha": sha, "url": s.repoAPI(repo, "git/trees/"+sha), "tree": entries, "truncated": truncated}
}

// handleGetBlob serves GET /repos/{o}/{r}/git/blobs/{sha}, as JSON or raw.
func (s *Server) handleGetBlob(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	repo := repoOf(r)
	sha := urlParam(r, "sha")
	data, ok := repo.git.blobs[sha]
	if !ok {
		notFound(w)
		return
	}
	if wantsMedia(r, rawMediaType) {
		w.Header().Set("Content-Type", answeredMedia(r, rawMediaType)+"; charset=utf-8")
		_, _ = w.Write(data)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"sha": sha, "node_id": "B_" + sha[:12], "size": len(data), "url": s.repoAPI(repo, "git/blobs/"+sha),
		"content": wrapBase64(data), "encoding": "base64",
	})
}

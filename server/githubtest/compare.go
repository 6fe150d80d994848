package githubtest

import (
	"net/http"
	"slices"
	"sort"
	"strings"
)

// maxCompareCommits is how many commits a comparison lists without
// pagination, and maxCompareFiles how many changed files it lists (GitHub's
// documented limits for GET /repos/{o}/{r}/compare/{basehead}).
const (
	maxCompareCommits = 250
	maxCompareFiles   = 300
)

// handleCompare serves GET /repos/{o}/{r}/compare/{base}...{head}: the
// commits reachable from head and not from base, oldest first, and the files
// changed between their merge base and head. An unknown ref is 404 "Not
// Found"; two histories without a common ancestor are 404 too.
func (s *Server) handleCompare(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	repo := repoOf(r)
	baseRef, headRef, ok := strings.Cut(wildcard(r), "...")
	if !ok || baseRef == "" || headRef == "" {
		notFound(w)
		return
	}
	base, okBase := resolveCommit(repo, baseRef)
	head, okHead := resolveCommit(repo, headRef)
	if !okBase || !okHead {
		notFound(w)
		return
	}
	g := repo.git
	mergeBase := g.mergeBase(base, head)
	if mergeBase == "" {
		writeError(w, http.StatusNotFound, "No common ancestor between "+baseRef+" and "+headRef+".")
		return
	}
	ahead, behind := g.onlyFrom(head, base), g.onlyFrom(base, head)
	status := "diverged"
	switch {
	case len(ahead) == 0 && len(behind) == 0:
		status = "identical"
	case len(behind) == 0:
		status = "ahead"
	case len(ahead) == 0:
		status = "behind"
	}
	commits := ahead
	_, paged := r.URL.Query()["page"]
	_, sized := r.URL.Query()["per_page"]
	p := pageOf(r)
	if paged || sized {
		lo, hi := p.bounds(len(commits))
		setLink(w, r, p, len(commits))
		commits = commits[lo:hi]
	} else if len(commits) > maxCompareCommits {
		commits = commits[:maxCompareCommits]
	}
	list := make([]map[string]any, 0, len(commits))
	for _, sha := range commits {
		list = append(list, s.restCommitJSON(repo, g.commits[sha]))
	}
	body := map[string]any{
		"url":               s.repoAPI(repo, "compare/"+baseRef+"..."+headRef),
		"html_url":          s.repoHTML(repo, "compare/"+baseRef+"..."+headRef),
		"permalink_url":     s.repoHTML(repo, "compare/"+base+"..."+head),
		"diff_url":          s.repoHTML(repo, "compare/"+baseRef+"..."+headRef+".diff"),
		"patch_url":         s.repoHTML(repo, "compare/"+baseRef+"..."+headRef+".patch"),
		"base_commit":       s.restCommitJSON(repo, g.commits[base]),
		"merge_base_commit": s.restCommitJSON(repo, g.commits[mergeBase]),
		"status":            status, "ahead_by": len(ahead), "behind_by": len(behind), "total_commits": len(ahead),
		"commits": list,
	}
	if p.page == 1 {
		files := s.diffFiles(repo, g.commits[mergeBase].Tree, g.commits[head].Tree)
		body["files"] = files[:min(len(files), maxCompareFiles)]
	}
	writeJSON(w, http.StatusOK, body)
}

// mergeBase is the newest commit reachable from both a and b ("" when
// their histories share none): of the common ancestors, one no other
// common ancestor descends from.
func (g *gitStore) mergeBase(a, b string) string {
	fromA := g.reachable(a)
	var common []string
	for sha := range g.reachable(b) {
		if fromA[sha] {
			common = append(common, sha)
		}
	}
	slices.Sort(common) // deterministic among equals
	for _, c := range common {
		best := true
		for _, d := range common {
			if d != c && g.isAncestor(c, d) {
				best = false
				break
			}
		}
		if best {
			return c
		}
	}
	return ""
}

// reachable is every commit reachable from sha through parents, sha included.
func (g *gitStore) reachable(sha string) map[string]bool {
	seen := map[string]bool{}
	stack := []string{sha}
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		c, ok := g.commits[cur]
		if seen[cur] || !ok {
			continue
		}
		seen[cur] = true
		stack = append(stack, c.Parents...)
	}
	return seen
}

// onlyFrom lists the commits reachable from head and not from base, oldest
// first (parents before children, then by committer date).
func (g *gitStore) onlyFrom(head, base string) []string {
	exclude := g.reachable(base)
	var out []string
	for sha := range g.reachable(head) {
		if !exclude[sha] {
			out = append(out, sha)
		}
	}
	depth := map[string]int{}
	var depthOf func(sha string, n int) int
	depthOf = func(sha string, n int) int {
		if d, ok := depth[sha]; ok {
			return d
		}
		d := 0
		if c, ok := g.commits[sha]; ok && n < 10000 {
			for _, p := range c.Parents {
				if !exclude[p] {
					d = max(d, depthOf(p, n+1)+1)
				}
			}
		}
		depth[sha] = d
		return d
	}
	sort.Slice(out, func(i, j int) bool {
		di, dj := depthOf(out[i], 0), depthOf(out[j], 0)
		if di != dj {
			return di < dj
		}
		ti, tj := g.commits[out[i]].Committer.Date, g.commits[out[j]].Committer.Date
		if !ti.Equal(tj) {
			return ti.Before(tj)
		}
		return out[i] < out[j]
	})
	return out
}

// diffFiles lists the files changed from one tree to another as GitHub's
// commit and compare endpoints do, by path.
func (s *Server) diffFiles(repo *repoState, from, to string) []map[string]any {
	g := repo.git
	old, _ := g.flatten(from)
	cur, _ := g.flatten(to)
	var paths []string
	for p, e := range cur {
		if o, ok := old[p]; !ok || o.SHA != e.SHA || o.Mode != e.Mode {
			paths = append(paths, p)
		}
	}
	for p := range old {
		if _, ok := cur[p]; !ok {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	out := make([]map[string]any, 0, len(paths))
	for _, p := range paths {
		o, hadOld := old[p]
		e, hasNew := cur[p]
		status, sha := "modified", e.SHA
		switch {
		case !hadOld:
			status = "added"
		case !hasNew:
			status, sha = "removed", o.SHA
		}
		add, del := lineDelta(g.blobs[o.SHA], g.blobs[e.SHA])
		out = append(out, map[string]any{
			"sha": sha, "filename": p, "status": status,
			"additions": add, "deletions": del, "changes": add + del,
			"blob_url":     s.repoHTML(repo, "blob/"+sha+"/"+escapePath(p)),
			"raw_url":      s.repoHTML(repo, "raw/"+sha+"/"+escapePath(p)),
			"contents_url": s.repoAPI(repo, "contents/"+escapePath(p)+"?ref="+sha),
		})
	}
	return out
}

// lineDelta counts the lines only the new content has (additions) and only
// the old one has (deletions), as multisets of lines.
func lineDelta(old, cur []byte) (add, del int) {
	count := map[string]int{}
	for _, l := range splitLines(old) {
		count[l]++
	}
	for _, l := range splitLines(cur) {
		if count[l] > 0 {
			count[l]--
			continue
		}
		add++
	}
	for _, n := range count {
		del += n
	}
	return add, del
}

// splitLines splits content into lines without their newlines.
func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// commitWithFiles is GET /commits/{sha}: the commit, the files it changed
// against its first parent (all of them for a root commit) and their stats.
func (s *Server) commitWithFiles(repo *repoState, c *commitObj) map[string]any {
	body := s.restCommitJSON(repo, c)
	from := ""
	if len(c.Parents) > 0 {
		if p, ok := repo.git.commits[c.Parents[0]]; ok {
			from = p.Tree
		}
	}
	files := s.diffFiles(repo, from, c.Tree)
	add, del := 0, 0
	for _, f := range files {
		add += f["additions"].(int)
		del += f["deletions"].(int)
	}
	body["stats"] = map[string]any{"total": add + del, "additions": add, "deletions": del}
	body["files"] = files[:min(len(files), maxCompareFiles)]
	return body
}

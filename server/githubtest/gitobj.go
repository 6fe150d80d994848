package githubtest

import (
	"crypto/sha1" //nolint:gosec // git object names are SHA-1 by definition
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"
)

// Git modes as GitHub reports them in trees.
const (
	modeFile    = "100644"
	modeExec    = "100755"
	modeSymlink = "120000"
	modeTree    = "040000"
	modeCommit  = "160000"
)

// treeEntry is one entry of a git tree.
type treeEntry struct {
	Name string
	Mode string
	SHA  string
}

// kind is the object type the entry's mode names.
func (e treeEntry) kind() string {
	switch e.Mode {
	case modeTree:
		return "tree"
	case modeCommit:
		return "commit"
	}
	return "blob"
}

// signature is a commit author or committer.
type signature struct {
	Name  string
	Email string
	Date  time.Time
}

// commitObj is a git commit.
type commitObj struct {
	SHA       string
	Tree      string
	Parents   []string
	Message   string
	Author    signature
	Committer signature
}

// gitStore holds a repository's git objects, addressed by SHA-1 as git
// computes it, so written objects get the names real git would give them.
type gitStore struct {
	blobs   map[string][]byte
	trees   map[string][]treeEntry
	commits map[string]*commitObj
}

func newGitStore() *gitStore {
	return &gitStore{blobs: map[string][]byte{}, trees: map[string][]treeEntry{}, commits: map[string]*commitObj{}}
}

// hashObject returns git's object name for a typed payload.
func hashObject(kind string, data []byte) string {
	h := sha1.New() //nolint:gosec // git object naming
	fmt.Fprintf(h, "%s %d\x00", kind, len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// putBlob stores content and returns its SHA.
func (g *gitStore) putBlob(content []byte) string {
	sha := hashObject("blob", content)
	if _, ok := g.blobs[sha]; !ok {
		g.blobs[sha] = append([]byte(nil), content...)
	}
	return sha
}

// sortKey orders tree entries the way git does: trees compare as name + "/".
func sortKey(e treeEntry) string {
	if e.Mode == modeTree {
		return e.Name + "/"
	}
	return e.Name
}

// putTree stores a tree and returns its SHA.
func (g *gitStore) putTree(entries []treeEntry) string {
	sorted := append([]treeEntry(nil), entries...)
	sort.Slice(sorted, func(i, j int) bool { return sortKey(sorted[i]) < sortKey(sorted[j]) })
	var buf []byte
	for _, e := range sorted {
		raw, _ := hex.DecodeString(e.SHA)
		buf = append(buf, strings.TrimPrefix(e.Mode, "0")...)
		buf = append(buf, ' ')
		buf = append(buf, e.Name...)
		buf = append(buf, 0)
		buf = append(buf, raw...)
	}
	sha := hashObject("tree", buf)
	g.trees[sha] = sorted
	return sha
}

// putCommit stores a commit, computing its SHA unless c.SHA is already set
// (scenario commits keep the SHA the scenario names).
func (g *gitStore) putCommit(c *commitObj) string {
	if c.SHA == "" {
		var b strings.Builder
		fmt.Fprintf(&b, "tree %s\n", c.Tree)
		for _, p := range c.Parents {
			fmt.Fprintf(&b, "parent %s\n", p)
		}
		fmt.Fprintf(&b, "author %s <%s> %d +0000\n", c.Author.Name, c.Author.Email, c.Author.Date.Unix())
		fmt.Fprintf(&b, "committer %s <%s> %d +0000\n\n%s", c.Committer.Name, c.Committer.Email, c.Committer.Date.Unix(), c.Message)
		c.SHA = hashObject("commit", []byte(b.String()))
	}
	g.commits[c.SHA] = c
	return c.SHA
}

// fileEntry is a non-tree entry reached by a full path.
type fileEntry struct {
	Mode string
	SHA  string
}

// flatten lists every non-tree entry under a tree by full path.
func (g *gitStore) flatten(treeSHA string) (map[string]fileEntry, error) {
	out := map[string]fileEntry{}
	var walk func(sha, prefix string, depth int) error
	walk = func(sha, prefix string, depth int) error {
		entries, ok := g.trees[sha]
		if !ok {
			return fmt.Errorf("tree %s does not exist", sha)
		}
		if depth > 256 {
			return errors.New("tree is nested too deeply")
		}
		for _, e := range entries {
			p := path.Join(prefix, e.Name)
			if e.Mode == modeTree {
				if err := walk(e.SHA, p, depth+1); err != nil {
					return err
				}
				continue
			}
			out[p] = fileEntry{Mode: e.Mode, SHA: e.SHA}
		}
		return nil
	}
	return out, walk(treeSHA, "", 0)
}

// build stores the trees for a set of files by full path and returns the
// root tree's SHA.
func (g *gitStore) build(files map[string]fileEntry) string {
	type dir struct {
		files map[string]fileEntry
		dirs  map[string]*dir
	}
	newDir := func() *dir { return &dir{files: map[string]fileEntry{}, dirs: map[string]*dir{}} }
	root := newDir()
	for p, f := range files {
		parts := strings.Split(p, "/")
		d := root
		for _, part := range parts[:len(parts)-1] {
			if d.dirs[part] == nil {
				d.dirs[part] = newDir()
			}
			d = d.dirs[part]
		}
		d.files[parts[len(parts)-1]] = f
	}
	var store func(d *dir) string
	store = func(d *dir) string {
		var entries []treeEntry
		for name, f := range d.files {
			entries = append(entries, treeEntry{Name: name, Mode: f.Mode, SHA: f.SHA})
		}
		for name, sub := range d.dirs {
			entries = append(entries, treeEntry{Name: name, Mode: modeTree, SHA: store(sub)})
		}
		return g.putTree(entries)
	}
	return store(root)
}

// lookup finds the entry at p (a file or a directory) in a tree. The root
// itself is returned for an empty path.
func (g *gitStore) lookup(treeSHA, p string) (treeEntry, bool) {
	p = strings.Trim(p, "/")
	cur := treeEntry{Mode: modeTree, SHA: treeSHA}
	if p == "" {
		_, ok := g.trees[treeSHA]
		return cur, ok
	}
	for _, part := range strings.Split(p, "/") {
		entries, ok := g.trees[cur.SHA]
		if !ok || cur.Mode != modeTree {
			return treeEntry{}, false
		}
		found := false
		for _, e := range entries {
			if e.Name == part {
				cur, found = e, true
				break
			}
		}
		if !found {
			return treeEntry{}, false
		}
	}
	cur.Name = path.Base(p)
	return cur, true
}

// isAncestor reports whether anc is reachable from sha through parents.
func (g *gitStore) isAncestor(anc, sha string) bool {
	seen := map[string]bool{}
	stack := []string{sha}
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if cur == anc {
			return true
		}
		if seen[cur] {
			continue
		}
		seen[cur] = true
		if c, ok := g.commits[cur]; ok {
			stack = append(stack, c.Parents...)
		}
	}
	return false
}

// validPath reports whether p is a path git would accept in a tree.
func validPath(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") {
		return false
	}
	for _, part := range strings.Split(p, "/") {
		if part == "" || part == "." || part == ".." || part == ".git" || strings.ContainsRune(part, 0) {
			return false
		}
	}
	return true
}

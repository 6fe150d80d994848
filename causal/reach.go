package causal

import (
	"path"
	"slices"
	"strings"

	"github.com/polylane/polylane/causal/harness"
)

// Reach is what a failing step builds or tests, as far as the harness model
// follows it: the files it runs (the workflow, Make and Task files, scripts,
// Dockerfiles), the directories it works or builds in (not the repository
// root, which would hold every change), and the failed test's file and
// its directory.
type Reach struct {
	Files []string `json:"files,omitempty"`
	Dirs  []string `json:"dirs,omitempty"`
}

// Touches reports whether a changed file is one the step reaches: one of its
// files, or a file under one of its directories.
func (r Reach) Touches(file string) bool {
	file = path.Clean(strings.TrimPrefix(file, "./"))
	if slices.Contains(r.Files, file) {
		return true
	}
	for _, d := range r.Dirs {
		if strings.HasPrefix(file, d+"/") {
			return true
		}
	}
	return false
}

// stepReach collects the reach of the failing step from its execution tree
// and the chain's failed test.
func (x *explainer) stepReach() Reach {
	files, dirs := map[string]bool{}, map[string]bool{}
	addDir := func(d string) {
		if d = repoPath(d); d != "" {
			dirs[d] = true
		}
	}
	x.tree.Walk(func(n *harness.Node) bool {
		if f := repoPath(n.File); f != "" {
			files[f] = true
		}
		addDir(n.Dir)
		for _, m := range n.Mounts {
			addDir(m.Repo)
		}
		return true
	})
	if t := x.chain.Mechanism.Test; t != nil {
		if f := repoPath(t.File); f != "" {
			// the test's file, and the package or directory it tests
			files[f] = true
			addDir(path.Dir(f))
		}
	}
	r := Reach{}
	for f := range files {
		r.Files = append(r.Files, f)
	}
	for d := range dirs {
		r.Dirs = append(r.Dirs, d)
	}
	slices.Sort(r.Files)
	slices.Sort(r.Dirs)
	return r
}

// repoPath cleans a repository-relative path; the root, an absolute path
// and a path that leaves the repository give "".
func repoPath(p string) string {
	if p == "" || strings.HasPrefix(p, "/") || strings.ContainsAny(p, "$`") {
		return ""
	}
	p = path.Clean(p)
	if p == "." || p == ".." || strings.HasPrefix(p, "../") {
		return ""
	}
	return p
}

package causal

import (
	"io/fs"
	"path"
	"regexp"
	"strings"

	"github.com/polylane/polylane/causal/harness"
)

// pathMapper maps the paths a log prints to repository paths: it strips the
// runner's workspace (/home/runner/work/<repo>/<repo>/, the container job's
// /__w/…, Windows' D:\a\…, a docker action's /github/workspace) and the
// job's checkout path, maps container directories through the mounts the
// harness sets up (an image build's WORKDIR and COPY, docker run -v), reads
// relative paths from the directories the commands ran in, and last finds
// an unknown absolute path by its longest tail that is a repository file.
type pathMapper struct {
	repo     *harness.Repo
	checkout string
	mounts   []harness.Mount
	// byBase indexes the repository's files by base name, built on first
	// use; files counts them.
	byBase map[string][]string
	files  int
}

// maxIndexedFiles bounds the repository files indexed for tail matches.
const maxIndexedFiles = 200000

var (
	workspacePath  = regexp.MustCompile(`(?:^|/)(?:work|_work|__w|[A-Za-z]:/a)/([^/]+)/([^/]+)/(.*)$`)
	dockerActionWS = regexp.MustCompile(`^/github/workspace/(.*)$`)
)

// repoPath returns the repository path of a printed path, "" when it names
// no repository file. dirs are directories a relative path may be
// relative to, most likely first.
func (m *pathMapper) repoPath(raw string, dirs ...string) string {
	p := strings.TrimSpace(strings.TrimPrefix(raw, "file://"))
	p = strings.ReplaceAll(p, `\`, "/")
	if p == "" || strings.ContainsAny(p, "\x00*?") || len(p) > 1024 {
		return ""
	}
	if ws, ok := m.workspaceRelative(p); ok {
		return m.existing(ws)
	}
	if strings.HasPrefix(p, "/") {
		for i := len(m.mounts) - 1; i >= 0; i-- {
			mt := m.mounts[i]
			if rest, ok := strings.CutPrefix(p, strings.TrimSuffix(mt.Container, "/")+"/"); ok && !strings.HasPrefix(mt.Repo, "/") {
				if q := m.existing(path.Join(mt.Repo, rest)); q != "" {
					return q
				}
			}
		}
		return m.byTail(p)
	}
	for _, d := range append(dirs, ".") {
		if d == "" || strings.HasPrefix(d, "/") {
			continue
		}
		if q := m.existing(path.Join(d, p)); q != "" {
			return q
		}
	}
	return m.byTail(p)
}

// workspaceRelative strips the runner's workspace and the checkout path.
func (m *pathMapper) workspaceRelative(p string) (string, bool) {
	rest := ""
	if w := workspacePath.FindStringSubmatch(p); w != nil && strings.EqualFold(w[1], w[2]) {
		rest = w[3]
	} else if w := dockerActionWS.FindStringSubmatch(p); w != nil {
		rest = w[1]
	} else {
		return "", false
	}
	if c := m.checkout; c != "" {
		if r, ok := strings.CutPrefix(rest, c+"/"); ok {
			rest = r
		}
	}
	return rest, true
}

// existing returns p cleaned when it is a repository file, else "".
func (m *pathMapper) existing(p string) string {
	p = strings.TrimPrefix(path.Clean("/"+p), "/")
	if p == "" || m.repo == nil || !m.repo.Exists(p) {
		return ""
	}
	return p
}

// byTail finds the one repository file whose path ends with the longest
// tail of p that has at least two elements ("…/server/src/main.rs" →
// server/src/main.rs); "" when none or several do.
func (m *pathMapper) byTail(p string) string {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	if len(parts) < 2 || m.repo == nil {
		return ""
	}
	cands := m.index()[parts[len(parts)-1]]
	if len(cands) == 0 {
		return ""
	}
	for i := 0; i+2 <= len(parts) && i < 16; i++ {
		tail := strings.Join(parts[i:], "/")
		var found []string
		for _, c := range cands {
			if c == tail {
				return c
			}
			if strings.HasSuffix(c, "/"+tail) {
				found = append(found, c)
			}
		}
		if len(found) == 1 {
			return found[0]
		}
		if len(found) > 1 {
			return ""
		}
	}
	return ""
}

// index returns the repository's files by base name.
func (m *pathMapper) index() map[string][]string {
	if m.byBase != nil {
		return m.byBase
	}
	m.byBase = map[string][]string{}
	_ = fs.WalkDir(m.repo.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if n := d.Name(); n == ".git" || n == "node_modules" {
				return fs.SkipDir
			}
			return nil
		}
		if m.files++; m.files > maxIndexedFiles {
			return fs.SkipAll
		}
		b := path.Base(p)
		m.byBase[b] = append(m.byBase[b], p)
		return nil
	})
	return m.byBase
}

package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/polylane/polylane/analysis/scenario"
	"github.com/polylane/polylane/causal/diagnosis"
	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/server/worker"
)

// Bounds of the repository files a capture keeps.
const (
	maxRepoFiles     = 1000
	maxRepoFileBytes = 4 << 20
)

// deployDirs are directory names under which YAML files are deploy
// manifests or charts.
var deployDirs = map[string]bool{"deploy": true, "deployment": true, "deployments": true, "k8s": true, "kubernetes": true,
	"manifests": true, "charts": true, "chart": true, "helm": true, "kustomize": true, "overlays": true}

// harnessFile reports the files a capture keeps whatever the diagnosis
// reads: workflows, Taskfiles, Makefiles, Dockerfiles, .dockerignore,
// Compose files, deploy manifests and charts, package.json and go.mod.
// Scripts and other files are kept when the diagnosis reads them.
func harnessFile(p string) bool {
	base := path.Base(p)
	lower := strings.ToLower(base)
	yaml := strings.HasSuffix(lower, ".yml") || strings.HasSuffix(lower, ".yaml")
	switch {
	case yaml && (strings.HasPrefix(lower, "docker-compose") || strings.HasPrefix(lower, "compose.") || lower == "kustomization.yaml" || lower == "chart.yaml"):
		return true
	case (yaml || strings.HasSuffix(lower, ".tpl")) && underDeployDir(p):
		return true
	case strings.HasPrefix(p, ".github/workflows/") && (strings.HasSuffix(lower, ".yml") || strings.HasSuffix(lower, ".yaml")):
		return true
	case strings.HasPrefix(lower, "taskfile") && (strings.HasSuffix(lower, ".yml") || strings.HasSuffix(lower, ".yaml")):
		return true
	case base == "Makefile" || base == "makefile" || base == "GNUmakefile" || strings.HasSuffix(lower, ".mk"):
		return true
	case strings.HasPrefix(lower, "dockerfile") || strings.HasSuffix(lower, ".dockerfile") || base == ".dockerignore":
		return true
	case p == "package.json" || p == "go.mod":
		return true
	}
	return false
}

// underDeployDir reports a path with a deploy directory among its parents.
func underDeployDir(p string) bool {
	dirs := strings.Split(path.Dir(p), "/")
	for _, d := range dirs {
		if deployDirs[strings.ToLower(d)] {
			return true
		}
	}
	return false
}

// recordingFS remembers the regular files read through it.
type recordingFS struct {
	fsys worker.TreeFS
	mu   sync.Mutex
	read map[string]bool
}

func (r *recordingFS) note(name string) {
	r.mu.Lock()
	r.read[name] = true
	r.mu.Unlock()
}

// Open implements fs.FS; opening a file counts as reading it.
func (r *recordingFS) Open(name string) (fs.File, error) {
	f, err := r.fsys.Open(name)
	if err == nil {
		if st, serr := f.Stat(); serr == nil && st.Mode().IsRegular() {
			r.note(name)
		}
	}
	return f, err
}

// ReadFile implements fs.ReadFileFS.
func (r *recordingFS) ReadFile(name string) ([]byte, error) {
	data, err := r.fsys.ReadFile(name)
	if err == nil {
		r.note(name)
	}
	return data, err
}

// Stat implements fs.StatFS.
func (r *recordingFS) Stat(name string) (fs.FileInfo, error) { return r.fsys.Stat(name) }

// ReadDir implements fs.ReadDirFS.
func (r *recordingFS) ReadDir(name string) ([]fs.DirEntry, error) { return r.fsys.ReadDir(name) }

// captureRepo writes repo/: the harness files of the trigger's head commit,
// those harnessFile names and those the diagnosis reads when it runs over
// the captured runs, jobs and logs (the same reading the server's causal
// stage does).
func (c *capture) captureRepo(ctx context.Context, headSHA string) error {
	tree, err := c.repo.GetTree(ctx, headSHA)
	if err != nil {
		return fmt.Errorf("tree of %s: %w", headSHA, err)
	}
	blobs := map[string][]byte{}
	var blobsMu sync.Mutex
	fetch := func(sha string) ([]byte, error) {
		data, err := c.repo.GetBlob(ctx, sha)
		if err == nil {
			blobsMu.Lock()
			blobs[sha] = data
			blobsMu.Unlock()
		}
		return data, err
	}
	rec := &recordingFS{fsys: worker.NewTreeFS(tree, maxRepoFiles, fetch), read: map[string]bool{}}
	if note := c.diagnoseThrough(rec); note != "" {
		fmt.Fprintln(c.stderr, "capture: "+note)
	}
	if err := rec.fsys.Err(); err != nil {
		return fmt.Errorf("read the repository at %s: %w", headSHA, err)
	}
	want := map[string]ghclient.TreeEntry{}
	for _, e := range tree.Entries {
		if e.Type == "blob" && e.Mode != "120000" && e.Size <= maxRepoFileBytes && (rec.read[e.Path] || harnessFile(e.Path)) && fs.ValidPath(e.Path) {
			want[e.Path] = e
		}
	}
	paths := make([]string, 0, len(want))
	for p := range want {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	if len(paths) > maxRepoFiles {
		paths = paths[:maxRepoFiles]
	}
	return c.writeRepoFiles(ctx, paths, want, blobs)
}

// writeRepoFiles writes the chosen files under repo/, downloading those the
// diagnosis did not already read.
func (c *capture) writeRepoFiles(ctx context.Context, paths []string, want map[string]ghclient.TreeEntry, blobs map[string][]byte) error {
	c.progress.start("repo", len(paths))
	skipped := 0
	for _, p := range paths {
		dst := filepath.Join(c.out, "repo", filepath.FromSlash(p))
		if exists(dst) {
			skipped++
			c.progress.step()
			continue
		}
		e := want[p]
		data, ok := blobs[e.SHA]
		if !ok {
			var err error
			if data, err = c.repo.GetBlob(ctx, e.SHA); err != nil {
				return fmt.Errorf("file %s: %w", p, err)
			}
		}
		if err := writeAtomic(dst, data); err != nil {
			return err
		}
		if e.Mode == "100755" {
			if err := os.Chmod(dst, 0o755); err != nil {
				return fmt.Errorf("file %s: %w", p, err)
			}
		}
		c.progress.step()
	}
	c.progress.finish(resumedNote(skipped))
	c.stats.files = len(paths)
	return nil
}

// diagnoseThrough runs the diagnosis over the captured scenario with the
// repository read through rec, and returns a note when it could not run
// (the capture then keeps only the files harnessFile names).
func (c *capture) diagnoseThrough(rec *recordingFS) string {
	sc, err := scenario.Load(os.DirFS(c.out))
	if err != nil {
		return "the captured scenario does not load: " + err.Error()
	}
	in := diagnosis.FromScenario(sc, diagnosis.Options{})
	in.Tree = rec
	if _, err := diagnosis.Diagnose(in); err != nil {
		return "the diagnosis of the capture failed (" + err.Error() + "); only the usual harness files are kept"
	}
	return ""
}

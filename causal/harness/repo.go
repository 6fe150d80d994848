package harness

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// Repo reads and caches the harness files of one repository tree.
type Repo struct {
	fsys      fs.FS
	workflows map[string]*Workflow
	taskfiles map[string]*Taskfile
	makefiles map[string]*Makefile
	scripts   map[string]*Script
	packages  map[string]*PackageJSON
	// dockerfiles, justfiles and composes cache the other harness files.
	dockerfiles map[string]*Dockerfile
	justfiles   map[string]*Justfile
	composes    map[string]*Compose
	errs        map[string]error
	// skipped holds the files left unparsed for a limit, with the reason;
	// read is the bytes read so far against MaxRepoBytes.
	skipped map[string]string
	read    int
	// name is the repository's full name, when known.
	name string
}

// NewRepo returns a Repo over fsys, the repository tree at the run's commit.
func NewRepo(fsys fs.FS) *Repo {
	return &Repo{
		fsys:      fsys,
		workflows: map[string]*Workflow{},
		taskfiles: map[string]*Taskfile{},
		makefiles: map[string]*Makefile{},
		scripts:   map[string]*Script{},
		packages:  map[string]*PackageJSON{},
		errs:      map[string]error{},
		// the other harness files
		dockerfiles: map[string]*Dockerfile{},
		justfiles:   map[string]*Justfile{},
		composes:    map[string]*Compose{},
	}
}

// Named sets the repository's full name ("owner/name"), so that a job that
// checks this repository out by name (actions/checkout's repository:) is
// recognised; it returns r.
func (r *Repo) Named(fullName string) *Repo {
	r.name = fullName
	return r
}

// FS returns the repository tree.
func (r *Repo) FS() fs.FS { return r.fsys }

// ReadFile reads a repository file, refusing files above MaxFileBytes and
// paths that leave the tree.
func (r *Repo) ReadFile(p string) ([]byte, error) {
	p = cleanPath(p)
	if p == "" || !fs.ValidPath(p) {
		return nil, fmt.Errorf("read %q: %w", p, fs.ErrInvalid)
	}
	st, err := fs.Stat(r.fsys, p)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("read %s: is a directory", p)
	}
	if st.Size() > MaxFileBytes {
		return nil, &LimitError{File: p, What: "size", Limit: MaxFileBytes, Found: int(min(st.Size(), 1<<40))}
	}
	if r.read+int(st.Size()) > MaxRepoBytes {
		return nil, &LimitError{File: p, What: "budget", Limit: MaxRepoBytes}
	}
	data, err := readAtMost(r.fsys, p, MaxFileBytes)
	if err != nil {
		return nil, err
	}
	r.read += len(data)
	return data, nil
}

// readAtMost reads a file, failing when it holds more than limit bytes
// (a file may grow after its Stat, or report no size at all).
func readAtMost(fsys fs.FS, p string, limit int) ([]byte, error) {
	f, err := fsys.Open(p)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	if len(data) > limit {
		return nil, &LimitError{File: p, What: "size", Limit: limit, Found: len(data)}
	}
	return data, nil
}

// Exists reports whether a regular file exists at p.
func (r *Repo) Exists(p string) bool {
	p = cleanPath(p)
	if p == "" || !fs.ValidPath(p) {
		return false
	}
	st, err := fs.Stat(r.fsys, p)
	return err == nil && !st.IsDir()
}

// cleanPath makes a repository-relative slash path; it returns "" for paths
// that escape the tree.
func cleanPath(p string) string {
	p = strings.TrimPrefix(path.Clean("/"+strings.TrimPrefix(p, "./")), "/")
	if p == "" || p == "." {
		return ""
	}
	return p
}

// Workflow returns the parsed workflow at p.
func (r *Repo) Workflow(p string) (*Workflow, error) {
	return parsed(r, r.workflows, p, ParseWorkflow)
}

// parsed returns the parse of the file at p from cache, parsing it on
// first use; a file over a limit is noted as not analysed.
func parsed[T any](r *Repo, cache map[string]T, p string, parse func(string, []byte) (T, error)) (T, error) {
	p = cleanPath(p)
	if v, ok := cache[p]; ok {
		return v, r.errs[p]
	}
	data, err := r.ReadFile(p)
	var v T
	if err == nil {
		v, err = parse(p, data)
	}
	cache[p], r.errs[p] = v, err
	r.noteLimit(err)
	return v, err
}

// Workflows returns every parseable workflow under .github/workflows, sorted
// by path.
func (r *Repo) Workflows() []*Workflow {
	entries, err := fs.ReadDir(r.fsys, ".github/workflows")
	if err != nil {
		return nil
	}
	var out []*Workflow
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !(strings.HasSuffix(n, ".yml") || strings.HasSuffix(n, ".yaml")) {
			continue
		}
		if wf, err := r.Workflow(".github/workflows/" + n); err == nil {
			out = append(out, wf)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Taskfile returns the parsed Taskfile at p.
func (r *Repo) Taskfile(p string) (*Taskfile, error) {
	return parsed(r, r.taskfiles, p, ParseTaskfile)
}

// FindTaskfile returns the Taskfile task would use in dir.
func (r *Repo) FindTaskfile(dir string) (*Taskfile, error) {
	for _, n := range taskfileNames {
		p := path.Join(dir, n)
		if r.Exists(p) {
			return r.Taskfile(p)
		}
	}
	return nil, fmt.Errorf("no Taskfile in %q: %w", dir, fs.ErrNotExist)
}

// Makefile returns the parsed Makefile at p.
func (r *Repo) Makefile(p string) (*Makefile, error) {
	return parsed(r, r.makefiles, p, ParseMakefile)
}

// FindMakefile returns the Makefile make would use in dir.
func (r *Repo) FindMakefile(dir string) (*Makefile, error) {
	for _, n := range []string{"GNUmakefile", "makefile", "Makefile"} {
		p := path.Join(dir, n)
		if r.Exists(p) {
			return r.Makefile(p)
		}
	}
	return nil, fmt.Errorf("no Makefile in %q: %w", dir, fs.ErrNotExist)
}

// Script returns the parsed shell script at p.
func (r *Repo) Script(p string) (*Script, error) {
	p = cleanPath(p)
	if s, ok := r.scripts[p]; ok {
		return s, r.errs[p]
	}
	data, err := r.ReadFile(p)
	var s *Script
	if err == nil {
		s = ParseShell(p, 1, string(data))
		err = s.Err
	}
	r.scripts[p], r.errs[p] = s, err
	r.noteLimit(err)
	return s, err
}

// Dockerfile returns the parsed Dockerfile at p.
func (r *Repo) Dockerfile(p string) (*Dockerfile, error) {
	return parsed(r, r.dockerfiles, p, ParseDockerfile)
}

// PackageJSON is the scripts section of a package.json with line numbers.
type PackageJSON struct {
	Path    string
	Scripts map[string]Value
}

// Package returns the package.json in dir.
func (r *Repo) Package(dir string) (*PackageJSON, error) {
	p := cleanPath(path.Join(dir, "package.json"))
	if pj, ok := r.packages[p]; ok {
		return pj, r.errs[p]
	}
	data, err := r.ReadFile(p)
	var pj *PackageJSON
	if err == nil {
		pj, err = parsePackageJSON(p, data)
	}
	r.packages[p], r.errs[p] = pj, err
	r.noteLimit(err)
	return pj, err
}

// Names returns the script names in order.
func (pj *PackageJSON) Names() []string {
	names := make([]string, 0, len(pj.Scripts))
	for n := range pj.Scripts {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := pj.Scripts[names[i]], pj.Scripts[names[j]]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return names[i] < names[j]
	})
	return names
}

func parsePackageJSON(p string, data []byte) (*PackageJSON, error) {
	if err := CheckJSON(p, data); err != nil {
		return nil, err
	}
	var doc struct {
		Scripts map[string]string `json:"scripts"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("parse %s: %w", p, err)
	}
	pj := &PackageJSON{Path: p, Scripts: map[string]Value{}}
	lines := strings.Split(string(data), "\n")
	inScripts := false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, `"scripts"`) {
			inScripts = true
			continue
		}
		if !inScripts {
			continue
		}
		if strings.HasPrefix(t, "}") {
			break
		}
		for name, cmd := range doc.Scripts {
			if strings.HasPrefix(t, `"`+name+`"`) {
				pj.Scripts[name] = Value{Text: cmd, Line: i + 1}
			}
		}
	}
	for name, cmd := range doc.Scripts {
		if _, ok := pj.Scripts[name]; !ok {
			pj.Scripts[name] = Value{Text: cmd}
		}
	}
	return pj, nil
}

// maxReuseDepth bounds how deep reusable-workflow calls are followed.
const maxReuseDepth = 4

// LocateStep finds the step a failure names in a workflow or in the local
// reusable workflows its jobs call (uses: ./.github/workflows/x.yml). The
// jobs API names a called job "caller / callee"; the returned workflow is
// the file the step is defined in.
func (r *Repo) LocateStep(wf *Workflow, jobName, stepName string, number int) (*Workflow, *Job, *Step, error) {
	return r.locateStep(wf, jobName, stepName, number, 0)
}

func (r *Repo) locateStep(wf *Workflow, jobName, stepName string, number, depth int) (*Workflow, *Job, *Step, error) {
	job, step, err := wf.FindStep(jobName, stepName, number)
	if err == nil || depth >= maxReuseDepth {
		return wf, job, step, err
	}
	for _, j := range wf.Jobs {
		if !strings.HasPrefix(j.Uses, "./") {
			continue
		}
		name := j.Name
		if name == "" {
			name = j.ID
		}
		inner := jobName
		if rest, ok := strings.CutPrefix(jobName, name+" / "); ok {
			inner = rest
		} else if jobName != "" && jobName != name && jobName != j.ID {
			continue
		}
		called, cerr := r.Workflow(strings.SplitN(j.Uses, "@", 2)[0])
		if cerr != nil {
			continue
		}
		if w, cj, cs, e := r.locateStep(called, inner, stepName, number, depth+1); e == nil {
			return w, cj, cs, nil
		}
	}
	return wf, job, step, err
}

// errNotFound says that no file of a kind is in a directory.
func errNotFound(what, dir string) error {
	return fmt.Errorf("no %s in %q: %w", what, dir, fs.ErrNotExist)
}

package harness

import (
	"path"
	"regexp"
	"strings"
)

// Bounds of one resolution.
const (
	maxResolveDepth = 14
	maxResolveNodes = 20000
)

var templateVar = regexp.MustCompile(`\{\{\s*\.[A-Za-z_][A-Za-z0-9_]*\s*\}\}`)

// resolver builds one execution tree.
type resolver struct {
	repo  *Repo
	nodes int
	// active holds the (file, symbol) pairs on the current path, for cycles.
	active map[string]bool
	// root is the Taskfile a task call started from.
	root *Taskfile
	// checkout is where the job checks the repository out, relative to the
	// workspace ("" for the workspace itself).
	checkout string
}

// ResolveStep builds the execution tree of a workflow step: its run: script
// and everything it calls in the repository.
func (r *Repo) ResolveStep(wf *Workflow, job *Job, step *Step) *Node {
	root := &Node{Kind: NodeStep, File: wf.Path, Line: step.Line, EndLine: step.EndLine,
		Symbol: step.DisplayName(), Step: step, Job: job}
	root.Vars = map[string]string{}
	rs := &resolver{repo: r, active: map[string]bool{}, checkout: checkoutPath(job, r.name)}
	root.Dir = rs.inRepo(firstNonEmpty(step.WorkingDirectory, job.DefaultWorkDir, wf.DefaultWorkDir, "."))
	if step.Run == "" {
		rs.compositeSteps(root, step.Uses, 0)
		return root
	}
	if sh := firstNonEmpty(step.Shell, job.DefaultShell, wf.DefaultShell); !posixShell(sh) {
		root.Note = "the step runs " + sh + ", which the model does not parse"
		return root
	}
	sh := rs.parse(wf.Path, step.RunLine, step.Run, false)
	root.Script = sh
	if sh.Err != nil {
		root.Note = sh.Err.Error()
		return root
	}
	rs.commands(root, sh, sh.Commands, root.Dir, 0)
	return root
}

// ResolveTask builds the execution tree of a Taskfile task (used to find who
// calls a producer).
func (r *Repo) ResolveTask(tf *Taskfile, name string) *Node {
	rs := &resolver{repo: r, active: map[string]bool{}}
	root := &Node{Kind: NodeStep, File: tf.Path, Symbol: "task " + name}
	rs.root = tf
	rs.task(root, tf, name, nil, path.Dir(tf.Path), 0, "")
	return root
}

func (rs *resolver) add(parent, n *Node) *Node {
	rs.nodes++
	n.Parent = parent
	parent.Children = append(parent.Children, n)
	return n
}

// parse parses a script of the harness (a recipe when recipe is set) and
// notes it as not analysed when it is over a limit.
func (rs *resolver) parse(file string, line int, src string, recipe bool) *Script {
	sh := parseShell(file, line, src, recipe)
	rs.repo.noteLimit(sh.Err)
	return sh
}

func (rs *resolver) full() bool { return rs.nodes >= maxResolveNodes }

// commands adds the command nodes of a shell and follows the calls they make.
// The working directory follows the script's own cd, pushd and popd.
func (rs *resolver) commands(parent *Node, sh *Script, cmds []*Command, dir string, depth int) {
	wd := &workdir{dir: dir}
	for _, c := range cmds {
		if rs.full() {
			return
		}
		dir := wd.dir
		n := rs.add(parent, &Node{Kind: NodeCommand, File: sh.File, Line: c.Line, EndLine: c.EndLine,
			Symbol: parent.Symbol, Text: c.Text, Cmd: c, Script: sh, Dir: dir})
		if wd.change(rs, n) {
			continue
		}
		if fn, ok := sh.Funcs[c.Name()]; ok {
			if fn.Retry && len(c.Args) > 1 {
				n.Wrapper = fn
			} else {
				rs.function(n, sh, fn, dir, depth+1)
				continue
			}
		}
		rs.follow(n, dir, depth+1)
	}
}

// workdir is a script's working directory as its cd, pushd and popd move
// it, relative to the repository root; unknown after a cd it cannot read.
type workdir struct {
	dir   string
	stack []string
}

// change applies a cd, pushd or popd command to the working directory and
// reports whether the command was one. Only commands that run in the
// script's own shell move it (not inside a pipeline, a substitution or a
// condition's fallback).
func (w *workdir) change(rs *resolver, n *Node) bool {
	c := n.Cmd
	name := c.Name()
	if name != "cd" && name != "pushd" && name != "popd" {
		return false
	}
	if c.PipeLen > 1 || c.Substituted || c.Background {
		return true
	}
	switch name {
	case "popd":
		if k := len(w.stack); k > 0 {
			w.dir, w.stack = w.stack[k-1], w.stack[:k-1]
		}
		return true
	case "pushd":
		w.stack = append(w.stack, w.dir)
	}
	args := skipFlags(c.Args[1:])
	if len(args) == 0 {
		return true
	}
	if d, ok := rs.cdTarget(n, w.dir, args[0]); ok {
		w.dir = d
	}
	return true
}

// scriptDirRef matches the usual ways a script names its own directory.
var scriptDirRef = regexp.MustCompile(`^"?\$\(\s*dirname\s+"?\$(?:0|\{?BASH_SOURCE(?:\[0\])?\}?)"?\s*\)"?|^"?\$\{BASH_SOURCE(?:\[0\])?%/\*\}"?`)

// cdTarget returns the repository directory that a cd argument names from
// dir, and false when it cannot tell (a variable, an absolute path).
func (rs *resolver) cdTarget(n *Node, dir, arg string) (string, bool) {
	if m := scriptDirRef.FindString(arg); m != "" {
		own := dir
		if s := n.Nearest(NodeScript); s != nil {
			own = path.Dir(s.File)
		}
		arg = own + "/" + strings.Trim(strings.TrimPrefix(arg, m), `"/`)
		dir = ""
	}
	arg = strings.Trim(n.ExpandVars(arg), `"'`)
	if arg == "" || arg == "-" || strings.ContainsAny(arg, "$`{}*?~") || path.IsAbs(arg) {
		return dir, false
	}
	return rs.inRepo(path.Join(dir, arg)), true
}

// inRepo maps a directory relative to the workspace to one relative to the
// repository: a job that checks the repository out under a path (actions/
// checkout's path:) has it there.
func (rs *resolver) inRepo(dir string) string {
	dir = path.Clean(dir)
	if p := rs.checkout; p != "" {
		if dir == p {
			return "."
		}
		if strings.HasPrefix(dir, p+"/") {
			return strings.TrimPrefix(dir, p+"/")
		}
	}
	return dir
}

// checkoutPath returns where a job checks this repository (full name
// repo, when known) out, relative to the workspace ("" for the workspace
// itself).
func checkoutPath(job *Job, repo string) string {
	for _, s := range job.Steps {
		if !strings.HasPrefix(s.Uses, "actions/checkout@") {
			continue
		}
		if r := s.With["repository"].Text; r != "" && !strings.Contains(r, "github.repository") && !strings.EqualFold(r, repo) {
			continue // another repository
		}
		if p := strings.Trim(path.Clean(s.With["path"].Text), "/"); p != "" && p != "." && !strings.ContainsAny(p, "${") {
			return p
		}
		return ""
	}
	return ""
}

func (rs *resolver) function(parent *Node, sh *Script, fn *Func, dir string, depth int) {
	key := sh.File + "#" + fn.Name
	if depth > maxResolveDepth || rs.active[key] {
		parent.Note = "recursion cut at function " + fn.Name
		return
	}
	rs.active[key] = true
	defer delete(rs.active, key)
	fnNode := rs.add(parent, &Node{Kind: NodeFunc, File: sh.File, Line: fn.Line, EndLine: fn.EndLine, Symbol: fn.Name, Script: sh, Dir: dir})
	rs.commands(fnNode, sh, fn.Commands, dir, depth)
}

// follow resolves a command that calls into the harness: task, make, a
// script in the repository, or a package.json script.
func (rs *resolver) follow(n *Node, dir string, depth int) {
	args := n.EffectiveArgs()
	if len(args) == 0 || depth > maxResolveDepth {
		return
	}
	switch tool := n.Tool(); {
	case tool == "task" || tool == "go-task":
		rs.taskCall(n, args[1:], dir, depth)
	case tool == "make" || tool == "gmake":
		rs.makeCall(n, args[1:], dir, depth)
	case tool == "npm" || tool == "yarn" || tool == "pnpm" || tool == "bun":
		rs.packageCall(n, tool, args[1:], dir, depth)
	case tool == "bash" || tool == "sh" || tool == "zsh" || tool == "source" || tool == ".":
		if file := firstFileArg(args[1:]); file != "" {
			rs.script(n, file, dir, depth)
		}
	default:
		if looksLikeScript(args[0]) {
			rs.script(n, args[0], dir, depth)
		}
	}
}

func firstFileArg(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-c" {
			return ""
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		return a
	}
	return ""
}

func looksLikeScript(name string) bool {
	if strings.ContainsAny(name, "${}`") {
		return false
	}
	return strings.HasPrefix(name, "./") || strings.HasSuffix(name, ".sh") || strings.HasSuffix(name, ".bash") ||
		(strings.Contains(name, "/") && !strings.HasPrefix(name, "/"))
}

func (rs *resolver) script(parent *Node, file, dir string, depth int) {
	p := cleanPath(path.Join(dir, parent.ExpandVars(file)))
	if p == "" || !rs.repo.Exists(p) {
		return
	}
	if rs.active[p] {
		parent.Note = "recursion cut at script " + p
		return
	}
	sh, err := rs.repo.Script(p)
	n := rs.add(parent, &Node{Kind: NodeScript, File: p, Line: 1, Symbol: p, Script: sh, Dir: path.Dir(p)})
	if err != nil || sh == nil {
		if err != nil {
			n.Note = err.Error()
		}
		return
	}
	if len(sh.Commands) > 0 {
		n.EndLine = sh.Commands[len(sh.Commands)-1].EndLine
	}
	rs.active[p] = true
	defer delete(rs.active, p)
	// A script runs relative to the caller's working directory.
	rs.commands(n, sh, sh.Commands, dir, depth)
}

func (rs *resolver) packageCall(parent *Node, tool string, args []string, dir string, depth int) {
	args = skipFlags(args)
	if len(args) == 0 {
		return
	}
	name := args[0]
	switch name {
	case "run", "run-script":
		if len(args) < 2 {
			return
		}
		name = args[1]
	case "test", "t", "tst", "start", "stop", "restart":
		if name == "t" || name == "tst" {
			name = "test"
		}
	default:
		if tool == "npm" {
			return
		}
	}
	pj, err := rs.repo.Package(dir)
	if err != nil {
		return
	}
	v, ok := pj.Scripts[name]
	if !ok {
		return
	}
	key := pj.Path + "#" + name
	if rs.active[key] {
		return
	}
	rs.active[key] = true
	defer delete(rs.active, key)
	n := rs.add(parent, &Node{Kind: NodePackage, File: pj.Path, Line: v.Line, EndLine: v.Line, Symbol: name, Text: v.Text, Dir: dir})
	for _, hook := range []string{"pre" + name, name, "post" + name} {
		hv, ok := pj.Scripts[hook]
		if !ok {
			continue
		}
		sh := rs.parse(pj.Path, hv.Line, hv.Text, false)
		if sh.Err == nil {
			rs.commands(n, sh, sh.Commands, dir, depth)
		}
	}
}

// posixShell reports whether a step's shell: runs POSIX shell ("" is bash).
func posixShell(sh string) bool {
	f := strings.Fields(sh)
	if len(f) == 0 {
		return true
	}
	switch f[0] {
	case "bash", "sh", "/bin/bash", "/bin/sh", "/usr/bin/bash", "zsh", "dash":
		return true
	}
	return strings.HasSuffix(f[0], "/bash") || strings.HasSuffix(f[0], "/sh")
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

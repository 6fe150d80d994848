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

// templateVar matches a template reference: Taskfile's {{.NAME}} and
// just's {{NAME}}.
var templateVar = regexp.MustCompile(`\{\{\s*\.?[A-Za-z_][A-Za-z0-9_-]*\s*\}\}`)

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
	// funcs are the shell functions that sourced scripts defined in the
	// current shell, by name.
	funcs map[string]scopedFunc
	// makeScopes caches the variables of a make run, by makefile and
	// directory.
	makeScopes map[string]map[string]string
}

// scopedFunc is a function a sourced script defined, with that script.
type scopedFunc struct {
	fn *Func
	sh *Script
}

// defineFunc makes a sourced script's function callable in the current
// shell.
func (rs *resolver) defineFunc(sh *Script, fn *Func) {
	if rs.funcs == nil {
		rs.funcs = map[string]scopedFunc{}
	}
	if len(rs.funcs) < maxShellCommands {
		rs.funcs[fn.Name] = scopedFunc{fn: fn, sh: sh}
	}
}

// lookupFunc finds the function a command calls: one of its own script,
// else one a sourced script defined; with the script that defines it.
func (rs *resolver) lookupFunc(sh *Script, name string) (*Func, *Script) {
	if fn, ok := sh.Funcs[name]; ok {
		return fn, sh
	}
	if f, ok := rs.funcs[name]; ok {
		return f.fn, f.sh
	}
	return nil, nil
}

// ResolveStep builds the execution tree of a workflow step: its run: script
// and everything it calls in the repository.
func (r *Repo) ResolveStep(wf *Workflow, job *Job, step *Step) *Node {
	return r.ResolveStepWith(wf, job, step, Evaluated{})
}

// Evaluated is what the runner printed under a step's header once it had
// evaluated the step's expressions: its with: inputs and the lines of its
// run: script.
type Evaluated struct {
	With map[string]string
	Run  []string
}

// ResolveStepWith is ResolveStep given what the runner evaluated for the
// step: the evaluated inputs and script lines stand in for those the file
// writes with expressions (${{ matrix.target }}), line for line, so every
// command keeps its position.
func (r *Repo) ResolveStepWith(wf *Workflow, job *Job, step *Step, ev Evaluated) *Node {
	root := &Node{Kind: NodeStep, File: wf.Path, Line: step.Line, EndLine: step.EndLine,
		Symbol: step.DisplayName(), Step: step, Job: job}
	root.Vars = map[string]string{}
	rs := &resolver{repo: r, active: map[string]bool{}, checkout: checkoutPath(wf, job, r.name)}
	root.Dir = rs.inRepo(firstNonEmpty(step.WorkingDirectory, job.DefaultWorkDir, wf.DefaultWorkDir, "."))
	if step.Run == "" {
		rs.uses(root, step, stepInputs(step.With, ev.With, nil), 0)
		return root
	}
	if sh := firstNonEmpty(step.Shell, job.DefaultShell, wf.DefaultShell); !posixShell(sh) {
		root.Note = "the step runs " + sh + ", which the model does not parse"
		return root
	}
	sh := rs.parse(wf.Path, step.RunLine, withEvaluated(step.Run, ev.Run), false)
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
		if fn, owner := rs.lookupFunc(sh, c.Name()); fn != nil {
			if fn.Retry && len(c.Args) > 1 {
				n.Wrapper = fn
			} else {
				rs.function(n, owner, fn, dir, depth+1)
				continue
			}
		}
		rs.follow(n, dir, depth+1)
	}
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

// follow resolves a command that calls into the harness: task, make, just,
// a script in the repository (run, sourced or inline with -c), a
// package.json script, an image build or Compose, a Helm chart or a
// kustomize directory.
func (rs *resolver) follow(n *Node, dir string, depth int) {
	args := n.EffectiveArgs()
	if len(args) == 0 || depth > maxResolveDepth || inContainer(dir) {
		return
	}
	switch tool := n.Tool(); {
	case tool == "task" || tool == "go-task":
		rs.taskCall(n, args[1:], dir, depth)
	case tool == "make" || tool == "gmake":
		rs.makeCall(n, args[1:], dir, depth)
	case tool == "just":
		rs.justCall(n, args[1:], dir, depth)
	case tool == "npm" || tool == "yarn" || tool == "pnpm" || tool == "bun":
		rs.packageCall(n, tool, args[1:], dir, depth)
	case tool == "npm-run-all" || tool == "run-s" || tool == "run-p":
		rs.runAllCall(n, args[1:], dir, depth)
	case tool == "bash" || tool == "sh" || tool == "zsh" || tool == "dash":
		if file := firstFileArg(args[1:]); file != "" {
			rs.script(n, file, dir, depth, false)
		} else if own := rs.pipedOwnScript(n); own != "" {
			rs.script(n, own, "", depth, false)
		} else {
			rs.inlineScript(n, args[1:], dir, depth)
		}
	case tool == "source" || tool == ".":
		if file := firstFileArg(args[1:]); file != "" {
			rs.script(n, file, dir, depth, true)
		}
	case tool == "bats":
		rs.batsCall(n, args[1:], dir, depth)
	case containerTools[tool]:
		rs.containerCall(n, tool, args[1:], dir, depth)
	case tool == "helm" || tool == "kustomize" || tool == "kubectl" || tool == "oc":
		rs.manifestCall(n, tool, args[1:], dir)
	default:
		if looksLikeScript(args[0]) {
			rs.script(n, args[0], dir, depth, false)
		}
	}
}

// containerTools are the container CLIs whose builds and runs are followed.
var containerTools = map[string]bool{"docker": true, "podman": true, "nerdctl": true, "buildah": true, "docker-compose": true}

// ContainerTool reports whether a program is a container CLI: a command
// that runs one is a command of its own even when the model follows what
// it builds or runs.
func ContainerTool(tool string) bool { return containerTools[tool] }

// inlineScript follows `bash -c 'SCRIPT'`: the script's commands become
// children of the command, at its line.
func (rs *resolver) inlineScript(parent *Node, args []string, dir string, depth int) {
	for i, a := range args {
		if !strings.HasPrefix(a, "-") {
			return
		}
		if a != "-c" && (strings.HasPrefix(a, "--") || !strings.HasSuffix(a, "c")) {
			continue
		}
		if i+1 >= len(args) || strings.TrimSpace(args[i+1]) == "" {
			return
		}
		sh := rs.parse(parent.File, parent.Line, args[i+1], false)
		if sh.Err == nil {
			rs.commands(parent, sh, sh.Commands, dir, depth)
		}
		return
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

// script adds a script of the repository and its commands. A sourced
// script runs in the caller's shell: the functions it defines stay callable
// after it; a script run as a program starts with no functions but its own.
func (rs *resolver) script(parent *Node, file, dir string, depth int, sourced bool) {
	if m := scriptDirRef.FindString(file); m != "" {
		// "$(dirname "$0")/lib.sh": next to the calling script.
		own := dir
		if s := parent.Nearest(NodeScript); s != nil {
			own = path.Dir(s.File)
		}
		file, dir = strings.Trim(strings.TrimPrefix(file, m), `"/`), own
	}
	p := cleanPath(path.Join(dir, parent.ExpandVars(file)))
	if p == "" || !rs.repo.Exists(p) {
		if p != "" && (looksLikeScript(file) || sourced) && !strings.ContainsAny(file, "$`{}") {
			parent.Note = "the script " + p + " is not in the repository"
		}
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
	if !sourced {
		saved := rs.funcs
		rs.funcs = nil
		defer func() { rs.funcs = saved }()
	}
	// A script runs relative to the caller's working directory.
	rs.commands(n, sh, sh.Commands, dir, depth)
	if sourced {
		for _, fn := range sh.Funcs {
			rs.defineFunc(sh, fn)
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

// withEvaluated replaces the lines of a run: script that have expressions
// by the runner's echo of them, when the echo has as many lines.
func withEvaluated(src string, echoed []string) string {
	if !strings.Contains(src, "${{") {
		return src
	}
	lines := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
	if len(lines) != len(echoed) {
		return src
	}
	for i, l := range lines {
		if strings.Contains(l, "${{") && strings.TrimSpace(echoed[i]) != "" {
			lines[i] = echoed[i]
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

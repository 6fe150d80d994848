package harness

import (
	"strings"
)

// Node kinds of an execution tree.
const (
	NodeStep       = "step"
	NodeTask       = "task"
	NodeTaskCmd    = "task-cmd"
	NodeTarget     = "target"
	NodeRecipe     = "recipe"
	NodeScript     = "script"
	NodePackage    = "package-script"
	NodeFunc       = "function"
	NodeCommand    = "command"
	NodeUnresolved = "unresolved"
	// NodeDockerfile is a Dockerfile an image build runs; NodeStage one of
	// its build stages and NodeInstruction a RUN instruction, whose
	// commands are its children.
	NodeDockerfile  = "dockerfile"
	NodeStage       = "stage"
	NodeInstruction = "instruction"
	// NodeService is a Compose service that is built or run.
	NodeService = "compose-service"
	// NodeJustRecipe is a justfile recipe and NodeJustLine one line of its
	// body.
	NodeJustRecipe = "just-recipe"
	NodeJustLine   = "just-line"
	// NodeChart is a local Helm chart and NodeKustomization a kustomize
	// directory that a command renders or applies; they have no children.
	NodeChart         = "chart"
	NodeKustomization = "kustomization"
)

// Node is one element of an execution tree: a workflow step, a task, a task
// command entry, a make target, a recipe line, a script, a package.json
// script, a shell function, or a simple command.
type Node struct {
	Kind    string
	File    string
	Line    int
	EndLine int
	// Symbol names the node: the step, task, target, script path or function.
	Symbol string
	// Text is the source text of command, task-cmd and recipe nodes.
	Text string
	// Cmd is set for command nodes.
	Cmd *Command
	// TaskCmd is set for task-cmd nodes; Task for task and task-cmd nodes.
	TaskCmd  *TaskCmd
	Task     *Task
	Taskfile *Taskfile
	// Recipe is set for recipe nodes; Makefile for target and recipe nodes.
	Recipe   *RecipeLine
	Makefile *Makefile
	// Step is set on the root.
	Step *Step
	Job  *Job
	// Script is set for script nodes and the shell that command nodes belong to.
	Script *Script
	// Items lists the values of a Taskfile for: entry (the ITEM values).
	Items []string
	// Wrapper is the retry function a command is called through, if any.
	Wrapper *Func
	// Dockerfile is set for dockerfile, stage and instruction nodes;
	// Instruction for instruction nodes.
	Dockerfile  *Dockerfile
	Instruction *DockerInstruction
	// Service is set for compose-service nodes.
	Service *ComposeService
	// Justfile is set for just-recipe and just-line nodes; Recipe holds a
	// just-line's text as it holds a recipe line's.
	Justfile *Justfile
	// Mounts map directories inside a container (an image build's WORKDIR
	// and COPY targets, a docker run's volumes) to repository directories.
	Mounts []Mount
	// Vars holds template and make variables in scope.
	Vars     map[string]string
	Dir      string
	Children []*Node
	Parent   *Node
	// Note records why a call could not be followed.
	Note string
}

// Mount maps a directory inside a container to a repository directory.
type Mount struct {
	Container string
	Repo      string
}

// Walk visits the tree in execution order (pre-order); fn returns false to
// skip a node's children.
func (n *Node) Walk(fn func(*Node) bool) {
	if n == nil {
		return
	}
	if !fn(n) {
		return
	}
	for _, c := range n.Children {
		c.Walk(fn)
	}
}

// Flatten returns the nodes in execution order.
func (n *Node) Flatten() []*Node {
	var out []*Node
	n.Walk(func(x *Node) bool { out = append(out, x); return true })
	return out
}

// Ancestors returns the node's ancestors, nearest first.
func (n *Node) Ancestors() []*Node {
	var out []*Node
	for p := n.Parent; p != nil; p = p.Parent {
		out = append(out, p)
	}
	return out
}

// Nearest returns the nearest ancestor (or the node itself) of one of kinds.
func (n *Node) Nearest(kinds ...string) *Node {
	for x := n; x != nil; x = x.Parent {
		for _, k := range kinds {
			if x.Kind == k {
				return x
			}
		}
	}
	return nil
}

// Tool returns the program a command node runs, looking through wrappers
// such as sudo, env, timeout, retry functions and make variables, as a base
// name ("kubectl", "npm", "curl").
func (n *Node) Tool() string {
	if n == nil || n.Cmd == nil {
		return ""
	}
	args := n.EffectiveArgs()
	if len(args) == 0 {
		return ""
	}
	name := args[0]
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	return strings.TrimSuffix(strings.ToLower(name), ".exe")
}

// EffectiveArgs returns the command's words after wrappers (sudo, env,
// timeout N, nice, nohup, exec, command, time, xargs, retry functions) and
// after expanding a leading make or template variable.
func (n *Node) EffectiveArgs() []string {
	if n == nil || n.Cmd == nil {
		return nil
	}
	args := append([]string(nil), n.Cmd.Args...)
	if len(args) > 0 {
		if exp := n.ExpandVars(args[0]); exp != args[0] {
			args = append(strings.Fields(exp), args[1:]...)
		}
	}
	if n.Wrapper != nil && len(args) > 0 {
		args = args[1:]
	}
	return unwrapArgs(args)
}

func unwrapArgs(args []string) []string {
	for guard := 0; guard < 6 && len(args) > 0; guard++ {
		switch args[0] {
		case "sudo", "nohup", "exec", "command", "time", "nice", "stdbuf", "xargs", "xvfb-run":
			args = skipFlags(args[1:])
		case "nix":
			// nix develop|shell … --command CMD…: the command runs in the
			// flake's environment.
			i := indexWord(args, "--command", "-c")
			if i < 0 || args[1] != "develop" && args[1] != "shell" && !strings.HasPrefix(args[1], "-") {
				return args
			}
			args = args[i+1:]
		case "env":
			args = skipFlags(args[1:])
			for len(args) > 0 && strings.Contains(args[0], "=") {
				args = args[1:]
			}
		case "timeout":
			args = skipFlags(args[1:])
			if len(args) > 0 {
				args = args[1:]
			}
		case "npx", "pnpx", "bunx":
			args = skipDashes(skipFlags(args[1:]))
		case "npm", "pnpm", "yarn", "bun":
			// a package manager running a package's binary: "pnpm exec
			// playwright test", "npm exec -- jest"
			if len(args) < 3 || args[1] != "exec" && args[1] != "dlx" && args[1] != "x" {
				return args
			}
			args = skipDashes(skipFlags(args[2:]))
		default:
			if isPython(args[0]) && len(args) > 2 && args[1] == "-m" {
				args = args[2:]
				continue
			}
			return args
		}
	}
	return args
}

// indexWord returns the index of the first of words in args, -1 for none.
func indexWord(args []string, words ...string) int {
	for i, a := range args {
		for _, w := range words {
			if a == w {
				return i
			}
		}
	}
	return -1
}

// isPython reports whether a program name is a Python interpreter.
func isPython(name string) bool {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	return name == "python" || strings.HasPrefix(name, "python3")
}

// skipDashes drops a leading "--" that ends a wrapper's own options.
func skipDashes(args []string) []string {
	if len(args) > 0 && args[0] == "--" {
		return args[1:]
	}
	return args
}

func skipFlags(args []string) []string {
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		args = args[1:]
	}
	return args
}

// ExpandVars replaces {{.NAME}}, $(NAME) and ${NAME} references whose values
// are known in the node's scope; unknown references stay as written.
func (n *Node) ExpandVars(s string) string {
	if n == nil || !strings.ContainsAny(s, "{$") {
		return s
	}
	vars := n.scopeVars()
	for depth := 0; depth < 6; depth++ {
		next := templateVar.ReplaceAllStringFunc(s, func(m string) string {
			name := strings.TrimSpace(strings.TrimPrefix(strings.Trim(m, "{} "), "."))
			if v, ok := vars[name]; ok {
				return v
			}
			return m
		})
		next = makeRef.ReplaceAllStringFunc(next, func(m string) string {
			if v, ok := vars[m[2:len(m)-1]]; ok {
				return v
			}
			return m
		})
		if next == s {
			break
		}
		s = next
	}
	return s
}

func (n *Node) scopeVars() map[string]string {
	for x := n; x != nil; x = x.Parent {
		if x.Vars != nil {
			return x.Vars
		}
	}
	return nil
}

// RetryLoop returns the retry loop that wraps a command node: a loop around
// it in its own script, a retry function it is called through, or nil.
func (n *Node) RetryLoop() *Loop {
	if n == nil || n.Cmd == nil {
		return nil
	}
	if l := n.Cmd.RetryLoop(); l != nil {
		return l
	}
	if n.Wrapper != nil {
		return n.Wrapper.RetryLoop
	}
	return nil
}

package causal

import (
	"path"
	"regexp"
	"strings"

	"github.com/polylane/polylane/analysis"
	"github.com/polylane/polylane/causal/harness"
)

// The producer search joins the log's locations (logloc.go) with the
// execution tree: a location names a node (a recipe line, a just recipe
// line, a task, a package script, a Dockerfile RUN instruction, a Compose
// service, a command at a file and line), and the deepest node the log
// names is where the emitter is looked for.

// pin is a node of the tree that a location names.
type pin struct {
	Node *harness.Node
	// N is the log line that names it; How says how, in words.
	N   int
	How string
	// Exact is set when the log names the command's own file and line (a
	// shell's "script.sh: line N:", an annotation): whatever the command,
	// it is the one that failed.
	Exact bool
}

// resolveTree builds the failing step's execution tree, with the inputs
// the runner evaluated for it, reads the log's locations, and adds the
// harness files the log names that no call in the tree reaches.
func (x *explainer) resolveTree() {
	if x.step == nil || x.wf == nil || x.job == nil {
		return
	}
	x.tree = x.repo.ResolveStepWith(x.wf, x.job, x.step, harness.Evaluated{With: stepWith(x.log.Lines), Run: stepScript(x.log.Lines)})
	x.paths = &pathMapper{repo: x.repo, checkout: x.repo.CheckoutPath(x.wf, x.job), mounts: treeMounts(x.tree)}
	x.locs = scanLocations(append(append([]logLine(nil), x.log.Lines...), x.log.Tail...), x.cause.N)
	x.graft()
	x.tr = newTracer(x.tree)
}

// stepHeader returns the lines of the failing step's header group: the
// first "##[group]Run …" of the step's lines (a composite action's own
// steps print theirs after it) up to its end.
func stepHeader(lines []logLine) []logLine {
	start := -1
	for i, l := range lines {
		switch {
		case start < 0 && l.Kind == analysis.KindGroup && strings.HasPrefix(l.Text, "##[group]Run "):
			start = i + 1
		case start >= 0 && l.Kind == analysis.KindEndGroup:
			return lines[start:i]
		}
	}
	return nil
}

// stepWith reads the with: inputs the runner printed under the failing
// step's header ("with:", "  context: ./server").
func stepWith(lines []logLine) map[string]string {
	var out map[string]string
	in := false
	for _, l := range stepHeader(lines) {
		switch {
		case strings.TrimSpace(l.Text) == "with:":
			in = true
		case in && strings.HasPrefix(l.Text, "  ") && !strings.HasPrefix(l.Text, "   "):
			k, v, ok := strings.Cut(strings.TrimSpace(l.Text), ": ")
			if ok && len(out) < 64 {
				if out == nil {
					out = map[string]string{}
				}
				out[k] = v
			}
		default:
			in = false
		}
	}
	return out
}

// stepScript returns the lines of the failing step's run: script as the
// runner echoed them, its expressions evaluated (the cyan lines under the
// step's header).
func stepScript(lines []logLine) []string {
	var out []string
	for _, l := range stepHeader(lines) {
		if l.Kind == analysis.KindScript && len(out) < 4096 {
			out = append(out, l.Text)
		}
	}
	return out
}

// treeMounts collects the container mounts the tree sets up.
func treeMounts(root *harness.Node) []harness.Mount {
	var out []harness.Mount
	root.Walk(func(n *harness.Node) bool {
		out = append(out, n.Mounts...)
		return len(out) < 256
	})
	return out
}

// maxGrafts bounds the files the log names that are added to the tree.
const maxGrafts = 4

// graft adds to the tree the shell scripts (and bats files) the log names
// at a line that no node of the tree covers: the harness ran them through
// something the model does not follow. Each is noted as reached from the
// log, which names the gap.
func (x *explainer) graft() {
	done := map[string]bool{}
	for _, l := range x.locs {
		if len(done) >= maxGrafts {
			return
		}
		if l.Kind == locMake && l.File != "" && l.Symbol != "" {
			x.graftMake(l, done)
			continue
		}
		if l.File == "" || l.Line <= 0 || (l.Kind != locBats && l.Kind != locShell && l.Kind != locAnnotation) {
			continue
		}
		p := x.paths.repoPath(l.File, x.tree.Dir)
		if p == "" || done[p] || !shellFile(p) || coversLine(x.tree, p, l.Line) {
			continue
		}
		done[p] = true
		if n := x.repo.ResolveScript(x.tree, p); n != nil {
			n.Note = "reached from the log: no call in the harness model runs it"
		}
	}
}

// graftMake adds the make target a failure marker names when no call in
// the tree reaches its recipe line: make printed the file, line and target
// that failed, so that is where the failing command is, whatever path of
// wrappers led there.
func (x *explainer) graftMake(l loc, done map[string]bool) {
	p := x.paths.repoPath(l.File, x.tree.Dir)
	key := p + "#" + l.Symbol
	if p == "" || done[key] || coversLine(x.tree, p, l.Line) {
		return
	}
	done[key] = true
	if n := x.repo.ResolveMakeTarget(x.tree, p, l.Symbol, x.tree.Dir); n != nil {
		n.Note = "reached from the log: make reported this target failing, and no call in the harness model runs it"
	}
}

// shellFile reports whether a path is a shell script or a bats file.
func shellFile(p string) bool {
	switch path.Ext(p) {
	case ".sh", ".bash", ".bats", "":
		return true
	}
	return false
}

// coversLine reports whether a node of the tree is in file at line.
func coversLine(root *harness.Node, file string, line int) bool {
	found := false
	root.Walk(func(n *harness.Node) bool {
		if n.File == file && n.Line <= line && line <= max(n.Line, n.EndLine) && n.Kind != harness.NodeScript {
			found = true
		}
		return !found
	})
	return found
}

// maxPinDistance is how far before the cause line a location may be and
// still name the failing unit.
const maxPinDistance = 400

// pinned returns the deepest node the log's locations name, preferring
// the one nearest the cause line among nodes on different branches.
func (x *explainer) pinned() *pin {
	if x.tr == nil {
		return nil
	}
	var best *pin
	vertex := causeVertex(x.cause.Text)
	var dirs map[int]string
	for i := range x.locs {
		l := &x.locs[i]
		if l.Kind == locMakeDir {
			if dirs == nil {
				dirs = map[int]string{}
			}
			dirs[l.Level] = l.File
			continue
		}
		if x.cause.N > 0 && !l.After && x.cause.N-l.N > maxPinDistance {
			continue
		}
		p := x.pinOf(l, vertex, dirs)
		if p == nil || p.Node == nil {
			continue
		}
		if best == nil || deeper(p, best, x.cause.N) {
			best = p
		}
	}
	return best
}

// deeper reports whether p names a more specific node than q: a
// descendant of it, or on another branch and nearer the cause line.
func deeper(p, q *pin, causeN int) bool {
	switch {
	case p.Node == q.Node:
		return false
	case isAncestor(q.Node, p.Node):
		return true
	case isAncestor(p.Node, q.Node):
		return false
	}
	return abs(p.N-causeN) < abs(q.N-causeN)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// causeVertex returns the BuildKit step a line was printed by ("#33 1.061
// error: …" → "33").
func causeVertex(s string) string {
	if m := locVertexPre.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return ""
}

// pinOf returns the node one location names.
func (x *explainer) pinOf(l *loc, vertex string, dirs map[int]string) *pin {
	at := func(n *harness.Node, how string) *pin {
		if n == nil {
			return nil
		}
		return &pin{Node: n, N: l.N, How: how}
	}
	switch l.Kind {
	case locMake:
		return at(x.makeNode(l, dirs), "make names the failed recipe line")
	case locJust:
		return at(x.findNode(func(n *harness.Node) bool {
			return n.Kind == harness.NodeJustLine && n.Symbol == l.Symbol && (l.Line == 0 || n.Line <= l.Line && l.Line <= n.EndLine)
		}), "just names the failed recipe line")
	case locTask:
		return at(x.findNode(func(n *harness.Node) bool { return n.Kind == harness.NodeTask && n.Symbol == l.Symbol }), "task names the failed task")
	case locScript:
		return at(x.findNode(func(n *harness.Node) bool { return n.Kind == harness.NodePackage && n.Symbol == l.Symbol }), "the package manager names the script it ran")
	case locVertex:
		if vertex == "" || l.Vertex != vertex {
			return nil
		}
		return at(x.instructionNode(l.Service, l.Symbol, l.Text), "BuildKit names the RUN instruction that printed the cause line")
	case locDockerfile:
		if !l.After {
			return nil
		}
		return at(x.instructionAt(l.File, l.Line), "BuildKit names the Dockerfile line that failed")
	case locSolve:
		return at(x.instructionNode("", "", "RUN "+l.Text), "BuildKit names the process that did not complete")
	case locService:
		if l.N != x.cause.N {
			return nil
		}
		return at(x.findNode(func(n *harness.Node) bool { return n.Kind == harness.NodeService && n.Symbol == l.Symbol }), "the cause line carries the Compose service's prefix")
	case locBats, locShell, locAnnotation:
		p := at(x.commandAt(l.File, l.Line), "the log names the file and line of the command")
		if p != nil {
			p.Exact = true
		}
		return p
	case locPython, locNode:
		if n := x.runnerOf(l.File); n != nil {
			return at(n, "the log's stack trace is in a file this command runs")
		}
		// a console script's frame (".../bin/pip-audit", line 8, in
		// <module>) names the program that raised
		return at(x.programNamed(l.File), "the log's stack trace runs in this command's program")
	}
	return nil
}

// findNode returns the first node of the tree that matches.
func (x *explainer) findNode(match func(*harness.Node) bool) *harness.Node {
	for _, n := range x.tr.flat {
		if match(n) {
			return n
		}
	}
	return nil
}

// makeNode finds the recipe line (or target) a make error names; its file
// is relative to the directory make entered at that level, if the log
// says.
func (x *explainer) makeNode(l *loc, dirs map[int]string) *harness.Node {
	if l.File == "" || l.Line == 0 {
		return x.findNode(func(n *harness.Node) bool { return n.Kind == harness.NodeTarget && n.Symbol == l.Symbol })
	}
	var p string
	if d, ok := dirs[l.Level]; ok {
		p = x.paths.repoPath(path.Join(d, l.File))
	}
	return x.findNode(func(n *harness.Node) bool {
		if n.Kind != harness.NodeRecipe || n.Line > l.Line || l.Line > n.EndLine {
			return false
		}
		if p != "" {
			return n.File == p
		}
		return n.File == l.File || strings.HasSuffix(n.File, "/"+l.File) || path.Join(n.Dir, l.File) == n.File
	})
}

// instructionNode finds the RUN instruction whose text is text (whitespace
// aside), of a build stage and a Compose service when they are given.
func (x *explainer) instructionNode(service, stage, text string) *harness.Node {
	want := normalizeEcho(text)
	if want == "" {
		return nil
	}
	return x.findNode(func(n *harness.Node) bool {
		if n.Kind != harness.NodeInstruction || stage != "" && n.Symbol != stage {
			return false
		}
		if s := n.Nearest(harness.NodeService); service != "" && (s == nil || s.Symbol != service) {
			return false
		}
		got := normalizeEcho(n.Text)
		return got == want || len(want) > 40 && strings.HasPrefix(got, want)
	})
}

// instructionAt finds the instruction at a line of a Dockerfile BuildKit
// names by the name it was given to the build (often only its base name):
// the one instruction of the tree there, nil when several Dockerfiles
// have one.
func (x *explainer) instructionAt(file string, line int) *harness.Node {
	var found *harness.Node
	for _, n := range x.tr.flat {
		if n.Kind != harness.NodeInstruction || n.Line > line || line > n.EndLine {
			continue
		}
		if n.File == file {
			return n
		}
		if path.Base(n.File) == path.Base(file) {
			if found != nil && found.File != n.File {
				return nil
			}
			found = n
		}
	}
	return found
}

// commandAt finds the command at a line of a file the log names.
func (x *explainer) commandAt(file string, line int) *harness.Node {
	p := x.paths.repoPath(file, x.tree.Dir)
	if p == "" || line <= 0 {
		return nil
	}
	var best *harness.Node
	for _, n := range x.tr.flat {
		if n.Kind != harness.NodeCommand || n.File != p || n.Line > line || line > n.EndLine {
			continue
		}
		if best == nil || !quiet[n.Tool()] && quiet[best.Tool()] {
			best = n
		}
	}
	return best
}

// runnerOf finds the command that runs a script file a stack trace names
// (python ci/check.py, node .github/scripts/x.mjs).
func (x *explainer) runnerOf(file string) *harness.Node {
	p := x.paths.repoPath(file, x.tree.Dir)
	if p == "" {
		return nil
	}
	return x.findNode(func(n *harness.Node) bool {
		if n.Kind != harness.NodeCommand || n.Cmd == nil {
			return false
		}
		args := n.EffectiveArgs()
		for i := 1; i < len(args); i++ {
			a := args[i]
			if !strings.HasPrefix(a, "-") && (path.Join(n.Dir, a) == p || a == p) {
				return true
			}
		}
		return false
	})
}

// instructionRun returns the RUN instruction the emitter runs in, as the
// image build's failing instruction.
func (x *explainer) instructionRun() *dockerRun {
	if x.em.Node == nil {
		return nil
	}
	in := x.em.Node.Nearest(harness.NodeInstruction)
	if in == nil || in.Instruction == nil {
		return nil
	}
	return &dockerRun{File: in.File, Line: in.Line, EndLine: in.EndLine, Text: collapseSpaces("RUN " + in.Instruction.Args)}
}

var spaces = regexp.MustCompile(`\s+`)

func collapseSpaces(s string) string {
	return strings.TrimSpace(spaces.ReplaceAllString(s, " "))
}

// programNamed returns the one command whose program is the executable a
// stack frame's file is ("…/bin/pip-audit" → `pip-audit`), or nil.
func (x *explainer) programNamed(file string) *harness.Node {
	dir, name := path.Split(strings.ReplaceAll(file, "\\", "/"))
	if name == "" || !strings.HasSuffix(strings.TrimSuffix(dir, "/"), "/bin") && !strings.HasSuffix(strings.TrimSuffix(dir, "/"), "/Scripts") {
		return nil
	}
	name = strings.TrimSuffix(strings.ToLower(name), ".exe")
	var found *harness.Node
	for _, n := range x.tr.flat {
		if n.Kind == harness.NodeCommand && n.Tool() == name {
			if found != nil {
				return nil // two commands run it: the frame does not say which
			}
			found = n
		}
	}
	return found
}

package causal

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/polylane/polylane/analysis"
	"github.com/polylane/polylane/causal/harness"
)

// Echo kinds: how a log line names the harness code that was running.
const (
	echoTask   = "task"   // task: [name] cmd
	echoXtrace = "xtrace" // + cmd
	echoMake   = "make"   // make's echoed recipe line
	echoMakeE  = "make-error"
	echoPrint  = "print" // output of an echo/printf in a script
	// echoScript is a package manager's echo of the script it runs: yarn's
	// "$ jest --ci", npm's and pnpm's "> jest --ci" under their header.
	echoScript = "script"
	// echoStep is the runner's header of a composite action's step:
	// "##[group]Run <first line of its script>" or "Run <action>".
	echoStep = "step"
)

var (
	taskEcho     = regexp.MustCompile(`^task: \[([^\]]+)\] (.*)$`)
	taskFailed   = regexp.MustCompile(`^task: Failed to run task "([^"]+)"`)
	xtraceEcho   = regexp.MustCompile(`^\+{1,4} (\S.*)$`)
	scriptEcho   = regexp.MustCompile(`^[$>] (\S.*)$`)
	makeError    = regexp.MustCompile(`^g?make(?:\[\d+\])?: \*\*\* \[(?:([^:\]\s]+):(\d+): )?([^\]]+)\] (?:Error \d+|Killed|Segmentation fault|Terminated)`)
	dynamicPart  = regexp.MustCompile("\\{\\{[^}]*\\}\\}|\\$\\{[^}]*\\}|\\$\\(\\([^)]*\\)\\)|\\$\\([^)]*\\)|\\$[A-Za-z_][A-Za-z0-9_]*|\\$[@*#?0-9]|`[^`]*`")
	quoteChars   = strings.NewReplacer(`"`, "", `'`, "", `\`, "")
	maxTraceHits = 4000
)

// hit is a log line matched to the harness node it echoes.
type hit struct {
	Line logLine
	Node *harness.Node
	Kind string
}

// matcher matches echoed text against a node's source text, with template
// and shell expansions as wildcards.
type matcher struct {
	re      *regexp.Regexp
	literal int
	first   string
}

func newMatcher(src string) *matcher {
	src = firstLineOf(src)
	if len(src) > 600 {
		src = src[:600]
	}
	parts := dynamicPart.Split(src, -1)
	var b strings.Builder
	b.WriteString("^")
	lit := 0
	first := ""
	for i, p := range parts {
		p = normalizeEcho(p)
		if i == 0 {
			first = firstWord(p)
		}
		lit += len(strings.ReplaceAll(p, " ", ""))
		for j, w := range strings.Split(p, " ") {
			if j > 0 {
				b.WriteString(`\s*`)
			}
			b.WriteString(regexp.QuoteMeta(w))
		}
		if i < len(parts)-1 {
			b.WriteString(`.*?`)
		}
	}
	re, err := regexp.Compile(b.String())
	if err != nil || lit < 3 {
		return nil
	}
	return &matcher{re: re, literal: lit, first: first}
}

func (m *matcher) match(text string) bool {
	return m != nil && m.re.MatchString(text)
}

// normalizeEcho removes quotes and backslashes and collapses whitespace, so
// that an echoed command compares with its source.
func normalizeEcho(s string) string {
	return strings.Join(strings.Fields(quoteChars.Replace(s)), " ")
}

func firstLineOf(s string) string {
	s = strings.TrimLeft(s, "\n")
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "\\"))
}

func firstWord(s string) string {
	if i := strings.IndexByte(s, ' '); i >= 0 {
		return s[:i]
	}
	return s
}

// tracer aligns log echoes with the execution tree.
type tracer struct {
	flat  []*harness.Node
	index map[*harness.Node]int
	cache map[*harness.Node]*matcher
	// byTask indexes task-cmd nodes by task name.
	byTask map[string][]*harness.Node
	// recipes and prints are the nodes plain lines can echo.
	recipes []*harness.Node
	prints  []*harness.Node
	cmds    []*harness.Node
	// scripts are the package.json scripts and steps the composite
	// actions' steps, which the log echoes too.
	scripts []*harness.Node
	steps   []*harness.Node
	// FailedTask is the task named by "task: Failed to run task".
	FailedTask string
}

func newTracer(root *harness.Node) *tracer {
	t := &tracer{index: map[*harness.Node]int{}, cache: map[*harness.Node]*matcher{}, byTask: map[string][]*harness.Node{}}
	t.flat = root.Flatten()
	for i, n := range t.flat {
		t.index[n] = i
		switch n.Kind {
		case harness.NodeTaskCmd:
			t.byTask[n.Symbol] = append(t.byTask[n.Symbol], n)
		case harness.NodeRecipe, harness.NodeJustLine:
			// make and just echo a recipe line before they run it.
			if n.Recipe != nil && !n.Recipe.Silent {
				t.recipes = append(t.recipes, n)
			}
		case harness.NodePackage:
			t.scripts = append(t.scripts, n)
		case harness.NodeStep:
			if i > 0 && n.Step != nil {
				t.steps = append(t.steps, n)
			}
		case harness.NodeCommand:
			t.cmds = append(t.cmds, n)
			if tool := n.Tool(); tool == "echo" || tool == "printf" {
				t.prints = append(t.prints, n)
			}
		}
	}
	return t
}

func (t *tracer) matcherOf(n *harness.Node) *matcher {
	if m, ok := t.cache[n]; ok {
		return m
	}
	var m *matcher
	switch {
	case n.Kind == harness.NodeCommand && (n.Tool() == "echo" || n.Tool() == "printf"):
		m = newMatcher(printedText(n))
	case n.Kind == harness.NodeCommand:
		m = newMatcher(n.ExpandVars(n.Text))
	default:
		m = newMatcher(n.ExpandVars(n.Text))
	}
	t.cache[n] = m
	return m
}

// printedText returns the message an echo or printf command prints.
func printedText(n *harness.Node) string {
	args := n.EffectiveArgs()
	if len(args) < 2 {
		return ""
	}
	args = args[1:]
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && len(args[0]) <= 3 {
		args = args[1:]
	}
	if n.Tool() == "printf" && len(args) > 0 {
		return strings.ReplaceAll(strings.ReplaceAll(args[0], `\n`, ""), "%s", "${x}")
	}
	return strings.Join(args, " ")
}

// trace walks the step's lines up to the cause and returns the hits.
func (t *tracer) trace(lines []logLine) []hit {
	var hits []hit
	pos := 0
	for _, l := range lines {
		if len(hits) >= maxTraceHits {
			break
		}
		if m := taskFailed.FindStringSubmatch(l.Text); m != nil {
			t.FailedTask = m[1]
			continue
		}
		kind, cands := t.candidates(l)
		if len(cands) == 0 {
			continue
		}
		best := pick(cands, t.index, pos)
		pos = t.index[best]
		hits = append(hits, hit{Line: l, Node: best, Kind: kind})
	}
	return hits
}

// pick chooses the first candidate at or after pos in execution order, else
// the latest one before it (a loop or retry ran it again).
func pick(cands []*harness.Node, index map[*harness.Node]int, pos int) *harness.Node {
	var after, before *harness.Node
	for _, c := range cands {
		i := index[c]
		if i >= pos && (after == nil || i < index[after]) {
			after = c
		}
		if i < pos && (before == nil || i > index[before]) {
			before = c
		}
	}
	if after != nil {
		return after
	}
	return before
}

// candidates returns the nodes a log line echoes.
func (t *tracer) candidates(l logLine) (string, []*harness.Node) {
	if l.Kind == analysis.KindGroup {
		return echoStep, t.stepHeader(strings.TrimPrefix(l.Text, "##[group]Run "))
	}
	if l.Kind != analysis.KindPlain {
		return "", nil
	}
	text := l.Text
	if m := taskEcho.FindStringSubmatch(text); m != nil {
		return echoTask, t.matchAll(t.byTask[m[1]], normalizeEcho(m[2]), true)
	}
	if m := makeError.FindStringSubmatch(text); m != nil {
		return echoMakeE, t.makeErrorNodes(m)
	}
	if m := xtraceEcho.FindStringSubmatch(text); m != nil {
		return echoXtrace, t.matchAll(t.cmds, normalizeEcho(m[1]), false)
	}
	if m := scriptEcho.FindStringSubmatch(text); m != nil && len(t.scripts) > 0 {
		if c := t.matchAll(t.scripts, normalizeEcho(m[1]), false); len(c) > 0 {
			return echoScript, scriptStarts(c)
		}
	}
	norm := normalizeEcho(text)
	if norm == "" {
		return "", nil
	}
	if c := t.matchAll(t.recipes, norm, false); len(c) > 0 {
		return echoMake, c
	}
	return echoPrint, t.matchAll(t.prints, norm, false)
}

// scriptStarts returns, for package scripts, the first command of each
// script's own text: the echo is printed when that text starts, after its
// pre- hook ran.
func scriptStarts(pkgs []*harness.Node) []*harness.Node {
	out := make([]*harness.Node, 0, len(pkgs))
	for _, p := range pkgs {
		start := p
		for _, c := range p.Children {
			if c.Kind == harness.NodeCommand && c.Line == p.Line {
				start = c
				break
			}
		}
		out = append(out, start)
	}
	return out
}

// stepHeader returns the composite action steps a runner's group header
// names: by the action they use or the first line of their script.
func (t *tracer) stepHeader(rest string) []*harness.Node {
	want := normalizeEcho(rest)
	var out []*harness.Node
	for _, n := range t.steps {
		s := n.Step
		if s.Uses != "" && s.Uses == rest || s.Run != "" && normalizeEcho(firstLineOf(s.Run)) == want {
			out = append(out, n)
		}
	}
	return out
}

// matchAll returns the nodes whose matcher accepts text, keeping only those
// with the longest literal match.
func (t *tracer) matchAll(nodes []*harness.Node, text string, loose bool) []*harness.Node {
	var out []*harness.Node
	best := 0
	fw := firstWord(text)
	for _, n := range nodes {
		m := t.matcherOf(n)
		if m == nil {
			if loose {
				out = append(out, n)
			}
			continue
		}
		if m.first != "" && m.first != fw && !loose {
			continue
		}
		if !m.match(text) {
			continue
		}
		switch {
		case m.literal > best:
			best, out = m.literal, []*harness.Node{n}
		case m.literal == best:
			out = append(out, n)
		}
	}
	if loose && best > 0 {
		var strict []*harness.Node
		for _, n := range out {
			if m := t.matcherOf(n); m != nil && m.literal == best {
				strict = append(strict, n)
			}
		}
		return strict
	}
	return out
}

// makeErrorNodes finds the recipe (or target) a make error line names.
func (t *tracer) makeErrorNodes(m []string) []*harness.Node {
	file, line, target := m[1], m[2], m[3]
	n, _ := strconv.Atoi(line)
	var out []*harness.Node
	for _, x := range t.flat {
		switch {
		case x.Kind == harness.NodeRecipe && file != "" && n > 0 && x.Line <= n && n <= x.EndLine && strings.HasSuffix(x.File, file):
			out = append(out, x)
		case x.Kind == harness.NodeTarget && x.Symbol == target && (file == "" || n == 0):
			out = append(out, x)
		}
	}
	return out
}

package harness

import (
	"fmt"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxShellCommands bounds the commands one script contributes to the model.
const maxShellCommands = 4000

// Script is a parsed shell program: a run: block, a task command, a recipe
// line or a script file.
type Script struct {
	File string
	// StartLine is the file line of the script's first line.
	StartLine int
	// Commands are the simple commands executed at top level, in source order,
	// including those inside loops, conditions and command substitutions.
	// Function bodies are kept apart in Funcs.
	Commands []*Command
	Funcs    map[string]*Func
	Loops    []*Loop
	SetE     bool
	Pipefail bool
	Xtrace   bool
	// Vars holds literal assignments (NAME=value) seen at top level.
	Vars map[string]string
	// Err is the parse error, when the source is not valid shell; the model is
	// then empty.
	Err error
}

// Command is one simple command with its position.
type Command struct {
	// Words are the command's words as written (quotes kept).
	Words []string
	// Args are the words with quotes removed where the word is literal.
	Args    []string
	Assigns []string
	Line    int
	EndLine int
	// Raw is the exact source text; Text collapses line continuations.
	Raw  string
	Text string
	// PipeIndex and PipeLen place the command in a pipeline (0 and 1 alone).
	PipeIndex int
	PipeLen   int
	// Loops are the enclosing loops, innermost first.
	Loops []*Loop
	// Func is the enclosing function's name.
	Func string
	// Guarded is set when the command's status is tested (if/while/until
	// conditions, the left of && or ||).
	Guarded    bool
	Background bool
	// Outputs are the targets of the command's output redirections (">",
	// ">>", "&>", "2>"), as written.
	Outputs []string
	// Fallback is set for the right side of ||.
	Fallback bool
	// Substituted is set for a command run inside $(...) or backquotes.
	Substituted bool
	Script      *Script
}

// Loop is a for, while or until loop.
type Loop struct {
	Kind    string
	Line    int
	EndLine int
	// Bound is the iteration limit when it can be read, 0 when unbounded or
	// unknown.
	Bound int
	// Sleep is the argument of the first sleep in the loop, "" without one.
	Sleep string
	// Retry is set for a loop that repeats a command until it succeeds.
	Retry bool
	// Wait is set for a loop that polls a condition rather than repeating
	// an action: every command it tests is a read-only probe (kill -0, a
	// health URL on the local machine, pg_isready, nc -z, kubectl get).
	Wait bool
	// Text is the loop's source text.
	Text string
}

// Func is a shell function.
type Func struct {
	Name     string
	Line     int
	EndLine  int
	Commands []*Command
	// Retry is set for a function that runs its arguments ("$@") in a retry
	// loop; RetryLoop is that loop.
	Retry     bool
	RetryLoop *Loop
}

// Name returns the command name as written, without quotes.
func (c *Command) Name() string {
	if len(c.Args) == 0 {
		return ""
	}
	return c.Args[0]
}

// Base returns the last path element of the command name.
func (c *Command) Base() string {
	n := c.Name()
	if i := strings.LastIndexByte(n, '/'); i >= 0 {
		n = n[i+1:]
	}
	return n
}

// RetryLoop returns the innermost enclosing retry loop, or nil.
func (c *Command) RetryLoop() *Loop {
	for _, l := range c.Loops {
		if l.Retry {
			return l
		}
	}
	return nil
}

// ParseShell parses src, which starts at line startLine of file.
func ParseShell(file string, startLine int, src string) *Script {
	return parseShell(file, startLine, src, false)
}

// ParseRecipe parses a Makefile recipe line whose make variable references
// ($(NAME), ${NAME}) are kept as written: they are words, not command
// substitutions.
func ParseRecipe(file string, startLine int, src string) *Script {
	return parseShell(file, startLine, src, true)
}

func parseShell(file string, startLine int, src string, makeRefs bool) *Script {
	s := &Script{File: file, StartLine: startLine, Funcs: map[string]*Func{}, Vars: map[string]string{}}
	if err := CheckShell(file, startLine, src); err != nil {
		s.Err = err
		return s
	}
	lang := syntax.LangBash
	if strings.HasSuffix(file, ".bats") {
		lang = syntax.LangBats
	}
	f, err := syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(src), file)
	if err != nil {
		clean, changed := maskTemplates(src)
		if changed {
			f, err = syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(clean), file)
		}
		if err != nil {
			s.Err = fmt.Errorf("parse shell in %s at line %d: %w", file, startLine, err)
			return s
		}
	}
	w := &shellWalker{src: src, s: s, makeRefs: makeRefs}
	w.stmts(f.Stmts, ctx{})
	for _, fn := range s.Funcs {
		fn.Retry, fn.RetryLoop = runsArgsInRetry(fn)
	}
	return s
}

// CheckShell returns a LimitError when shell source, which starts at line
// startLine of file, is too large or nests too deeply to parse safely.
func CheckShell(file string, startLine int, src string) error {
	var err *LimitError
	if len(src) > MaxFileBytes {
		err = &LimitError{File: file, What: "size", Limit: MaxFileBytes, Found: len(src)}
	} else if d, line := ShellNesting(src, MaxNesting); d > MaxNesting {
		err = &LimitError{File: file, What: "nesting", Limit: MaxNesting, Found: d, Line: startLine + line - 1}
	}
	if err == nil {
		return nil
	}
	if startLine > 1 || !looksLikeScript(file) {
		err.Block = startLine
	}
	return err
}

// ParseShellSyntax parses bash source after CheckShell: every parse of
// repository shell outside this package goes through it.
func ParseShellSyntax(file, src string) (*syntax.File, error) {
	if err := CheckShell(file, 1, src); err != nil {
		return nil, err
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), file)
	if err != nil {
		return nil, fmt.Errorf("parse shell in %s: %w", file, err)
	}
	return f, nil
}

// templateExpr matches Go template actions such as {{.VAR}} or {{if .X}}.
var templateExpr = regexp.MustCompile(`\{\{[^{}]*\}\}`)

// maskTemplates replaces template actions by same-length placeholders so that
// shell that only parses after templating still yields positions.
func maskTemplates(src string) (string, bool) {
	changed := false
	out := templateExpr.ReplaceAllStringFunc(src, func(m string) string {
		changed = true
		return "T" + strings.Repeat("x", len(m)-1)
	})
	return out, changed
}

type ctx struct {
	loops       []*Loop
	fn          *Func
	guarded     bool
	fallback    bool
	substituted bool
}

type shellWalker struct {
	src      string
	s        *Script
	count    int
	makeRefs bool
}

func (w *shellWalker) line(p syntax.Pos) int {
	if !p.IsValid() {
		return w.s.StartLine
	}
	return w.s.StartLine + int(p.Line()) - 1
}

func (w *shellWalker) text(n syntax.Node) string {
	a, b := n.Pos(), n.End()
	if !a.IsValid() || !b.IsValid() {
		return ""
	}
	i, j := int(a.Offset()), int(b.Offset())
	if i < 0 || j > len(w.src) || i > j {
		return ""
	}
	return w.src[i:j]
}

func (w *shellWalker) stmts(list []*syntax.Stmt, c ctx) {
	for _, st := range list {
		w.stmt(st, c, 0, 1)
	}
}

func (w *shellWalker) stmt(st *syntax.Stmt, c ctx, pipeIdx, pipeLen int) {
	if st == nil || st.Cmd == nil || w.count >= maxShellCommands {
		return
	}
	if st.Negated {
		c.guarded = true
	}
	switch x := st.Cmd.(type) {
	case *syntax.CallExpr:
		w.call(x, st, c, pipeIdx, pipeLen)
	case *syntax.BinaryCmd:
		w.binary(x, c, pipeIdx, pipeLen)
	case *syntax.IfClause:
		for cl := x; cl != nil; cl = cl.Else {
			g := c
			g.guarded = true
			w.stmts(cl.Cond, g)
			w.stmts(cl.Then, c)
		}
	case *syntax.WhileClause:
		l := w.newLoop(x, "while", c)
		if x.Until {
			l.Kind = "until"
		}
		inner := c
		inner.loops = append([]*Loop{l}, c.loops...)
		g := inner
		g.guarded = true
		w.stmts(x.Cond, g)
		w.stmts(x.Do, inner)
		w.finishLoop(l, x.Cond, x.Do)
	case *syntax.ForClause:
		l := w.newLoop(x, "for", c)
		l.Bound = forBound(x, l.Text, w.s.Vars)
		inner := c
		inner.loops = append([]*Loop{l}, c.loops...)
		w.stmts(x.Do, inner)
		w.finishLoop(l, nil, x.Do)
	case *syntax.Block:
		w.stmts(x.Stmts, c)
	case *syntax.Subshell:
		w.stmts(x.Stmts, c)
	case *syntax.TimeClause:
		w.stmt(x.Stmt, c, pipeIdx, pipeLen)
	case *syntax.CaseClause:
		for _, it := range x.Items {
			w.stmts(it.Stmts, c)
		}
	case *syntax.FuncDecl:
		w.funcDecl(x, c)
	case *syntax.TestDecl:
		// a bats test: its body runs when the file runs.
		w.stmt(x.Body, c, 0, 1)
	case *syntax.DeclClause:
		for _, a := range x.Args {
			w.substitutions(a, c)
		}
	}
}

func (w *shellWalker) binary(x *syntax.BinaryCmd, c ctx, pipeIdx, pipeLen int) {
	switch x.Op {
	case syntax.Pipe, syntax.PipeAll:
		n := pipeCount(x)
		w.pipeline(x, c, n)
	case syntax.AndStmt:
		l := c
		l.guarded = true
		w.stmt(x.X, l, pipeIdx, pipeLen)
		w.stmt(x.Y, c, pipeIdx, pipeLen)
	case syntax.OrStmt:
		l := c
		l.guarded = true
		w.stmt(x.X, l, pipeIdx, pipeLen)
		r := c
		r.fallback = true
		w.stmt(x.Y, r, pipeIdx, pipeLen)
	}
}

func pipeCount(x *syntax.BinaryCmd) int {
	n := 0
	var count func(st *syntax.Stmt)
	count = func(st *syntax.Stmt) {
		if b, ok := st.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
			count(b.X)
			count(b.Y)
			return
		}
		n++
	}
	count(x.X)
	count(x.Y)
	return n
}

func (w *shellWalker) pipeline(x *syntax.BinaryCmd, c ctx, n int) {
	idx := 0
	var walk func(st *syntax.Stmt)
	walk = func(st *syntax.Stmt) {
		if b, ok := st.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
			walk(b.X)
			walk(b.Y)
			return
		}
		w.stmt(st, c, idx, n)
		idx++
	}
	walk(x.X)
	walk(x.Y)
}

func (w *shellWalker) call(x *syntax.CallExpr, st *syntax.Stmt, c ctx, pipeIdx, pipeLen int) {
	for _, a := range x.Assigns {
		if a.Value != nil {
			w.substitutions(a.Value, c)
			if len(x.Args) == 0 && c.fn == nil && len(c.loops) == 0 && a.Name != nil {
				if lit := literal(a.Value); lit != "" {
					w.s.Vars[a.Name.Value] = lit
				}
			}
		}
	}
	if len(x.Args) == 0 {
		return
	}
	for _, a := range x.Args {
		w.substitutions(a, c)
	}
	cmd := &Command{
		Line: w.line(x.Pos()), EndLine: w.line(x.End()),
		PipeIndex: pipeIdx, PipeLen: pipeLen, Loops: c.loops,
		Guarded: c.guarded, Fallback: c.fallback, Substituted: c.substituted,
		Background: st.Background, Script: w.s,
	}
	if cmd.PipeLen == 0 {
		cmd.PipeLen = 1
	}
	for _, a := range x.Assigns {
		cmd.Assigns = append(cmd.Assigns, w.text(a))
	}
	for _, a := range x.Args {
		cmd.Words = append(cmd.Words, w.text(a))
		cmd.Args = append(cmd.Args, unquote(a, w.text(a)))
	}
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob:
			if r.Word != nil && (r.N == nil || r.N.Value == "1" || r.N.Value == "2") {
				cmd.Outputs = append(cmd.Outputs, w.text(r.Word))
			}
		}
	}
	cmd.Raw = w.text(x)
	cmd.Text = collapse(cmd.Raw)
	if c.fn != nil {
		cmd.Func = c.fn.Name
		c.fn.Commands = append(c.fn.Commands, cmd)
	} else {
		w.s.Commands = append(w.s.Commands, cmd)
		w.shellOptions(cmd)
	}
	w.count++
}

// substitutions walks the command substitutions inside a word.
func (w *shellWalker) substitutions(n syntax.Node, c ctx) {
	depth := 0
	syntax.Walk(n, func(node syntax.Node) bool {
		if depth > 16 {
			return false
		}
		if cs, ok := node.(*syntax.CmdSubst); ok {
			if w.makeRefs && isMakeRef(cs) {
				return false
			}
			inner := c
			inner.substituted = true
			depth++
			w.stmts(cs.Stmts, inner)
			return false
		}
		return true
	})
}

func (w *shellWalker) shellOptions(cmd *Command) {
	if cmd.Name() != "set" {
		return
	}
	for i, a := range cmd.Args[1:] {
		switch {
		case a == "-o" && i+2 < len(cmd.Args) && cmd.Args[i+2] == "pipefail":
			w.s.Pipefail = true
		case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--"):
			if strings.Contains(a, "e") {
				w.s.SetE = true
			}
			if strings.Contains(a, "x") {
				w.s.Xtrace = true
			}
			if strings.HasSuffix(a, "o") && i+2 < len(cmd.Args) && cmd.Args[i+2] == "pipefail" {
				w.s.Pipefail = true
			}
		}
	}
}

func (w *shellWalker) funcDecl(x *syntax.FuncDecl, c ctx) {
	if x.Name == nil || x.Body == nil {
		return
	}
	fn := &Func{Name: x.Name.Value, Line: w.line(x.Pos()), EndLine: w.line(x.End())}
	w.s.Funcs[fn.Name] = fn
	inner := ctx{fn: fn}
	w.stmt(x.Body, inner, 0, 1)
}

func (w *shellWalker) newLoop(n syntax.Node, kind string, c ctx) *Loop {
	l := &Loop{Kind: kind, Line: w.line(n.Pos()), EndLine: w.line(n.End()), Text: w.text(n)}
	w.s.Loops = append(w.s.Loops, l)
	return l
}

// literal returns the word's value when it has no expansions, else "".
func literal(w *syntax.Word) string {
	if w == nil {
		return ""
	}
	return w.Lit()
}

// unquote returns a word with quotes removed when its parts are literal; for
// words with expansions it returns the source text.
func unquote(w *syntax.Word, src string) string {
	var b strings.Builder
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			b.WriteString(x.Value)
		case *syntax.SglQuoted:
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return strings.Trim(src, `"`)
				}
				b.WriteString(l.Value)
			}
		default:
			return src
		}
	}
	return b.String()
}

// collapse joins backslash-continued lines into one line.
func collapse(s string) string {
	s = strings.ReplaceAll(s, "\\\r\n", " ")
	s = strings.ReplaceAll(s, "\\\n", " ")
	return strings.Join(strings.Fields(s), " ")
}

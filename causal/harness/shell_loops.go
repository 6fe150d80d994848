package harness

import (
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

var (
	seqBound     = regexp.MustCompile(`seq\s+(?:\d+\s+)?(\$?\{?\w+\}?)\s*\)`)
	braceBound   = regexp.MustCompile(`\{\d+\.\.(\d+)\}`)
	cStyleBound  = regexp.MustCompile(`<=?\s*(\$?\{?\w+\}?)\s*;`)
	counterMatch = regexp.MustCompile(`(?:-(?:ge|gt|eq|lt|le)\s+"?|(?:>=|<=|==|>|<)\s*)(\$?\{?[A-Za-z_0-9]+\}?)"?`)
)

// forBound returns the number of iterations of a for loop when it is fixed.
func forBound(x *syntax.ForClause, text string, vars map[string]string) int {
	switch l := x.Loop.(type) {
	case *syntax.WordIter:
		if len(l.Items) == 0 {
			return 0
		}
		all := true
		for _, it := range l.Items {
			if it.Lit() == "" {
				all = false
			}
		}
		if all {
			if len(l.Items) == 1 {
				if m := braceBound.FindStringSubmatch(l.Items[0].Lit()); m != nil {
					return atoiBounded(m[1])
				}
			}
			return len(l.Items)
		}
		var b strings.Builder
		for _, it := range l.Items {
			syntax.NewPrinter().Print(&b, it)
			b.WriteByte(' ')
		}
		if m := seqBound.FindStringSubmatch(b.String()); m != nil {
			return resolveNumber(m[1], vars)
		}
	case *syntax.CStyleLoop:
		head, _, _ := strings.Cut(text, "))")
		if m := cStyleBound.FindStringSubmatch(head + ";"); m != nil {
			return resolveNumber(m[1], vars)
		}
	}
	return 0
}

// counterBound reads an attempt limit from a while/until loop's comparisons.
func counterBound(text string, vars map[string]string) int {
	for _, m := range counterMatch.FindAllStringSubmatch(text, 8) {
		if n := resolveNumber(m[1], vars); n > 0 {
			return n
		}
	}
	return 0
}

func resolveNumber(tok string, vars map[string]string) int {
	tok = strings.Trim(tok, "${}\"")
	if n := atoiBounded(tok); n > 0 {
		return n
	}
	if v, ok := vars[tok]; ok {
		return atoiBounded(v)
	}
	return 0
}

func atoiBounded(s string) int {
	n := 0
	if s == "" || len(s) > 7 {
		return 0
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0
		}
		n = n*10 + int(r-'0')
	}
	return n
}

// finishLoop reads the bound, the sleep and whether the loop retries.
func (w *shellWalker) finishLoop(l *Loop, cond, body []*syntax.Stmt) {
	if l.Bound == 0 && l.Kind != "for" {
		l.Bound = counterBound(l.Text, w.s.Vars)
	}
	var exits, tested bool
	for _, st := range append(append([]*syntax.Stmt{}, cond...), body...) {
		syntax.Walk(st, func(node syntax.Node) bool {
			call, ok := node.(*syntax.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			name := literal(call.Args[0])
			switch name {
			case "sleep":
				if l.Sleep == "" && len(call.Args) > 1 {
					l.Sleep = w.text(call.Args[1])
				}
			case "break", "exit", "return":
				exits = true
			}
			return true
		})
	}
	var checks []*syntax.Stmt
	for _, st := range cond {
		if nontrivialCondition(st) {
			tested = true
			checks = append(checks, st)
		}
	}
	for _, st := range body {
		if ic, ok := st.Cmd.(*syntax.IfClause); ok {
			for _, cs := range ic.Cond {
				if nontrivialCondition(cs) {
					tested = true
					checks = append(checks, cs)
				}
			}
		}
		if b, ok := st.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.AndStmt || b.Op == syntax.OrStmt) {
			tested = true
			checks = append(checks, b.X)
		}
	}
	l.Retry = (l.Kind != "for" && tested) || (exits && tested) || (l.Kind == "for" && exits && l.Sleep != "")
	l.Wait = l.Retry && w.onlyProbes(checks)
}

// onlyProbes reports whether the statements run at least one command and
// every command they run is a read-only probe.
func (w *shellWalker) onlyProbes(stmts []*syntax.Stmt) bool {
	probes, others := 0, 0
	for _, st := range stmts {
		syntax.Walk(st, func(node syntax.Node) bool {
			call, ok := node.(*syntax.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			var words []string
			for _, a := range call.Args {
				words = append(words, w.text(a))
			}
			switch literal(call.Args[0]) {
			case "[", "test", "true", "false", ":", "sleep", "echo", "printf", "cat":
			default:
				if isProbe(words) {
					probes++
				} else {
					others++
				}
			}
			return false // command substitutions in the arguments only read
		})
	}
	return probes > 0 && others == 0
}

// probeTools are commands that only look: each maps to the argument that
// makes it a probe ("" when any use is one).
var probeTools = map[string]string{"kill": "-0", "pg_isready": "", "mysqladmin": "ping", "redis-cli": "ping",
	"nc": "-z", "ncat": "-z", "grep": "", "pgrep": "", "ss": "", "lsof": "", "docker": "", "kubectl": "",
	"curl": "", "wget": ""}

// isProbe reports whether a command's words (wrappers such as sudo and
// timeout skipped) only check a condition.
func isProbe(words []string) bool {
	for len(words) > 0 && (words[0] == "sudo" || words[0] == "timeout" || words[0] == "!" || atoiBounded(words[0]) > 0 || strings.HasPrefix(words[0], "-")) {
		words = words[1:]
	}
	if len(words) == 0 {
		return false
	}
	arg, ok := probeTools[words[0]]
	if !ok {
		return false
	}
	rest := strings.Join(words[1:], " ")
	switch words[0] {
	case "docker":
		return len(words) > 1 && (words[1] == "info" || words[1] == "inspect" || words[1] == "ps" || words[1] == "version")
	case "kubectl":
		return strings.Contains(" "+rest+" ", " get ") || strings.Contains(" "+rest+" ", " wait ") || strings.Contains(rest, "cluster-info")
	case "curl", "wget":
		local := containsAnyWord(rest, "localhost", "127.0.0.1", "[::1]", "$ADDR", "/health", "/ready", "/live", "/ping", "/status")
		return local && !containsAnyWord(rest, " -o ", " -O ", "--output", "| ", "-X POST", "--data")
	}
	return arg == "" || strings.Contains(" "+rest+" ", " "+arg+" ")
}

func containsAnyWord(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// nontrivialCondition reports whether a condition runs a real command rather
// than a test of variables.
func nontrivialCondition(st *syntax.Stmt) bool {
	found := false
	syntax.Walk(st, func(node syntax.Node) bool {
		switch x := node.(type) {
		case *syntax.TestClause, *syntax.ArithmCmd:
			return false
		case *syntax.CallExpr:
			if len(x.Args) == 0 {
				return true
			}
			switch literal(x.Args[0]) {
			case "[", "test", "true", "false", ":", "sleep", "echo", "printf":
			default:
				found = true
			}
		}
		return !found
	})
	return found
}

// isMakeRef reports whether a command substitution is really a make
// variable reference: $(NAME) with a single identifier word.
func isMakeRef(cs *syntax.CmdSubst) bool {
	if len(cs.Stmts) != 1 {
		return false
	}
	call, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) != 1 || len(call.Assigns) > 0 {
		return false
	}
	name := call.Args[0].Lit()
	return name != "" && syntax.ValidName(strings.ReplaceAll(name, ".", "_"))
}

// runsArgsInRetry reports whether a function runs "$@" inside a retry loop.
func runsArgsInRetry(fn *Func) (bool, *Loop) {
	for _, c := range fn.Commands {
		if len(c.Words) == 0 {
			continue
		}
		w := c.Words[0]
		if w != `"$@"` && w != "$@" && w != `"$*"` && w != "$*" {
			continue
		}
		for _, l := range c.Loops {
			if l.Retry || l.Bound > 0 {
				return true, l
			}
		}
	}
	return false, nil
}

package patch

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/polylane/polylane/causal/harness"
)

// fragment is one piece of shell inside a file: a run: block, a task command,
// a recipe or a whole script, with the 1-based line it starts at.
type fragment struct {
	where string
	line  int
	text  string
}

// shellFacts are the properties of a fragment that a patch must not make worse.
type shellFacts struct {
	tests     int // test commands
	narrowed  int // test commands with a flag that narrows or skips tests
	swallowed int // test commands whose failure is swallowed (|| true)
	unbounded int // while/until loops with no bound
	firstLoop int // 1-based line (in the fragment) of the first unbounded loop
}

// maxFragment bounds the text handed to the shell parser.
const maxFragment = 1 << 20

// compareFragments checks the new fragments against the old ones: new text
// must parse (unless as many old fragments failed to parse), and test
// commands, narrowing flags, swallowed failures and unbounded loops must not
// get worse.
func compareFragments(p string, old, new []fragment) error {
	oldTexts := make(map[string]bool, len(old))
	var before, after shellFacts
	oldFailed, newFailed := 0, 0
	for _, f := range old {
		oldTexts[f.text] = true
		facts, err := analyzeShell(f.text)
		if err != nil {
			oldFailed++
		}
		before.add(facts)
	}
	var parseErr, loopErr error
	for _, f := range new {
		facts, err := analyzeShell(f.text)
		if err != nil {
			newFailed++
			if !oldTexts[f.text] && parseErr == nil {
				parseErr = &ValidationError{Path: p, Line: f.line, Rule: RuleParse,
					Msg: fmt.Sprintf("shell in %s does not parse: %v", f.where, err)}
			}
		}
		if facts.unbounded > 0 && !oldTexts[f.text] && loopErr == nil {
			loopErr = &ValidationError{Path: p, Line: f.line + facts.firstLoop - 1, Rule: RuleUnboundedRetry,
				Msg: "loop in " + f.where + " has no bound (no counter checked against a limit)"}
		}
		after.add(facts)
	}
	switch {
	case parseErr != nil && newFailed > oldFailed:
		return parseErr
	case after.unbounded > before.unbounded && loopErr != nil:
		return loopErr
	case after.unbounded > before.unbounded:
		return &ValidationError{Path: p, Rule: RuleUnboundedRetry, Msg: "the patch adds a loop with no bound"}
	case after.tests < before.tests:
		return &ValidationError{Path: p, Rule: RuleTestRemoved,
			Msg: fmt.Sprintf("the patch removes a test command (%d before, %d after)", before.tests, after.tests)}
	case after.tests-after.narrowed < before.tests-before.narrowed:
		return &ValidationError{Path: p, Rule: RuleTestSkipped, Msg: "the patch narrows or skips tests on a test command"}
	case after.swallowed > before.swallowed:
		return &ValidationError{Path: p, Rule: RuleContinueOnError, Msg: "the patch ignores the failure of a test command"}
	}
	return nil
}

// add accumulates facts.
func (s *shellFacts) add(o shellFacts) {
	if s.firstLoop == 0 {
		s.firstLoop = o.firstLoop
	}
	s.tests += o.tests
	s.narrowed += o.narrowed
	s.swallowed += o.swallowed
	s.unbounded += o.unbounded
}

// analyzeShell parses a fragment and collects its facts.
func analyzeShell(text string) (shellFacts, error) {
	var facts shellFacts
	if len(text) > maxFragment {
		return facts, fmt.Errorf("fragment of %d bytes is too large to parse", len(text))
	}
	f, err := harness.ParseShellSyntax("", maskTemplates(text))
	if err != nil {
		return facts, err
	}
	walkFacts(f, &facts, false, 0)
	return facts, nil
}

// walkFacts walks a shell tree. bounded is set inside a `timeout` wrapper,
// where loops need no bound of their own; depth limits nested `sh -c`.
func walkFacts(node syntax.Node, facts *shellFacts, bounded bool, depth int) {
	syntax.Walk(node, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.WhileClause:
			if !bounded && !loopBounded(n) {
				facts.unbounded++
				if facts.firstLoop == 0 {
					facts.firstLoop = int(n.Pos().Line())
				}
			}
		case *syntax.BinaryCmd:
			if n.Op == syntax.OrStmt && swallows(n.Y) && containsTest(n.X) {
				facts.swallowed++
			}
		case *syntax.CallExpr:
			argv := callArgs(n)
			cmd, wrappedByTimeout := stripWrappers(argv)
			if isTestCommand(cmd) {
				facts.tests++
				if narrows(cmd) {
					facts.narrowed++
				}
			}
			if inner, ok := shellDashC(cmd); ok && depth < 3 {
				if sub, err := harness.ParseShellSyntax("", maskTemplates(inner)); err == nil {
					walkFacts(sub, facts, bounded || wrappedByTimeout, depth+1)
				}
			}
		}
		return true
	})
}

// loopBounded reports whether a while/until loop has a bound: a counter that
// is incremented (or a clock read) and checked against a limit, or a
// `while read` loop that ends with its input.
func loopBounded(w *syntax.WhileClause) bool {
	if len(w.Cond) == 1 {
		if call, ok := w.Cond[0].Cmd.(*syntax.CallExpr); ok {
			if args := callArgs(call); len(args) > 0 && args[0] == "read" {
				return true
			}
		}
	}
	counter, check := false, false
	visit := func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause:
			counter = true
			if hasArithCompare(n) {
				check = true
			}
		case *syntax.BinaryTest:
			check = check || numericTestOp(n.Op.String())
		case *syntax.CallExpr:
			args := callArgs(n)
			for _, a := range args {
				if numericTestOp(a) {
					check = true
				}
				if a == "$SECONDS" || a == "SECONDS" || a == "expr" {
					counter = true
				}
			}
		case *syntax.ParamExp:
			if n.Param != nil && n.Param.Value == "SECONDS" {
				counter = true
			}
		}
		return true
	}
	for _, s := range w.Cond {
		syntax.Walk(s, visit)
	}
	for _, s := range w.Do {
		syntax.Walk(s, visit)
	}
	return counter && check
}

// hasArithCompare reports whether an arithmetic node compares numbers.
func hasArithCompare(n syntax.Node) bool {
	found := false
	syntax.Walk(n, func(m syntax.Node) bool {
		if b, ok := m.(*syntax.BinaryArithm); ok {
			switch b.Op.String() {
			case "<", ">", "<=", ">=", "==", "!=":
				found = true
			}
		}
		return !found
	})
	return found
}

// numericTestOp reports whether s is a numeric test operator.
func numericTestOp(s string) bool {
	switch s {
	case "-lt", "-le", "-gt", "-ge", "-eq", "-ne":
		return true
	}
	return false
}

// swallows reports whether a statement after || discards the failure.
func swallows(s *syntax.Stmt) bool {
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok {
		return false
	}
	args := callArgs(call)
	switch {
	case len(args) == 1 && (args[0] == "true" || args[0] == ":"):
		return true
	case len(args) == 2 && args[0] == "exit" && args[1] == "0":
		return true
	}
	return false
}

// containsTest reports whether a statement runs a test command.
func containsTest(s *syntax.Stmt) bool {
	found := false
	syntax.Walk(s, func(n syntax.Node) bool {
		if call, ok := n.(*syntax.CallExpr); ok {
			cmd, _ := stripWrappers(callArgs(call))
			found = found || isTestCommand(cmd)
		}
		return !found
	})
	return found
}

// callArgs flattens a simple command's words to strings: literals and quoted
// text as written, expansions as "$NAME" or "$(...)".
func callArgs(c *syntax.CallExpr) []string {
	out := make([]string, 0, len(c.Args))
	for _, w := range c.Args {
		out = append(out, wordText(w))
	}
	return out
}

// wordText flattens one word.
func wordText(w *syntax.Word) string {
	var sb strings.Builder
	for _, part := range w.Parts {
		writePart(&sb, part)
	}
	return sb.String()
}

// writePart writes the text of one word part.
func writePart(sb *strings.Builder, part syntax.WordPart) {
	switch p := part.(type) {
	case *syntax.Lit:
		sb.WriteString(p.Value)
	case *syntax.SglQuoted:
		sb.WriteString(p.Value)
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			writePart(sb, q)
		}
	case *syntax.ParamExp:
		if p.Param != nil {
			sb.WriteString("$" + p.Param.Value)
		}
	case *syntax.CmdSubst:
		sb.WriteString("$(...)")
	case *syntax.ArithmExp:
		sb.WriteString("$((...))")
	}
}

// maskTemplates replaces GitHub expressions (${{ ... }}) and Go templates
// ({{ ... }}) with a plain word so the shell parser sees ordinary text. Line
// breaks inside them are kept so positions stay right.
func maskTemplates(s string) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	var sb strings.Builder
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			sb.WriteString(s)
			return sb.String()
		}
		start := i
		if i > 0 && s[i-1] == '$' {
			start = i - 1
		}
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			sb.WriteString(s)
			return sb.String()
		}
		sb.WriteString(s[:start])
		sb.WriteString("TPL")
		sb.WriteString(strings.Repeat("\\\n", strings.Count(s[i:i+j], "\n")))
		s = s[i+j+2:]
	}
}

package patch

import (
	"fmt"
	"sort"
	"strings"
)

// makeRule is one rule of a Makefile: its targets, the line of the rule and
// its recipe lines (tab stripped, still with @ - + prefixes).
type makeRule struct {
	targets []string
	line    int
	recipe  []string
	// recipeLine is the 1-based line of the first recipe line.
	recipeLine int
}

// makefile is the small model of a Makefile the validation needs.
type makefile struct {
	rules []makeRule
	vars  map[string]string
}

// directives are Makefile keywords that start a line that is not a rule.
var directives = map[string]bool{
	"ifeq": true, "ifneq": true, "ifdef": true, "ifndef": true, "else": true, "endif": true,
	"include": true, "-include": true, "sinclude": true, "export": true, "unexport": true,
	"override": true, "vpath": true, "define": true, "endef": true, "undefine": true, "private": true,
}

// parseMakefile scans a Makefile for rules, recipes and simple variables.
func parseMakefile(content []byte) makefile {
	mf := makefile{vars: make(map[string]string)}
	lines := strings.Split(string(content), "\n")
	var cur *makeRule
	inDefine := false
	for i := 0; i < len(lines); i++ {
		raw := strings.TrimSuffix(lines[i], "\r")
		if strings.HasPrefix(raw, "\t") && cur != nil && !inDefine {
			if len(cur.recipe) == 0 {
				cur.recipeLine = i + 1
			}
			cur.recipe = append(cur.recipe, raw[1:])
			continue
		}
		start := i
		for strings.HasSuffix(raw, "\\") && i+1 < len(lines) {
			i++
			raw = strings.TrimSuffix(raw, "\\") + " " + strings.TrimSpace(strings.TrimSuffix(lines[i], "\r"))
		}
		trimmed := strings.TrimSpace(raw)
		first, _, _ := strings.Cut(trimmed, " ")
		switch {
		case inDefine:
			inDefine = first != "endef"
			continue
		case first == "define":
			inDefine = true
			cur = nil
			continue
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
			continue
		case directives[first]:
			if name, value, ok := assignment(strings.TrimSpace(strings.TrimPrefix(trimmed, first))); ok {
				mf.vars[name] = value
			}
			continue
		}
		if name, value, ok := assignment(trimmed); ok {
			mf.vars[name] = value
			cur = nil
			continue
		}
		rule, ok := ruleLine(trimmed, start+1)
		if !ok {
			cur = nil
			continue
		}
		mf.rules = append(mf.rules, rule)
		cur = &mf.rules[len(mf.rules)-1]
	}
	return mf
}

// assignment parses NAME = value (with :=, ::=, ?=, += or !=) and reports
// whether the line is one.
func assignment(line string) (string, string, bool) {
	eq := strings.IndexByte(line, '=')
	if eq <= 0 {
		return "", "", false
	}
	colon := strings.IndexByte(line, ':')
	if colon >= 0 && colon < eq && !strings.HasPrefix(line[colon:], ":=") && !strings.HasPrefix(line[colon:], "::=") {
		return "", "", false // a rule with a target-specific variable
	}
	name := strings.TrimRight(line[:eq], ":?+! \t")
	if name == "" || strings.ContainsAny(name, " \t") {
		return "", "", false
	}
	return name, strings.TrimSpace(line[eq+1:]), true
}

// ruleLine parses "targets: prerequisites [; recipe]".
func ruleLine(line string, n int) (makeRule, bool) {
	colon := strings.IndexByte(line, ':')
	if colon <= 0 {
		return makeRule{}, false
	}
	rule := makeRule{targets: strings.Fields(line[:colon]), line: n}
	rest := line[colon+1:]
	if _, recipe, ok := strings.Cut(rest, ";"); ok && strings.TrimSpace(recipe) != "" {
		rule.recipe = append(rule.recipe, strings.TrimSpace(recipe))
		rule.recipeLine = n
	}
	return rule, len(rule.targets) > 0
}

// targets returns the set of target names with their first line.
func (mf makefile) targets() map[string]int {
	out := make(map[string]int)
	for _, r := range mf.rules {
		for _, t := range r.targets {
			if _, ok := out[t]; !ok {
				out[t] = r.line
			}
		}
	}
	return out
}

// fragments returns each rule's recipe as shell, with make's variables
// expanded where they are simple and masked where not.
func (mf makefile) fragments() []fragment {
	var out []fragment
	for _, r := range mf.rules {
		if len(r.recipe) == 0 {
			continue
		}
		lines := make([]string, len(r.recipe))
		for i, l := range r.recipe {
			lines[i] = expandMake(strings.TrimLeft(strings.TrimSpace(l), "@-+"), mf.vars, 0)
		}
		out = append(out, fragment{where: "target " + strings.Join(r.targets, " "), line: r.recipeLine,
			text: strings.Join(lines, "\n")})
	}
	return out
}

// ignoredErrors counts recipe lines whose failure make ignores (a leading -)
// and .IGNORE rules.
func (mf makefile) ignoredErrors() int {
	n := 0
	for _, r := range mf.rules {
		for _, t := range r.targets {
			if t == ".IGNORE" {
				n++
			}
		}
		for _, l := range r.recipe {
			l = strings.TrimSpace(l)
			prefix := l[:len(l)-len(strings.TrimLeft(l, "@-+"))]
			if strings.Contains(prefix, "-") {
				n++
			}
		}
	}
	return n
}

// expandMake replaces make references in a recipe line: $$ becomes $, simple
// variables their value, $(MAKE) make, anything else the word MAKEVAR.
func expandMake(s string, vars map[string]string, depth int) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			sb.WriteByte(s[i])
			continue
		}
		switch c := s[i+1]; c {
		case '$':
			sb.WriteByte('$')
			i++
		case '(', '{':
			end := matchClose(s, i+1)
			if end < 0 {
				sb.WriteString(s[i:])
				return sb.String()
			}
			sb.WriteString(makeRef(s[i+2:end], vars, depth))
			i = end
		default:
			sb.WriteString("MAKEVAR")
			i++
		}
	}
	return sb.String()
}

// makeRef expands the body of one $(...) reference.
func makeRef(name string, vars map[string]string, depth int) string {
	switch {
	case name == "MAKE":
		return "make"
	case depth < 4 && !strings.ContainsAny(name, " :,%("):
		if v, ok := vars[name]; ok && v != "" {
			return expandMake(v, vars, depth+1)
		}
	}
	return "MAKEVAR"
}

// matchClose returns the index of the bracket closing the one at open.
func matchClose(s string, open int) int {
	want := byte(')')
	if s[open] == '{' {
		want = '}'
	}
	depth := 0
	for j := open; j < len(s); j++ {
		switch s[j] {
		case s[open]:
			depth++
		case want:
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// checkMakefile validates a Makefile: it keeps its targets and ignores no
// more errors. It returns the recipes for the shell checks.
func checkMakefile(p string, old, new []byte) ([]fragment, []fragment, error) {
	mNew := parseMakefile(new)
	if old == nil {
		return nil, mNew.fragments(), nil
	}
	mOld := parseMakefile(old)
	have := mNew.targets()
	var missing []string
	for t := range mOld.targets() {
		if _, ok := have[t]; !ok {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, nil, structureError(p, "targets", missing)
	}
	if mNew.ignoredErrors() > mOld.ignoredErrors() {
		return nil, nil, &ValidationError{Path: p, Rule: RuleContinueOnError,
			Msg: fmt.Sprintf("the patch makes make ignore more recipe failures (%d before, %d after)", mOld.ignoredErrors(), mNew.ignoredErrors())}
	}
	return mOld.fragments(), mNew.fragments(), nil
}

package harness

import (
	"regexp"
	"strings"
)

// Makefile is a parsed Makefile: variables, targets with their recipes, .PHONY
// and includes. Conditionals are read through (both branches count).
type Makefile struct {
	Path     string
	Vars     map[string]Value
	Targets  map[string]*Target
	Order    []string
	Phony    map[string]bool
	Includes []Include
}

// Target is a rule's target.
type Target struct {
	Name    string
	Line    int
	Prereqs []string
	Recipe  []*RecipeLine
	// EndLine is the last recipe line (or the rule line without a recipe).
	EndLine int
}

// RecipeLine is one logical recipe line (continuations joined).
type RecipeLine struct {
	Line    int
	EndLine int
	// Raw is the text after the leading tab, continuation lines included.
	Raw string
	// Shell is the text make hands to the shell: prefixes (@, -, +) removed
	// and variables expanded where known.
	Shell string
	// Source is the text with prefixes removed and $$ unescaped but make
	// variable references kept as written, for positions and patches.
	Source    string
	Silent    bool
	IgnoreErr bool
}

// maxExpansion bounds the text one make variable expansion produces.
const maxExpansion = 64 << 10

var (
	makeAssign = regexp.MustCompile(`^(?:export\s+|override\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*(\?=|:=|::=|\+=|!=|=)\s*(.*)$`)
	makeRule   = regexp.MustCompile(`^([^:=#\t][^:=#]*?)\s*(::?)(?:[^=]|$)(.*)$`)
	makeRef    = regexp.MustCompile(`\$[({]([A-Za-z_][A-Za-z0-9_.-]*)[)}]`)
)

// ParseMakefile parses a Makefile.
func ParseMakefile(p string, data []byte) (*Makefile, error) {
	if len(data) > MaxFileBytes {
		return nil, &LimitError{File: p, What: "size", Limit: MaxFileBytes, Found: len(data)}
	}
	mf := &Makefile{Path: p, Vars: map[string]Value{}, Targets: map[string]*Target{}, Phony: map[string]bool{}}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	var cur []*Target
	inDefine := false
	for i := 0; i < len(lines); i++ {
		start := i
		text := lines[i]
		for strings.HasSuffix(text, "\\") && i+1 < len(lines) {
			i++
			text += "\n" + lines[i]
		}
		if inDefine {
			if strings.HasPrefix(strings.TrimSpace(text), "endef") {
				inDefine = false
			}
			continue
		}
		if strings.HasPrefix(text, "\t") && len(cur) > 0 {
			rl := newRecipeLine(text[1:], start+1, i+1)
			for _, t := range cur {
				t.Recipe = append(t.Recipe, rl)
				t.EndLine = i + 1
			}
			continue
		}
		trimmed := strings.TrimSpace(stripMakeComment(text))
		if trimmed == "" {
			continue
		}
		if strings.HasPrefix(trimmed, "define ") || trimmed == "define" {
			inDefine = true
			cur = nil
			continue
		}
		if isMakeDirective(trimmed) {
			if inc, ok := parseMakeInclude(mf.Expand(trimmed, nil), start+1); ok {
				mf.Includes = append(mf.Includes, inc...)
			}
			continue
		}
		if m := makeAssign.FindStringSubmatch(trimmed); m != nil {
			mf.setVar(m[1], m[2], collapse(m[3]), start+1)
			cur = nil
			continue
		}
		if m := makeRule.FindStringSubmatch(trimmed); m != nil {
			cur = mf.addRule(m, trimmed, start+1, i+1)
			continue
		}
		cur = nil
	}
	mf.expandRecipes()
	return mf, nil
}

func (mf *Makefile) setVar(name, op, value string, line int) {
	switch op {
	case "?=":
		if _, ok := mf.Vars[name]; ok {
			return
		}
	case "+=":
		if old, ok := mf.Vars[name]; ok {
			value = strings.TrimSpace(old.Text + " " + value)
			line = old.Line
		}
	case "!=":
		return
	}
	mf.Vars[name] = Value{Text: value, Line: line}
}

func (mf *Makefile) addRule(m []string, line string, start, end int) []*Target {
	names := strings.Fields(m[1])
	rest := m[3]
	if m[2] == "::" {
		rest = strings.TrimPrefix(line[strings.Index(line, "::")+2:], "")
	} else if i := strings.IndexByte(line, ':'); i >= 0 {
		rest = line[i+1:]
	}
	var inline string
	if j := strings.IndexByte(rest, ';'); j >= 0 {
		inline, rest = rest[j+1:], rest[:j]
	}
	rest = strings.SplitN(rest, "|", 2)[0]
	prereqs := strings.Fields(rest)
	var out []*Target
	for _, n := range names {
		if n == ".PHONY" {
			for _, p := range prereqs {
				mf.Phony[p] = true
			}
			continue
		}
		if strings.HasPrefix(n, ".") && strings.ToUpper(n) == n {
			continue
		}
		t, ok := mf.Targets[n]
		if !ok {
			t = &Target{Name: n, Line: start, EndLine: end}
			mf.Targets[n] = t
			mf.Order = append(mf.Order, n)
		}
		t.Prereqs = append(t.Prereqs, prereqs...)
		if strings.TrimSpace(inline) != "" {
			t.Recipe = append(t.Recipe, newRecipeLine(strings.TrimSpace(inline), start, end))
		}
		out = append(out, t)
	}
	return out
}

func newRecipeLine(raw string, start, end int) *RecipeLine {
	rl := &RecipeLine{Line: start, EndLine: end, Raw: raw}
	s := strings.TrimLeft(raw, " \t")
	for len(s) > 0 && strings.ContainsRune("@-+", rune(s[0])) {
		switch s[0] {
		case '@':
			rl.Silent = true
		case '-':
			rl.IgnoreErr = true
		}
		s = strings.TrimLeft(s[1:], " \t")
	}
	rl.Shell = s
	rl.Source = strings.ReplaceAll(s, "$$", "$")
	return rl
}

// expandRecipes expands variables in recipe lines.
func (mf *Makefile) expandRecipes() {
	for _, t := range mf.Targets {
		for _, rl := range t.Recipe {
			rl.Shell = mf.Expand(rl.Shell, t)
		}
	}
}

// Expand replaces $(VAR), ${VAR}, automatic variables and $$ in s, as make
// would when it runs a recipe. Unknown variables are left as written.
func (mf *Makefile) Expand(s string, t *Target) string {
	// Each round may multiply the text's length (A = $(B)$(B)…), so
	// expansion stops before the text grows past maxExpansion.
	for depth := 0; depth < 8 && len(s) <= maxExpansion && makeRef.MatchString(s); depth++ {
		next := makeRef.ReplaceAllStringFunc(s, func(ref string) string {
			name := ref[2 : len(ref)-1]
			if name == "MAKE" {
				return "make"
			}
			if v, ok := mf.Vars[name]; ok {
				return v.Text
			}
			return ref
		})
		if next == s || len(next) > maxExpansion {
			break
		}
		s = next
	}
	if t != nil {
		s = strings.ReplaceAll(s, "$@", t.Name)
		if len(t.Prereqs) > 0 {
			s = strings.ReplaceAll(s, "$<", t.Prereqs[0])
			s = strings.ReplaceAll(s, "$^", strings.Join(t.Prereqs, " "))
		}
	}
	return strings.ReplaceAll(s, "$$", "$")
}

// DefaultTarget is the first target that is not a pattern or special target.
func (mf *Makefile) DefaultTarget() string {
	for _, n := range mf.Order {
		if !strings.Contains(n, "%") {
			return n
		}
	}
	return ""
}

func stripMakeComment(s string) string {
	if i := strings.IndexByte(s, '#'); i >= 0 && (i == 0 || s[i-1] != '\\') {
		return s[:i]
	}
	return s
}

var makeDirectives = []string{"ifeq", "ifneq", "ifdef", "ifndef", "else", "endif", "include", "-include", "sinclude", "export", "unexport", "vpath", "override ", "undefine", "$(", "$(eval", "$(info", "$(warning", "$(error"}

func isMakeDirective(s string) bool {
	for _, d := range makeDirectives {
		if s == strings.TrimSpace(d) || strings.HasPrefix(s, d+" ") || strings.HasPrefix(s, d+"\t") || (strings.HasPrefix(d, "$(") && strings.HasPrefix(s, d)) {
			if d == "export" && strings.Contains(s, "=") {
				return false
			}
			if d == "override " && strings.Contains(s, "=") {
				return false
			}
			return true
		}
	}
	return false
}

func parseMakeInclude(s string, line int) ([]Include, bool) {
	fields := strings.Fields(s)
	if len(fields) < 2 {
		return nil, false
	}
	switch fields[0] {
	case "include", "-include", "sinclude":
	default:
		return nil, false
	}
	var out []Include
	for _, f := range fields[1:] {
		if strings.ContainsAny(f, "$?[") {
			continue
		}
		out = append(out, Include{Path: f, Line: line, Optional: fields[0] != "include"})
	}
	return out, true
}

package harness

import (
	"path"
	"regexp"
	"strings"
)

// Justfile is a justfile (the command runner just): variables, recipes with
// their dependencies and bodies, aliases, imports and modules.
type Justfile struct {
	Path    string
	Vars    map[string]Value
	Recipes map[string]*JustRecipe
	// Order lists recipe names in source order; the first is the default.
	Order   []string
	Aliases map[string]string
	// Imports are the files whose recipes this one has (import 'x.just');
	// Modules the submodules (mod name ['path']) by name.
	Imports []Include
	Modules map[string]Include
	// Quiet is `set quiet`: no recipe line is echoed.
	Quiet bool
}

// JustRecipe is one recipe.
type JustRecipe struct {
	Name    string
	Line    int
	EndLine int
	// Params are the parameter names; Variadic is set when the last one
	// takes the remaining arguments.
	Params   []string
	Variadic bool
	// Deps run before the body, Post (after &&) after it.
	Deps []JustCall
	Post []JustCall
	// Lines are the body's logical lines (continuations joined); a shebang
	// recipe has one entry, the whole body.
	Lines   []*RecipeLine
	Shebang bool
	// Quiet is set by a leading @ on the recipe (lines are not echoed).
	Quiet bool
	// NoCD is the [no-cd] attribute: the recipe runs in the caller's
	// directory, not the justfile's.
	NoCD bool
}

// JustCall is a dependency: a recipe and its arguments.
type JustCall struct {
	Recipe string
	Args   []string
	Line   int
}

// justfileNames are the names just looks for in a directory.
var justfileNames = []string{"justfile", "Justfile", ".justfile", "JUSTFILE"}

var (
	justAssign = regexp.MustCompile(`^(?:export\s+)?([A-Za-z_][A-Za-z0-9_-]*)\s*:=\s*(.*)$`)
	justAlias  = regexp.MustCompile(`^alias\s+([A-Za-z_][A-Za-z0-9_-]*)\s*:=\s*([A-Za-z_][A-Za-z0-9_:-]*)`)
	justImport = regexp.MustCompile(`^import(\?)?\s+(['"])([^'"]+)['"]`)
	justMod    = regexp.MustCompile(`^mod(\?)?\s+([A-Za-z_][A-Za-z0-9_-]*)(?:\s+(['"])([^'"]+)['"])?`)
	justHeader = regexp.MustCompile(`^(@)?([A-Za-z_][A-Za-z0-9_-]*)((?:\s+[+*$]?[A-Za-z_][A-Za-z0-9_-]*(?:=(?:'[^']*'|"[^"]*"|[^\s:]+))?)*)\s*:([^=].*)?$`)
	justDepRef = regexp.MustCompile(`\(([^()]*)\)|([A-Za-z_][A-Za-z0-9_:-]*)`)
	justInterp = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}`)
)

// ParseJustfile parses a justfile. What it cannot read (expressions,
// conditionals) it keeps as written.
func ParseJustfile(p string, data []byte) (*Justfile, error) {
	if len(data) > MaxFileBytes {
		return nil, &LimitError{File: p, What: "size", Limit: MaxFileBytes, Found: len(data)}
	}
	jf := &Justfile{Path: p, Vars: map[string]Value{}, Recipes: map[string]*JustRecipe{},
		Aliases: map[string]string{}, Modules: map[string]Include{}}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	var attrs []string
	for i := 0; i < len(lines); i++ {
		text := lines[i]
		trimmed := strings.TrimSpace(stripJustComment(text))
		switch {
		case trimmed == "" || text != strings.TrimLeft(text, " \t"):
			continue
		case strings.HasPrefix(trimmed, "["):
			attrs = append(attrs, trimmed)
			continue
		case strings.HasPrefix(trimmed, "set "):
			if strings.Fields(trimmed)[1] == "quiet" && !strings.Contains(trimmed, "false") {
				jf.Quiet = true
			}
		case justAlias.MatchString(trimmed):
			m := justAlias.FindStringSubmatch(trimmed)
			jf.Aliases[m[1]] = m[2]
		case justImport.MatchString(trimmed):
			m := justImport.FindStringSubmatch(trimmed)
			jf.Imports = append(jf.Imports, Include{Path: m[3], Line: i + 1, Optional: m[1] != ""})
		case justMod.MatchString(trimmed):
			m := justMod.FindStringSubmatch(trimmed)
			jf.Modules[m[2]] = Include{Namespace: m[2], Path: m[4], Line: i + 1, Optional: m[1] != ""}
		case justAssign.MatchString(trimmed):
			m := justAssign.FindStringSubmatch(trimmed)
			jf.Vars[m[1]] = Value{Text: justLiteral(m[2]), Line: i + 1}
		case justHeader.MatchString(trimmed):
			r := parseJustHeader(justHeader.FindStringSubmatch(trimmed), i+1, attrs)
			i = r.body(lines, i+1) - 1
			if _, dup := jf.Recipes[r.Name]; !dup {
				jf.Order = append(jf.Order, r.Name)
			}
			jf.Recipes[r.Name] = r
		}
		attrs = nil
	}
	jf.expandLines()
	return jf, nil
}

// stripJustComment removes a comment from a top-level line.
func stripJustComment(s string) string {
	if strings.HasPrefix(strings.TrimSpace(s), "#") {
		return ""
	}
	if i := strings.Index(s, " #"); i >= 0 && !strings.ContainsAny(s[:i], `'"`) {
		return s[:i]
	}
	return s
}

// justLiteral returns a quoted string's content, or the expression as
// written.
func justLiteral(s string) string {
	s = strings.TrimSpace(stripJustComment(s))
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] && !strings.ContainsRune(s[1:len(s)-1], rune(s[0])) {
		return s[1 : len(s)-1]
	}
	return s
}

func parseJustHeader(m []string, line int, attrs []string) *JustRecipe {
	r := &JustRecipe{Name: m[2], Line: line, EndLine: line, Quiet: m[1] == "@"}
	for _, a := range attrs {
		if strings.Contains(a, "no-cd") {
			r.NoCD = true
		}
		if strings.Contains(a, "no-quiet") {
			r.Quiet = false
		}
	}
	for _, p := range strings.Fields(m[3]) {
		if strings.HasPrefix(p, "+") || strings.HasPrefix(p, "*") {
			r.Variadic = true
		}
		name, _, _ := strings.Cut(strings.TrimLeft(p, "+*$"), "=")
		r.Params = append(r.Params, name)
	}
	deps, post, _ := strings.Cut(m[4], "&&")
	r.Deps = justCalls(deps, line)
	r.Post = justCalls(post, line)
	return r
}

// justCalls reads a dependency list: `a b (c "x" y)`.
func justCalls(s string, line int) []JustCall {
	var out []JustCall
	for _, m := range justDepRef.FindAllStringSubmatch(s, 64) {
		if m[2] != "" {
			out = append(out, JustCall{Recipe: m[2], Line: line})
			continue
		}
		f := strings.Fields(m[1])
		if len(f) == 0 {
			continue
		}
		c := JustCall{Recipe: f[0], Line: line}
		for _, a := range f[1:] {
			c.Args = append(c.Args, justLiteral(a))
		}
		out = append(out, c)
	}
	return out
}

// body reads the recipe's indented body from line index start and returns
// the index of the first line after it.
func (r *JustRecipe) body(lines []string, start int) int {
	i := start
	for ; i < len(lines); i++ {
		l := lines[i]
		if strings.TrimSpace(l) == "" {
			continue
		}
		if l == strings.TrimLeft(l, " \t") {
			break
		}
	}
	end := i
	for end > start && strings.TrimSpace(lines[end-1]) == "" {
		end--
	}
	if end == start {
		return i
	}
	r.EndLine = end
	if strings.HasPrefix(strings.TrimSpace(lines[start]), "#!") {
		r.Shebang = true
		body := dedent(lines[start+1 : end])
		r.Lines = []*RecipeLine{{Line: start + 2, EndLine: end, Raw: body, Source: body, Shell: body, Silent: true}}
		return i
	}
	for j := start; j < end; j++ {
		first := j
		text := strings.TrimLeft(lines[j], " \t")
		for strings.HasSuffix(text, "\\") && j+1 < end {
			j++
			text += "\n" + lines[j]
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		rl := newRecipeLine(text, first+1, j+1)
		rl.Source = rl.Shell
		rl.Silent = rl.Silent != r.Quiet // @ on a line inverts the recipe's echo
		r.Lines = append(r.Lines, rl)
	}
	return i
}

// dedent removes the indentation of a shebang recipe's body.
func dedent(lines []string) string {
	ind := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if n := len(l) - len(strings.TrimLeft(l, " \t")); ind < 0 || n < ind {
			ind = n
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) >= ind && ind > 0 {
			l = l[ind:]
		}
		out[i] = l
	}
	return strings.Join(out, "\n")
}

// expandLines replaces {{name}} in recipe lines with the variables' values
// where they are literal.
func (jf *Justfile) expandLines() {
	for _, r := range jf.Recipes {
		for _, rl := range r.Lines {
			rl.Shell = jf.Interpolate(rl.Shell)
		}
	}
}

// Interpolate replaces {{name}} references whose variable has a literal
// value; others stay as written.
func (jf *Justfile) Interpolate(s string) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	return justInterp.ReplaceAllStringFunc(s, func(m string) string {
		if v, ok := jf.Vars[justInterp.FindStringSubmatch(m)[1]]; ok && !strings.ContainsAny(v.Text, "`()+\"'") {
			return v.Text
		}
		return m
	})
}

// Recipe returns the recipe a name or an alias names.
func (jf *Justfile) Recipe(name string) *JustRecipe {
	if r, ok := jf.Recipes[name]; ok {
		return r
	}
	if target, ok := jf.Aliases[name]; ok {
		return jf.Recipes[target]
	}
	return nil
}

// Justfile returns the parsed justfile at p.
func (r *Repo) Justfile(p string) (*Justfile, error) {
	return parsed(r, r.justfiles, p, ParseJustfile)
}

// FindJustfile returns the justfile just uses from dir: the first in dir or
// one of its parents within the repository.
func (r *Repo) FindJustfile(dir string) (*Justfile, error) {
	for d, i := path.Clean(dir), 0; i < 32; i++ {
		for _, n := range justfileNames {
			if p := path.Join(d, n); r.Exists(p) {
				return r.Justfile(p)
			}
		}
		if d == "." || d == "/" || d == "" {
			break
		}
		d = path.Dir(d)
	}
	return nil, errNotFound("justfile", dir)
}

package patch

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Host kinds: the kind of harness file a command lives in, which decides how
// a shape writes new shell into it.
const (
	// HostTaskfile is an entry of a Taskfile task's cmds list.
	HostTaskfile = "taskfile"
	// HostMakefile is a Makefile recipe line.
	HostMakefile = "makefile"
	// HostScript is a shell script file.
	HostScript = "script"
	// HostRun is a workflow step's run: script.
	HostRun = "run"
	// HostDockerfile is a Dockerfile RUN instruction: an argument edit
	// changes the command's own lines; new commands are RUN instructions
	// before or after it.
	HostDockerfile = "dockerfile"
)

// Site is the place a fix shape edits: a harness file, the kind of host, and
// the 1-based lines of the unit the edit is anchored to (a Taskfile cmds
// entry, a recipe line, or a shell statement inside a script or run: block).
type Site struct {
	Path    string
	Content []byte
	Host    string
	Line    int
	EndLine int
	// RunKeyLine is the line of the step's run: key (HostRun only); when it
	// equals Line the script is written inline after the key.
	RunKeyLine int
}

// ErrShape is returned when a shape cannot be applied to a site.
var ErrShape = errors.New("fix shape does not fit")

// lines splits content into lines without their newline; the final element
// is "" when content ends with a newline.
func lines(content []byte) []string {
	return strings.Split(string(content), "\n")
}

func join(ls []string) []byte {
	return []byte(strings.Join(ls, "\n"))
}

// indentOf returns the leading whitespace of a line.
func indentOf(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t"))]
}

func (s Site) check() ([]string, error) {
	ls := lines(s.Content)
	if s.Line < 1 || s.Line > len(ls) || s.EndLine < s.Line || s.EndLine > len(ls) {
		return nil, fmt.Errorf("%w: lines %d-%d outside %s", ErrShape, s.Line, s.EndLine, s.Path)
	}
	return ls, nil
}

// InsertShell adds commands before or after the site's unit, written in the
// host's syntax at the unit's indentation: Taskfile cmds entries, tab-indented
// recipe lines, or script lines. comment, when not empty, is written above the
// new commands where the host allows comments.
func InsertShell(s Site, after bool, cmds []string, comment string) ([]byte, error) {
	ls, err := s.check()
	if err != nil {
		return nil, err
	}
	if s.Host == HostRun && s.RunKeyLine == s.Line {
		return insertInlineRun(s, ls, after, cmds)
	}
	var add []string
	first := ls[s.Line-1]
	switch s.Host {
	case HostTaskfile:
		ind := taskItemIndent(first)
		for _, c := range commentLines(comment) {
			add = append(add, ind+"# "+c)
		}
		for _, c := range cmds {
			add = append(add, ind+"- "+YAMLScalar(c))
		}
	case HostMakefile:
		for _, c := range cmds {
			add = append(add, "\t"+MakeEscape(c))
		}
	case HostDockerfile:
		for _, c := range commentLines(comment) {
			add = append(add, "# "+c)
		}
		for _, c := range cmds {
			add = append(add, "RUN "+c)
		}
	case HostScript, HostRun:
		ind := indentOf(first)
		for _, c := range commentLines(comment) {
			add = append(add, ind+"# "+c)
		}
		for _, c := range cmds {
			add = append(add, ind+c)
		}
	default:
		return nil, fmt.Errorf("%w: unknown host %q", ErrShape, s.Host)
	}
	at := s.Line - 1
	if after {
		at = s.EndLine
	}
	out := append(append(append([]string{}, ls[:at]...), add...), ls[at:]...)
	return join(out), nil
}

// insertInlineRun turns `run: cmd` into a block script with the new commands.
func insertInlineRun(s Site, ls []string, after bool, cmds []string) ([]byte, error) {
	line := ls[s.Line-1]
	i := strings.Index(line, "run:")
	if i < 0 {
		return nil, fmt.Errorf("%w: no run: key on line %d of %s", ErrShape, s.Line, s.Path)
	}
	value := strings.TrimSpace(line[i+len("run:"):])
	if value == "" || strings.HasPrefix(value, "|") || strings.HasPrefix(value, ">") ||
		strings.HasPrefix(value, "'") || strings.HasPrefix(value, `"`) || strings.Contains(value, " #") {
		return nil, fmt.Errorf("%w: run: on line %d is not a plain inline script", ErrShape, s.Line)
	}
	keyIndent := indentOf(line)
	if strings.HasPrefix(strings.TrimSpace(line), "- ") {
		keyIndent += "  "
	}
	body := keyIndent + "  "
	block := []string{line[:i] + "run: |"}
	if !after {
		for _, c := range cmds {
			block = append(block, body+c)
		}
	}
	block = append(block, body+value)
	if after {
		for _, c := range cmds {
			block = append(block, body+c)
		}
	}
	out := append(append(append([]string{}, ls[:s.Line-1]...), block...), ls[s.Line:]...)
	return join(out), nil
}

// taskItemIndent returns the indentation of a Taskfile cmds item ("- ").
func taskItemIndent(line string) string {
	ind := indentOf(line)
	if strings.HasPrefix(strings.TrimLeft(line, " \t"), "-") {
		return ind
	}
	if len(ind) >= 2 {
		return ind[:len(ind)-2]
	}
	return ind
}

func commentLines(c string) []string {
	if strings.TrimSpace(c) == "" {
		return nil
	}
	return strings.Split(strings.TrimSpace(c), "\n")
}

// yamlPlainUnsafe matches text that cannot be written as a plain YAML scalar.
var yamlPlainUnsafe = regexp.MustCompile(`^[-?:,\[\]{}#&*!|>'"%@` + "`" + `]|: |\s#|:$|^\s|\s$`)

// YAMLScalar returns s as a YAML flow scalar: plain when that is safe, else
// single-quoted.
func YAMLScalar(s string) string {
	if s != "" && !yamlPlainUnsafe.MatchString(s) && !strings.ContainsAny(s, "\n\t") {
		switch strings.ToLower(s) {
		case "true", "false", "yes", "no", "null", "on", "off", "~":
		default:
			return s
		}
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// makeVarRef matches a make variable reference such as $(NPM) or ${GO}.
var makeVarRef = regexp.MustCompile(`^\$[({][A-Za-z_][A-Za-z0-9_]*[)}]`)

// MakeEscape doubles the $ of shell expansions so that make passes them to
// the shell, keeping make variable references such as $(NPM) as they are.
func MakeEscape(shell string) string {
	var b strings.Builder
	for i := 0; i < len(shell); i++ {
		c := shell[i]
		if c != '$' {
			b.WriteByte(c)
			continue
		}
		if m := makeVarRef.FindString(shell[i:]); m != "" {
			b.WriteString(m)
			i += len(m) - 1
			continue
		}
		if i+1 < len(shell) && shell[i+1] == '$' {
			b.WriteString("$$")
			i++
			continue
		}
		b.WriteString("$$")
	}
	return b.String()
}

// ReplaceLines replaces lines [line, endLine] with repl.
func ReplaceLines(content []byte, line, endLine int, repl []string) ([]byte, error) {
	ls := lines(content)
	if line < 1 || endLine < line || endLine > len(ls) {
		return nil, fmt.Errorf("%w: lines %d-%d out of range", ErrShape, line, endLine)
	}
	out := append(append(append([]string{}, ls[:line-1]...), repl...), ls[endLine:]...)
	return join(out), nil
}

// InsertLines inserts new lines before line (1-based); line = len+1 appends.
func InsertLines(content []byte, line int, add []string) ([]byte, error) {
	ls := lines(content)
	if line < 1 || line > len(ls)+1 {
		return nil, fmt.Errorf("%w: line %d out of range", ErrShape, line)
	}
	at := line - 1
	out := append(append(append([]string{}, ls[:at]...), add...), ls[at:]...)
	return join(out), nil
}

// wordAt finds word as a whole shell word in line, starting the search at
// from; it returns the byte index or -1.
func wordAt(line, word string, from int) int {
	for i := from; i <= len(line)-len(word); {
		j := strings.Index(line[i:], word)
		if j < 0 {
			return -1
		}
		k := i + j
		before := k == 0 || strings.ContainsRune(" \t;|&(", rune(line[k-1]))
		end := k + len(word)
		afterOK := end == len(line) || strings.ContainsRune(" \t;|&)\\", rune(line[end]))
		if before && afterOK {
			return k
		}
		i = k + 1
	}
	return -1
}

// AddArgs inserts args after the first whole-word occurrence of after in
// lines [line, endLine] of content (for example after "ci" in "$(NPM) ci").
// An argument already present in those lines is not added again.
func AddArgs(content []byte, line, endLine int, after string, args []string) ([]byte, error) {
	ls := lines(content)
	if line < 1 || endLine < line || endLine > len(ls) {
		return nil, fmt.Errorf("%w: lines %d-%d out of range", ErrShape, line, endLine)
	}
	missing := missingArgs(ls[line-1:endLine], args)
	if len(missing) == 0 {
		return nil, fmt.Errorf("%w: arguments already present", ErrShape)
	}
	for i := line - 1; i < endLine; i++ {
		if k := wordAt(ls[i], after, 0); k >= 0 {
			end := k + len(after)
			ls[i] = ls[i][:end] + " " + strings.Join(missing, " ") + ls[i][end:]
			return join(ls), nil
		}
	}
	return nil, fmt.Errorf("%w: %q not found on lines %d-%d", ErrShape, after, line, endLine)
}

// missingArgs returns the arguments whose flag is not already on the lines:
// a flag is present when its name appears as a whole word (or name=...); the
// values that follow a present flag are dropped with it.
func missingArgs(span []string, args []string) []string {
	var out []string
	skip := false
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			if !skip {
				out = append(out, a)
			}
			continue
		}
		name := strings.SplitN(a, "=", 2)[0]
		skip = false
		for _, l := range span {
			if wordAt(l, name, 0) >= 0 || strings.Contains(l, name+"=") {
				skip = true
				break
			}
		}
		if name == "-o" || name == "--" {
			// generic flags: compare the whole argument list instead.
			skip = strings.Contains(strings.Join(span, " "), strings.Join(args, " "))
		}
		if !skip {
			out = append(out, a)
		}
	}
	return out
}

// ReplaceWord replaces the first whole-word occurrence of old with repl in
// lines [line, endLine].
func ReplaceWord(content []byte, line, endLine int, old, repl string) ([]byte, error) {
	ls := lines(content)
	if line < 1 || endLine < line || endLine > len(ls) {
		return nil, fmt.Errorf("%w: lines %d-%d out of range", ErrShape, line, endLine)
	}
	for i := line - 1; i < endLine; i++ {
		if k := wordAt(ls[i], old, 0); k >= 0 {
			ls[i] = ls[i][:k] + repl + ls[i][k+len(old):]
			return join(ls), nil
		}
	}
	return nil, fmt.Errorf("%w: %q not found on lines %d-%d", ErrShape, old, line, endLine)
}

// PrefixCommand writes prefix (such as an environment assignment) before
// the first whole-word occurrence of program in lines [line, endLine].
func PrefixCommand(content []byte, line, endLine int, program, prefix string) ([]byte, error) {
	ls := lines(content)
	if line < 1 || endLine < line || endLine > len(ls) {
		return nil, fmt.Errorf("%w: lines %d-%d out of range", ErrShape, line, endLine)
	}
	name := strings.SplitN(prefix, "=", 2)[0]
	if strings.Contains(strings.Join(ls[line-1:endLine], "\n"), name+"=") {
		return nil, fmt.Errorf("%w: %s is already set", ErrShape, name)
	}
	for i := line - 1; i < endLine; i++ {
		if k := wordAt(ls[i], program, 0); k >= 0 {
			ls[i] = ls[i][:k] + prefix + " " + ls[i][k:]
			return join(ls), nil
		}
	}
	return nil, fmt.Errorf("%w: %q not found on lines %d-%d", ErrShape, program, line, endLine)
}

package impact

import "strings"

// instruction is one logical Dockerfile instruction.
type instruction struct {
	line int
	cmd  string // upper-case keyword
	args string
}

// instructions splits a Dockerfile into logical instructions: continuation
// lines are joined (the escape character comes from a `# escape=` directive,
// default backslash), comments are dropped and heredoc bodies skipped.
func instructions(content []byte) []instruction {
	lines := strings.Split(string(content), "\n")
	escape := "\\"
	if len(lines) > 0 {
		d := strings.ReplaceAll(strings.ToLower(lines[0]), " ", "")
		if v, ok := strings.CutPrefix(d, "#escape="); ok && v != "" {
			escape = v[:1]
		}
	}
	var out []instruction
	for i := 0; i < len(lines); i++ {
		text := strings.TrimSpace(strings.TrimSuffix(lines[i], "\r"))
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		start := i
		for strings.HasSuffix(text, escape) && i+1 < len(lines) {
			i++
			next := strings.TrimSpace(strings.TrimSuffix(lines[i], "\r"))
			if strings.HasPrefix(next, "#") {
				next = escape
			}
			text = strings.TrimSuffix(text, escape) + " " + next
		}
		text = strings.TrimSpace(strings.TrimSuffix(text, escape))
		kw, args, _ := strings.Cut(text, " ")
		in := instruction{line: start + 1, cmd: strings.ToUpper(kw), args: strings.TrimSpace(args)}
		if marker := heredoc(in.args); marker != "" {
			for i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != marker {
				i++
			}
			i++
		}
		out = append(out, in)
	}
	return out
}

// heredoc returns the terminator of a `<<EOF` heredoc in args, or "".
func heredoc(args string) string {
	i := strings.Index(args, "<<")
	if i < 0 {
		return ""
	}
	f := strings.Fields(strings.TrimLeft(args[i+2:], "-~"))
	if len(f) == 0 {
		return ""
	}
	return strings.Trim(f[0], `"'`)
}

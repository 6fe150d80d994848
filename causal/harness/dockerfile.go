package harness

import "strings"

// DockerInstruction is one logical instruction of a Dockerfile.
type DockerInstruction struct {
	Line int    // 1-based line of the keyword
	Cmd  string // the keyword, upper case
	Args string // the rest, continuation lines joined with spaces
	// EndLine is the instruction's last line: its last continuation line,
	// or the terminator of its heredoc.
	EndLine int
}

// DockerInstructions splits a Dockerfile into logical instructions:
// continuation lines are joined (the escape character comes from a
// `# escape=` parser directive, default backslash), comments are dropped,
// also inside a continued instruction, and heredoc bodies are skipped.
func DockerInstructions(content []byte) []DockerInstruction {
	lines := strings.Split(string(content), "\n")
	escape := "\\"
	if len(lines) > 0 {
		d := strings.ReplaceAll(strings.ToLower(lines[0]), " ", "")
		if v, ok := strings.CutPrefix(d, "#escape="); ok && v != "" {
			escape = v[:1]
		}
	}
	var out []DockerInstruction
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
		in := DockerInstruction{Line: start + 1, Cmd: strings.ToUpper(kw), Args: strings.TrimSpace(args)}
		if marker := dockerHeredoc(in.Args); marker != "" {
			for i+1 < len(lines) && strings.TrimSpace(strings.TrimSuffix(lines[i+1], "\r")) != marker {
				i++
			}
			i++
		}
		in.EndLine = min(i+1, len(lines))
		out = append(out, in)
	}
	return out
}

// dockerHeredoc returns the terminator of a `<<EOF` heredoc in args, or "".
func dockerHeredoc(args string) string {
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

package patch

import (
	"strings"
)

// dockerInstruction is one logical instruction of a Dockerfile.
type dockerInstruction struct {
	line int
	cmd  string // upper-case keyword
	args string
}

// dockerInstructions splits a Dockerfile into logical instructions, joining
// continuation lines (the escape character comes from a `# escape=` parser
// directive, default backslash) and skipping comments and heredoc bodies.
func dockerInstructions(content []byte) []dockerInstruction {
	lines := strings.Split(string(content), "\n")
	escape := "\\"
	if len(lines) > 0 {
		if d, ok := strings.CutPrefix(strings.ReplaceAll(strings.ToLower(lines[0]), " ", ""), "#escape="); ok && d != "" {
			escape = d[:1]
		}
	}
	var out []dockerInstruction
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
				next = escape // a comment inside a continued instruction is dropped
			}
			text = strings.TrimSuffix(text, escape) + " " + next
		}
		text = strings.TrimSuffix(text, escape)
		kw, args, _ := strings.Cut(text, " ")
		ins := dockerInstruction{line: start + 1, cmd: strings.ToUpper(kw), args: strings.TrimSpace(args)}
		if marker, ok := heredocMarker(ins.args); ok {
			for i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != marker {
				i++
			}
			i++
		}
		out = append(out, ins)
	}
	return out
}

// heredocMarker returns the terminator of a `<<EOF` heredoc in args.
func heredocMarker(args string) (string, bool) {
	i := strings.Index(args, "<<")
	if i < 0 {
		return "", false
	}
	f := strings.Fields(strings.TrimLeft(args[i+2:], "-~"))
	if len(f) == 0 {
		return "", false
	}
	m := strings.Trim(f[0], `"'`)
	return m, m != ""
}

// checkDockerfile validates a Dockerfile: the patched file keeps its stages
// (same number of FROM lines and the same stage names) and every RUN in shell
// form is checked like any other shell.
func checkDockerfile(p string, old, new []byte) ([]fragment, []fragment, error) {
	oi, ni := dockerInstructions(old), dockerInstructions(new)
	if old != nil && stageSignature(oi) != stageSignature(ni) {
		return nil, nil, &ValidationError{Path: p, Rule: RuleStructure, Msg: "the patch changes the Dockerfile's build stages"}
	}
	return runFragments(oi), runFragments(ni), nil
}

// stageSignature lists the stage names in order (unnamed stages as "-").
func stageSignature(ins []dockerInstruction) string {
	var names []string
	for _, in := range ins {
		if in.cmd != "FROM" {
			continue
		}
		f := strings.Fields(in.args)
		name := "-"
		for j := 0; j+1 < len(f); j++ {
			if strings.EqualFold(f[j], "as") {
				name = strings.ToLower(f[j+1])
			}
		}
		names = append(names, name)
	}
	return strings.Join(names, ",")
}

// runFragments returns the shell-form RUN instructions, flags stripped.
func runFragments(ins []dockerInstruction) []fragment {
	var out []fragment
	for _, in := range ins {
		if in.cmd != "RUN" {
			continue
		}
		args := in.args
		for strings.HasPrefix(args, "--") {
			_, rest, _ := strings.Cut(args, " ")
			args = strings.TrimSpace(rest)
		}
		if strings.HasPrefix(args, "[") || strings.Contains(args, "<<") {
			continue
		}
		out = append(out, fragment{where: "RUN", line: in.line, text: args})
	}
	return out
}

// scriptFragments returns a whole shell script as one fragment.
func scriptFragments(content []byte) []fragment {
	if content == nil {
		return nil
	}
	return []fragment{{where: "script", line: 1, text: string(content)}}
}

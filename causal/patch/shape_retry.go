package patch

import (
	"fmt"
	"strconv"
	"strings"
)

// Retry is a bounded retry with linear backoff: Attempts tries, sleeping
// attempt*Delay seconds between them.
type Retry struct {
	Attempts int
	Delay    int
	// What names the retried operation in the message printed between tries.
	What string
	// Cleanup is a command, written in the host's syntax, run after a
	// failed attempt before the next one ("kind delete cluster --name x");
	// empty for none. It must be one line without a comment.
	Cleanup string
}

func (r Retry) normalized() Retry {
	if r.Attempts < 2 || r.Attempts > 10 {
		r.Attempts = 5
	}
	if r.Delay < 1 || r.Delay > 120 {
		r.Delay = 10
	}
	r.What = safeLabel(r.What)
	if r.What == "" {
		r.What = "command"
	}
	return r
}

// safeLabel keeps a label printable inside double quotes in shell, YAML and
// make: no quotes, expansions or template braces.
func safeLabel(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\"'`$\\{}#%;&|<>", r) || r < ' ' {
			continue
		}
		b.WriteRune(r)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func (r Retry) items() string {
	parts := make([]string, r.Attempts)
	for i := range parts {
		parts[i] = strconv.Itoa(i + 1)
	}
	return strings.Join(parts, " ")
}

// WrapRetry wraps the statement on lines [s.Line, s.EndLine] in a bounded
// retry loop written in the host's syntax. A Taskfile entry that is a single
// command becomes a block; a statement inside a block, script or run: script
// is wrapped in place; a recipe line becomes one loop on its own line.
func WrapRetry(s Site, r Retry) ([]byte, error) {
	ls, err := s.check()
	if err != nil {
		return nil, err
	}
	r = r.normalized()
	if strings.ContainsAny(r.Cleanup, "\n\r#") {
		return nil, fmt.Errorf("%w: the clean-up command must be one line without a comment", ErrShape)
	}
	stmt := ls[s.Line-1 : s.EndLine]
	if strings.Contains(stmt[len(stmt)-1], " #") {
		return nil, fmt.Errorf("%w: statement on line %d ends in a comment", ErrShape, s.EndLine)
	}
	var repl []string
	switch {
	case s.Host == HostDockerfile:
		return nil, fmt.Errorf("%w: a retry loop inside a Dockerfile RUN instruction is not written", ErrShape)
	case s.Host == HostTaskfile && strings.HasPrefix(strings.TrimSpace(stmt[0]), "- "):
		repl, err = retryTaskEntry(stmt, r)
	case s.Host == HostMakefile:
		repl, err = retryRecipe(stmt, r)
	case s.Host == HostRun && s.RunKeyLine == s.Line:
		repl, err = retryInlineRun(stmt, r)
	default:
		repl = retryInPlace(stmt, r)
	}
	if err != nil {
		return nil, err
	}
	return ReplaceLines(s.Content, s.Line, s.EndLine, repl)
}

// retryBody returns the loop for a command that may exit its shell.
func retryBody(cmd []string, ind string, r Retry) []string {
	out := []string{ind + "for attempt in " + r.items() + "; do"}
	for i, c := range cmd {
		line := ind + "  " + strings.TrimRight(c, " ")
		if i > 0 {
			line = ind + "  " + strings.TrimLeft(c, " \t")
			if strings.HasPrefix(strings.TrimLeft(c, " \t"), "|") || strings.HasPrefix(strings.TrimLeft(c, " \t"), "--") || strings.HasPrefix(strings.TrimLeft(c, " \t"), "-") {
				line = ind + "    " + strings.TrimLeft(c, " \t")
			}
		}
		if i == len(cmd)-1 {
			line += " && exit 0"
		}
		out = append(out, line)
	}
	if r.Cleanup != "" {
		out = append(out, ind+"  "+r.Cleanup+" || true")
	}
	out = append(out,
		ind+"  "+fmt.Sprintf(`echo "%s failed (attempt ${attempt}/%d), retrying in $((attempt * %d))s"`, r.What, r.Attempts, r.Delay),
		ind+"  "+fmt.Sprintf("sleep $((attempt * %d))", r.Delay),
		ind+"done",
		ind+"exit 1")
	return out
}

// retryTaskEntry turns `- cmd` into a block entry holding a retry loop.
func retryTaskEntry(stmt []string, r Retry) ([]string, error) {
	first := stmt[0]
	ind := indentOf(first)
	value := strings.TrimSpace(strings.TrimSpace(first)[2:])
	if len(stmt) > 1 || value == "" || strings.HasPrefix(value, "|") || strings.HasPrefix(value, ">") {
		return nil, fmt.Errorf("%w: task entry is not a single-line command", ErrShape)
	}
	cmd, ok := yamlUnquote(value)
	if !ok || strings.HasPrefix(cmd, "task:") || strings.Contains(cmd, ": ") && !strings.ContainsAny(value[:1], `'"`) {
		return nil, fmt.Errorf("%w: task entry %q is not a plain command", ErrShape, value)
	}
	out := []string{ind + "- |"}
	return append(out, retryBody([]string{cmd}, ind+"  ", r)...), nil
}

// retryInlineRun turns `run: cmd` into a block holding a retry loop.
func retryInlineRun(stmt []string, r Retry) ([]string, error) {
	line := stmt[0]
	i := strings.Index(line, "run:")
	if i < 0 || len(stmt) > 1 {
		return nil, fmt.Errorf("%w: no inline run: script", ErrShape)
	}
	value := strings.TrimSpace(line[i+4:])
	if value == "" || strings.ContainsAny(value[:1], `|>'"`) {
		return nil, fmt.Errorf("%w: run: is not a plain inline script", ErrShape)
	}
	keyIndent := indentOf(line)
	if strings.HasPrefix(strings.TrimSpace(line), "- ") {
		keyIndent += "  "
	}
	out := []string{line[:i] + "run: |"}
	return append(out, retryBody([]string{value}, keyIndent+"  ", r)...), nil
}

// retryInPlace wraps a statement inside a script with a loop that breaks on
// success and exits after the last attempt.
func retryInPlace(stmt []string, r Retry) []string {
	ind := indentOf(stmt[0])
	out := []string{ind + "for attempt in " + r.items() + "; do"}
	for i, c := range stmt {
		body := ind + "  " + strings.TrimPrefix(c, ind)
		if i == 0 {
			body = ind + "  if " + strings.TrimLeft(c, " \t")
		}
		if i == len(stmt)-1 {
			body = strings.TrimRight(body, " ") + "; then break; fi"
		}
		out = append(out, body)
	}
	out = append(out, ind+"  "+fmt.Sprintf(`if [ "${attempt}" -eq %d ]; then exit 1; fi`, r.Attempts))
	if r.Cleanup != "" {
		out = append(out, ind+"  "+r.Cleanup+" || true")
	}
	return append(out,
		ind+"  "+fmt.Sprintf(`echo "%s failed (attempt ${attempt}/%d), retrying in $((attempt * %d))s" >&2`, r.What, r.Attempts, r.Delay),
		ind+"  "+fmt.Sprintf("sleep $((attempt * %d))", r.Delay),
		ind+"done")
}

// retryRecipe wraps a recipe line in a loop on the same logical line.
func retryRecipe(stmt []string, r Retry) ([]string, error) {
	first := stmt[0]
	if !strings.HasPrefix(first, "\t") {
		return nil, fmt.Errorf("%w: recipe line does not start with a tab", ErrShape)
	}
	body := first[1:]
	prefix := ""
	for len(body) > 0 && strings.ContainsRune("@-+", rune(body[0])) {
		prefix += body[:1]
		body = body[1:]
	}
	head := fmt.Sprintf("\t%sfor attempt in %s; do ", prefix, r.items())
	cleanup := ""
	if r.Cleanup != "" {
		cleanup = " " + r.Cleanup + " || true;"
	}
	tail := fmt.Sprintf(` && exit 0;%s echo "%s failed (attempt $${attempt}/%d), retrying in $$((attempt * %d))s"; sleep $$((attempt * %d)); done; exit 1`,
		cleanup, r.What, r.Attempts, r.Delay, r.Delay)
	out := append([]string{}, stmt...)
	out[0] = head + strings.TrimLeft(body, " ")
	out[len(out)-1] = strings.TrimRight(out[len(out)-1], " ") + tail
	return out, nil
}

// yamlUnquote returns the value of a plain, single- or double-quoted YAML
// scalar written on one line.
func yamlUnquote(v string) (string, bool) {
	switch {
	case strings.HasPrefix(v, "'") && strings.HasSuffix(v, "'") && len(v) >= 2:
		return strings.ReplaceAll(v[1:len(v)-1], "''", "'"), true
	case strings.HasPrefix(v, `"`) && strings.HasSuffix(v, `"`) && len(v) >= 2:
		inner := v[1 : len(v)-1]
		if strings.Contains(inner, `\`) {
			return "", false
		}
		return inner, true
	case strings.HasPrefix(v, "'") || strings.HasPrefix(v, `"`):
		return "", false
	}
	return v, true
}

// WrapRetryInRun wraps one command of a Dockerfile RUN instruction (shell
// form) in a bounded retry loop run in a subshell, so that the commands
// chained after it with && still run once it succeeds:
// `RUN a && b && c` becomes `RUN a && (for attempt in 1 2 3; do b && exit
// 0; …; done; exit 1) && c`. cmd is the command's source text, which must
// appear once on its line, the command on one line of its own.
func WrapRetryInRun(s Site, line int, cmd string, r Retry) ([]byte, error) {
	ls, err := s.check()
	if err != nil {
		return nil, err
	}
	if s.Host != HostDockerfile || line < s.Line || line > s.EndLine {
		return nil, fmt.Errorf("%w: line %d is not in the RUN instruction", ErrShape, line)
	}
	r = r.normalized()
	cmd = strings.TrimSpace(cmd)
	text := ls[line-1]
	if cmd == "" || strings.Count(text, cmd) != 1 || strings.ContainsAny(cmd, "\n#") {
		return nil, fmt.Errorf("%w: the command is not written once on line %d", ErrShape, line)
	}
	if execForm(ls[s.Line-1]) {
		return nil, fmt.Errorf("%w: the RUN instruction is in exec form", ErrShape)
	}
	loop := fmt.Sprintf(`(for attempt in %s; do %s && exit 0; echo "%s failed (attempt ${attempt}/%d), retrying in $((attempt * %d))s"; sleep $((attempt * %d)); done; exit 1)`,
		r.items(), cmd, r.What, r.Attempts, r.Delay, r.Delay)
	out := append([]string{}, ls...)
	out[line-1] = strings.Replace(text, cmd, loop, 1)
	return join(out), nil
}

// execForm reports a RUN instruction written as a JSON array, after its
// flags (`RUN --mount=… ["cmd", "arg"]`).
func execForm(line string) bool {
	rest := strings.TrimSpace(line)
	if len(rest) < 3 || !strings.EqualFold(rest[:3], "RUN") {
		return false
	}
	rest = strings.TrimSpace(rest[3:])
	for strings.HasPrefix(rest, "--") {
		i := strings.IndexAny(rest, " \t")
		if i < 0 {
			return false
		}
		rest = strings.TrimSpace(rest[i:])
	}
	return strings.HasPrefix(rest, "[")
}

package harness

import (
	"encoding/json"
	"path"
	"strconv"
	"strings"
)

// Dockerfile is a Dockerfile read into its build stages.
type Dockerfile struct {
	Path   string
	Stages []*DockerStage
	// Args are the ARG defaults declared before the first FROM.
	Args map[string]string
	// lines are the file's lines, for the shell of RUN instructions.
	lines []string
}

// DockerStage is one build stage: a FROM instruction and what follows it.
type DockerStage struct {
	Index int
	// Name is the stage's AS name, lower case ("" when unnamed).
	Name    string
	Base    string
	Line    int
	EndLine int
	// Instructions are the stage's instructions after its FROM.
	Instructions []DockerInstruction
}

// ParseDockerfile reads a Dockerfile into stages. Instructions before the
// first FROM other than ARG are ignored, as the builder does.
func ParseDockerfile(p string, data []byte) (*Dockerfile, error) {
	if len(data) > MaxFileBytes {
		return nil, &LimitError{File: p, What: "size", Limit: MaxFileBytes, Found: len(data)}
	}
	df := &Dockerfile{Path: p, Args: map[string]string{}, lines: strings.Split(string(data), "\n")}
	var cur *DockerStage
	for _, in := range DockerInstructions(data) {
		switch {
		case in.Cmd == "FROM":
			cur = df.addStage(in)
		case cur == nil:
			if in.Cmd == "ARG" {
				name, value, _ := strings.Cut(in.Args, "=")
				df.Args[strings.TrimSpace(name)] = strings.Trim(strings.TrimSpace(value), `"'`)
			}
		default:
			cur.Instructions = append(cur.Instructions, in)
			cur.EndLine = in.EndLine
		}
	}
	return df, nil
}

func (df *Dockerfile) addStage(in DockerInstruction) *DockerStage {
	var words []string
	for _, f := range strings.Fields(in.Args) {
		if !strings.HasPrefix(f, "--") {
			words = append(words, f)
		}
	}
	st := &DockerStage{Index: len(df.Stages), Line: in.Line, EndLine: in.EndLine}
	if len(words) > 0 {
		st.Base = strings.ToLower(words[0])
	}
	if len(words) >= 3 && strings.EqualFold(words[1], "as") {
		st.Name = strings.ToLower(words[2])
	}
	df.Stages = append(df.Stages, st)
	return st
}

// Stage returns the stage a name or index refers to, nil when none does.
func (df *Dockerfile) Stage(ref string) *DockerStage {
	ref = strings.ToLower(strings.TrimSpace(ref))
	for _, s := range df.Stages {
		if s.Name != "" && s.Name == ref {
			return s
		}
	}
	if i, err := strconv.Atoi(ref); err == nil && i >= 0 && i < len(df.Stages) {
		return df.Stages[i]
	}
	return nil
}

// BuildOrder returns the stages a build of target ("" for the last stage)
// runs, each after the stages it copies from or is based on.
func (df *Dockerfile) BuildOrder(target string) []*DockerStage {
	if len(df.Stages) == 0 {
		return nil
	}
	last := df.Stages[len(df.Stages)-1]
	if t := df.Stage(target); t != nil {
		last = t
	}
	var out []*DockerStage
	seen := map[*DockerStage]bool{}
	var visit func(s *DockerStage)
	visit = func(s *DockerStage) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		if dep := df.Stage(s.Base); dep != nil && dep.Index < s.Index {
			visit(dep)
		}
		for _, in := range s.Instructions {
			for _, ref := range stageRefs(in) {
				if dep := df.Stage(ref); dep != nil && dep.Index < s.Index {
					visit(dep)
				}
			}
		}
		out = append(out, s)
	}
	visit(last)
	return out
}

// stageRefs returns the stages an instruction reads from: COPY --from=x and
// RUN --mount=...,from=x.
func stageRefs(in DockerInstruction) []string {
	var out []string
	for _, f := range strings.Fields(in.Args) {
		if !strings.HasPrefix(f, "--") {
			break
		}
		if v, ok := strings.CutPrefix(f, "--from="); ok {
			out = append(out, v)
		}
		if v, ok := strings.CutPrefix(f, "--mount="); ok {
			for _, kv := range strings.Split(v, ",") {
				if ref, ok := strings.CutPrefix(kv, "from="); ok {
					out = append(out, ref)
				}
			}
		}
	}
	return out
}

// instructionFlags splits an instruction's leading --flags from the rest.
func instructionFlags(args string) (flags []string, rest string) {
	rest = strings.TrimSpace(args)
	for strings.HasPrefix(rest, "--") {
		f, r, _ := strings.Cut(rest, " ")
		flags = append(flags, f)
		rest = strings.TrimSpace(r)
	}
	return flags, rest
}

// RunScript returns the shell a RUN instruction runs and the file line its
// first line is on: the instruction's own lines with the keyword and flags
// blanked (so that every command keeps its line), or a heredoc's body. ok is
// false for the exec form and for what is not shell.
func (df *Dockerfile) RunScript(in DockerInstruction) (src string, line int, ok bool) {
	if in.Cmd != "RUN" || in.Line < 1 || in.EndLine > len(df.lines) || in.EndLine < in.Line {
		return "", 0, false
	}
	_, rest := instructionFlags(in.Args)
	if strings.HasPrefix(rest, "[") {
		return execForm(rest), in.Line, execForm(rest) != ""
	}
	if marker := dockerHeredoc(rest); marker != "" {
		if in.EndLine-1 <= in.Line {
			return "", 0, false
		}
		body := df.lines[in.Line : in.EndLine-1]
		return strings.Join(body, "\n"), in.Line + 1, true
	}
	raw := df.lines[in.Line-1 : in.EndLine]
	out := make([]string, len(raw))
	for i, l := range raw {
		l = strings.TrimSuffix(l, "\r")
		switch {
		case i == 0:
			out[i] = blankKeyword(l)
		case strings.HasPrefix(strings.TrimSpace(l), "#"):
			// a comment inside a continued instruction is dropped by the
			// builder; a lone backslash keeps the continuation for bash.
			out[i] = "\\"
		default:
			out[i] = l
		}
	}
	return strings.Join(out, "\n"), in.Line, true
}

// blankKeyword replaces the RUN keyword and its --flags on the first line of
// an instruction by spaces.
func blankKeyword(l string) string {
	i := min(len(l), len(l)-len(strings.TrimLeft(l, " \t"))+len("RUN"))
	for {
		j := i
		for j < len(l) && (l[j] == ' ' || l[j] == '\t') {
			j++
		}
		if !strings.HasPrefix(l[j:], "--") {
			return strings.Repeat(" ", j) + l[j:]
		}
		k := strings.IndexAny(l[j:], " \t")
		if k < 0 {
			return strings.Repeat(" ", len(l))
		}
		i = j + k
	}
}

// execForm renders a JSON exec-form array as a shell command line.
func execForm(s string) string {
	var words []string
	if json.Unmarshal([]byte(s), &words) != nil || len(words) == 0 {
		return ""
	}
	for i, w := range words {
		words[i] = shellQuote(w)
	}
	return strings.Join(words, " ")
}

// shellQuote quotes a word for the shell when it needs it.
func shellQuote(w string) string {
	if w != "" && !strings.ContainsAny(w, " \t\n'\"\\$`;&|<>()*?[]{}~#") {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// ShellIsPOSIX reports whether a stage's SHELL instruction (if any) before
// the instruction at line keeps a POSIX shell.
func (s *DockerStage) ShellIsPOSIX(line int) bool {
	ok := true
	for _, in := range s.Instructions {
		if in.Line >= line {
			break
		}
		if in.Cmd == "SHELL" {
			var words []string
			if json.Unmarshal([]byte(in.Args), &words) == nil && len(words) > 0 {
				ok = posixShell(path.Base(words[0]))
			}
		}
	}
	return ok
}

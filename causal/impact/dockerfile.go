package impact

import (
	"encoding/json"
	"path"
	"strconv"
	"strings"

	"github.com/polylane/polylane/causal/harness"
)

// dockerfile is the part of a Dockerfile that decides which build-context
// paths reach the image: its stages and, per stage, the COPY/ADD and RUN
// instructions.
type dockerfile struct {
	path   string
	stages []*stage
	// args holds ARG defaults declared before the first FROM.
	args map[string]string
}

// stage is one FROM block.
type stage struct {
	index int
	name  string // lower-case AS name, "" when unnamed
	base  string // the FROM image or stage reference
	line  int
	// parent is set when base names an earlier stage.
	parent *stage
	copies []copyInstr
	runs   []runInstr
	// entry holds the CMD and ENTRYPOINT the container starts with.
	entry []runInstr
}

// copyInstr is a COPY or ADD.
type copyInstr struct {
	line int
	op   string // COPY or ADD
	// from is the --from value: a stage name or index, or an image; "" for
	// the build context.
	from string
	srcs []string
	dest string
	text string
}

// runInstr is a RUN, with the build-context or stage bind mounts it uses.
type runInstr struct {
	line   int
	script string
	// contextMounts are the context paths bind-mounted into the RUN.
	contextMounts []string
	// stageMounts are the stages bind-mounted into the RUN.
	stageMounts []string
}

// maxDockerfile bounds the Dockerfile size read.
const maxDockerfile = 1 << 20

// parseDockerfile reads a Dockerfile into stages. It never fails: what it
// cannot read it skips.
func parseDockerfile(p string, content []byte) *dockerfile {
	df := &dockerfile{path: p, args: map[string]string{}}
	if len(content) > maxDockerfile {
		content = content[:maxDockerfile]
	}
	var cur *stage
	for _, in := range harness.DockerInstructions(content) {
		switch in.Cmd {
		case "ARG":
			if cur == nil {
				name, value, _ := strings.Cut(in.Args, "=")
				df.args[strings.TrimSpace(name)] = strings.Trim(strings.TrimSpace(value), `"'`)
			}
		case "FROM":
			cur = df.addStage(in)
		case "COPY", "ADD":
			if cur != nil {
				cur.copies = append(cur.copies, parseCopy(in))
			}
		case "RUN":
			if cur != nil {
				cur.runs = append(cur.runs, parseRun(in))
			}
		case "CMD", "ENTRYPOINT":
			if cur != nil {
				cur.entry = append(cur.entry, parseRun(in))
			}
		}
	}
	return df
}

// addStage starts a stage from a FROM instruction.
func (df *dockerfile) addStage(in harness.DockerInstruction) *stage {
	fields := strings.Fields(in.Args)
	var words []string
	for _, f := range fields {
		if !strings.HasPrefix(f, "--") {
			words = append(words, f)
		}
	}
	st := &stage{index: len(df.stages), line: in.Line}
	if len(words) > 0 {
		st.base = df.expand(words[0])
	}
	if len(words) >= 3 && strings.EqualFold(words[1], "as") {
		st.name = strings.ToLower(words[2])
	}
	st.parent = df.stageByRef(st.base, st.index)
	df.stages = append(df.stages, st)
	return st
}

// expand substitutes ${NAME} and $NAME from the global ARG defaults.
func (df *dockerfile) expand(s string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	for name, v := range df.args {
		s = strings.ReplaceAll(s, "${"+name+"}", v)
		s = strings.ReplaceAll(s, "$"+name, v)
	}
	return s
}

// stageByRef returns the earlier stage a reference names (by AS name or by
// index), or nil for an external image.
func (df *dockerfile) stageByRef(ref string, before int) *stage {
	ref = strings.ToLower(ref)
	if ref == "" {
		return nil
	}
	for _, s := range df.stages[:min(before, len(df.stages))] {
		if s.name != "" && s.name == ref {
			return s
		}
	}
	if n, err := strconv.Atoi(ref); err == nil && n >= 0 && n < min(before, len(df.stages)) {
		return df.stages[n]
	}
	return nil
}

// parseCopy reads COPY/ADD flags, sources and destination (shell or JSON form).
func parseCopy(in harness.DockerInstruction) copyInstr {
	c := copyInstr{line: in.Line, op: in.Cmd, text: in.Cmd + " " + in.Args}
	args := in.Args
	for strings.HasPrefix(args, "--") {
		flag, rest, _ := strings.Cut(args, " ")
		if v, ok := strings.CutPrefix(flag, "--from="); ok {
			c.from = strings.ToLower(v)
		}
		args = strings.TrimSpace(rest)
	}
	var words []string
	if strings.HasPrefix(args, "[") {
		_ = json.Unmarshal([]byte(args), &words) // unreadable JSON leaves no sources
	} else if !strings.Contains(args, "<<") {
		words = strings.Fields(args)
	}
	if len(words) >= 2 {
		c.srcs, c.dest = words[:len(words)-1], words[len(words)-1]
	}
	return c
}

// parseRun reads a RUN's bind mounts and its script.
func parseRun(in harness.DockerInstruction) runInstr {
	r := runInstr{line: in.Line}
	args := in.Args
	for strings.HasPrefix(args, "--") {
		flag, rest, _ := strings.Cut(args, " ")
		if v, ok := strings.CutPrefix(flag, "--mount="); ok {
			r.addMount(v)
		}
		args = strings.TrimSpace(rest)
	}
	if strings.HasPrefix(args, "[") {
		var words []string
		if json.Unmarshal([]byte(args), &words) == nil {
			args = strings.Join(words, " ")
		}
	}
	r.script = args
	return r
}

// addMount records a bind mount: from the build context unless from= names a
// stage or image.
func (r *runInstr) addMount(spec string) {
	kv := map[string]string{}
	for _, part := range strings.Split(spec, ",") {
		k, v, _ := strings.Cut(part, "=")
		kv[strings.ToLower(k)] = v
	}
	typ := kv["type"]
	if typ == "" {
		typ = "bind"
	}
	if typ != "bind" {
		return
	}
	if from := kv["from"]; from != "" {
		r.stageMounts = append(r.stageMounts, strings.ToLower(from))
		return
	}
	src := kv["source"]
	if src == "" {
		src = kv["src"]
	}
	if src == "" {
		src = "."
	}
	r.contextMounts = append(r.contextMounts, src)
}

// final returns the stage the image is built from: target when named, else
// the last stage.
func (df *dockerfile) final(target string) *stage {
	if target != "" {
		if s := df.stageByRef(target, len(df.stages)); s != nil {
			return s
		}
	}
	if len(df.stages) == 0 {
		return nil
	}
	return df.stages[len(df.stages)-1]
}

// feeding returns the stages the final stage is built from: itself, its FROM
// parents, and every stage reached through COPY --from or RUN
// --mount=from=, transitively, in stage order.
func (df *dockerfile) feeding(final *stage) []*stage {
	if final == nil {
		return nil
	}
	seen := map[*stage]bool{}
	queue := []*stage{final}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if s == nil || seen[s] {
			continue
		}
		seen[s] = true
		queue = append(queue, s.parent)
		for _, c := range s.copies {
			if c.from != "" {
				queue = append(queue, df.stageByRef(c.from, s.index))
			}
		}
		for _, r := range s.runs {
			for _, m := range r.stageMounts {
				queue = append(queue, df.stageByRef(m, s.index))
			}
		}
	}
	var out []*stage
	for _, s := range df.stages {
		if seen[s] {
			out = append(out, s)
		}
	}
	return out
}

// label names a stage for prose: its AS name or "stage N".
func (s *stage) label() string {
	if s.name != "" {
		return s.name
	}
	return "stage " + strconv.Itoa(s.index)
}

// cleanSource normalises a COPY source relative to the build context.
func cleanSource(src string) string {
	src = strings.TrimPrefix(path.Clean("/"+src), "/")
	if src == "" {
		return "."
	}
	return src
}

package impact

import (
	"fmt"
	"path"
	"strings"

	"github.com/polylane/polylane/causal/harness"
)

// dockerBuild is one image build: a Dockerfile, the context it is built
// with, the .dockerignore that shapes the context and the target stage.
type dockerBuild struct {
	df      *dockerfile
	context string
	ignore  *dockerignore
	target  string
	repo    *harness.Repo
}

// landing is a place a context path is copied to.
type landing struct {
	stage *stage
	line  int
	text  string
	// broad is set when the source is the whole context (COPY . .), so the
	// file was not picked on purpose.
	broad bool
}

// reach says whether the change reaches the image and why.
func (b *dockerBuild) reach(c Change) (bool, string) {
	switch {
	case c.Path == b.df.path:
		return true, fmt.Sprintf("%s is the Dockerfile the image is built from", c.Path)
	case b.ignore != nil && c.Path == b.ignore.file:
		return true, fmt.Sprintf("%s decides what enters the build context", c.Path)
	}
	rel, ok := within(b.context, c.Path)
	if !ok {
		return false, fmt.Sprintf("%s is outside the build context %s", c.Path, b.context)
	}
	if out, why := b.ignore.ignored(rel); out {
		return false, fmt.Sprintf("%s is left out of the build context by %s (%q)", c.Path, b.ignore.file, why)
	}
	final := b.df.final(b.target)
	feeding := b.df.feeding(final)
	lands := b.landings(feeding, rel)
	if len(lands) == 0 {
		return false, fmt.Sprintf("%s is not copied into the image: %s", c.Path, b.describe(final, feeding))
	}
	inFinal := -1 // a landing in the final stage, a deliberate one if any
	for i, l := range lands {
		if l.stage == final && (inFinal < 0 || (lands[inFinal].broad && !l.broad)) {
			inFinal = i
		}
	}
	if inFinal >= 0 && (!harnessFile(c.Path) || !lands[inFinal].broad) {
		l := lands[inFinal]
		return true, fmt.Sprintf("%s is copied into the final stage by %s (%s:%d)", c.Path, clip(l.text, 60), b.df.path, l.line)
	}
	first := lands[0]
	for _, l := range lands {
		if strings.HasPrefix(l.text, "RUN --mount") {
			return true, fmt.Sprintf("%s is bind-mounted into a RUN of build stage %s (%s:%d)", c.Path, l.stage.label(), b.df.path, l.line)
		}
	}
	if !harnessFile(c.Path) {
		return true, fmt.Sprintf("%s is copied into build stage %s by %s (%s:%d), whose output the final image takes",
			c.Path, first.stage.label(), clip(first.text, 60), b.df.path, first.line)
	}
	if run := b.runUsing(feeding, c); run != nil {
		return true, fmt.Sprintf("%s is executed during the image build by RUN %s (%s:%d)", c.Path, clip(run.script, 60), b.df.path, run.line)
	}
	if inFinal >= 0 {
		l := lands[inFinal]
		if run := b.entryUsing(final, c); run != nil {
			return true, fmt.Sprintf("%s ships in the final image (%s:%d) and the container runs it: %s (%s:%d)",
				c.Path, b.df.path, l.line, clip(run.script, 60), b.df.path, run.line)
		}
		return false, fmt.Sprintf("%s is copied into the final image by %s (%s:%d), but nothing in the image runs the changed lines (no RUN, CMD or ENTRYPOINT uses them)",
			c.Path, clip(l.text, 60), b.df.path, l.line)
	}
	return false, fmt.Sprintf("%s is copied into build stage %s by %s (%s:%d), but no RUN in the stages the final image is built from executes the changed lines",
		c.Path, first.stage.label(), clip(first.text, 60), b.df.path, first.line)
}

// landings lists where rel is copied or bind-mounted in the feeding stages.
func (b *dockerBuild) landings(feeding []*stage, rel string) []landing {
	var out []landing
	for _, s := range feeding {
		for _, c := range s.copies {
			if c.from != "" {
				continue
			}
			for _, src := range c.srcs {
				if src = b.df.expand(src); !remoteSource(src) && sourceMatches(src, rel) {
					clean := cleanSource(src)
					broad := clean == "." || clean == "*" || strings.Contains(src, "$")
					out = append(out, landing{stage: s, line: c.line, text: c.text, broad: broad})
					break
				}
			}
		}
		for _, r := range s.runs {
			for _, m := range r.contextMounts {
				if sourceMatches(m, rel) {
					out = append(out, landing{stage: s, line: r.line, text: "RUN --mount=type=bind,source=" + m})
				}
			}
		}
	}
	return out
}

// remoteSource reports whether an ADD source is a URL or git reference.
func remoteSource(src string) bool {
	return strings.Contains(src, "://") || strings.HasPrefix(src, "git@")
}

// sourceMatches reports whether a COPY source (relative to the context)
// covers rel: the same path, a directory above it, or a wildcard match.
// Sources with unresolved variables match everything.
func sourceMatches(src, rel string) bool {
	if strings.Contains(src, "$") {
		return true
	}
	src = cleanSource(src)
	if src == "." || src == "*" {
		return true
	}
	sc, pc := strings.Split(src, "/"), strings.Split(rel, "/")
	if len(sc) > len(pc) {
		return false
	}
	for i, part := range sc {
		ok, err := path.Match(part, pc[i])
		if err != nil {
			ok = part == pc[i]
		}
		if !ok {
			return false
		}
	}
	return true
}

// runUsing returns the first RUN in the feeding stages whose execution,
// followed through make targets, tasks and scripts, reaches the changed lines
// of c.
func (b *dockerBuild) runUsing(feeding []*stage, c Change) *runInstr {
	if b.repo == nil {
		return nil
	}
	wf := &harness.Workflow{Path: b.df.path}
	job := &harness.Job{ID: "docker-build"}
	for _, s := range feeding {
		for i := range s.runs {
			r := &s.runs[i]
			step := &harness.Step{Name: "RUN", Run: r.script, RunLine: r.line, Line: r.line, EndLine: r.line,
				WorkingDirectory: b.context}
			if treeTouches(b.repo, b.repo.ResolveStep(wf, job, step), c) {
				return r
			}
		}
	}
	return nil
}

// entryUsing returns the CMD or ENTRYPOINT of the final stage (or of the
// stages it is based on) that runs the changed lines of c.
func (b *dockerBuild) entryUsing(final *stage, c Change) *runInstr {
	if b.repo == nil {
		return nil
	}
	wf := &harness.Workflow{Path: b.df.path}
	job := &harness.Job{ID: "container"}
	for s := final; s != nil; s = s.parent {
		for i := range s.entry {
			r := &s.entry[i]
			step := &harness.Step{Name: "CMD", Run: r.script, RunLine: r.line, Line: r.line, EndLine: r.line, WorkingDirectory: b.context}
			if treeTouches(b.repo, b.repo.ResolveStep(wf, job, step), c) {
				return r
			}
		}
		if len(s.entry) > 0 {
			return nil // the nearest CMD/ENTRYPOINT wins
		}
	}
	return nil
}

// describe says in a sentence what the final image is made of.
func (b *dockerBuild) describe(final *stage, feeding []*stage) string {
	var parts []string
	for _, s := range feeding {
		var ctx, stages []string
		for _, c := range s.copies {
			if c.from == "" {
				ctx = append(ctx, c.srcs...)
			} else {
				for _, src := range c.srcs {
					stages = append(stages, src+" from "+c.from)
				}
			}
		}
		who := "build stage " + s.label()
		if s == final {
			who = "the final stage"
		}
		switch {
		case len(ctx) > 0 && len(stages) > 0:
			parts = append(parts, fmt.Sprintf("%s copies %s from the context and %s", who, listClip(ctx, 6), listClip(stages, 3)))
		case len(ctx) > 0:
			parts = append(parts, fmt.Sprintf("%s copies %s", who, listClip(ctx, 6)))
		case len(stages) > 0:
			parts = append(parts, fmt.Sprintf("%s takes only %s", who, listClip(stages, 3)))
		}
	}
	if len(parts) == 0 {
		return "no stage the final image is built from copies anything from the build context"
	}
	return strings.Join(parts, "; ")
}

// treeTouches reports whether an execution tree runs the changed part of c:
// a script node for the file, or a task, target, recipe or command node of
// the file whose lines the change touches. Changed lines outside every task
// or target of a Taskfile or Makefile the tree uses (shared variables) count
// as touching it.
func treeTouches(repo *harness.Repo, tree *harness.Node, c Change) bool {
	used, hit := false, false
	tree.Walk(func(n *harness.Node) bool {
		if hit || n.File != c.Path {
			return !hit
		}
		used = true
		if n.Kind == harness.NodeScript || c.touches(n.Line, max(n.Line, n.EndLine)) {
			hit = true
		}
		return !hit
	})
	if hit || !used {
		return hit
	}
	return outsideBlocks(repo, c)
}

// outsideBlocks reports whether some changed line of a Taskfile or Makefile
// that holds a definition (not a blank or comment line) lies outside all of
// its tasks or targets: a shared variable the used tasks may read.
func outsideBlocks(repo *harness.Repo, c Change) bool {
	var blocks [][2]int
	lower := strings.ToLower(path.Base(c.Path))
	switch {
	case lower == "makefile" || lower == "gnumakefile" || strings.HasSuffix(lower, ".mk"):
		mf, err := repo.Makefile(c.Path)
		if err != nil || mf == nil {
			return true
		}
		for _, t := range mf.Targets {
			blocks = append(blocks, [2]int{t.Line, max(t.Line, t.EndLine)})
		}
	case strings.HasPrefix(lower, "taskfile"):
		tf, err := repo.Taskfile(c.Path)
		if err != nil || tf == nil {
			return true
		}
		for _, t := range tf.Tasks {
			blocks = append(blocks, [2]int{t.Line, max(t.Line, t.EndLine)})
		}
	default:
		return false
	}
	content, err := repo.ReadFile(c.Path)
	if err != nil {
		return true
	}
	lines := strings.Split(string(content), "\n")
	for _, l := range c.Lines {
		if l < 1 || l > len(lines) {
			continue
		}
		if text := strings.TrimSpace(lines[l-1]); text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		in := false
		for _, b := range blocks {
			if l >= b[0] && l <= b[1] {
				in = true
				break
			}
		}
		if !in {
			return true
		}
	}
	return false
}

// clip shortens s to n runes for prose.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// listClip joins up to n items with commas and says how many more there are.
func listClip(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}

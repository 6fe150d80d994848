package causal

import (
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/polylane/polylane/causal/harness"
	"github.com/polylane/polylane/causal/patch"
)

// An image build fails inside one of its Dockerfile's RUN instructions: the
// command that fetched, installed or compiled is there, not in the workflow
// step that ran `docker build`. BuildKit points at it ("Dockerfile:2" under
// the failed step's output); the classic builder names it ("Step 3/9 : RUN
// apt-get update …").

// dockerRun is the Dockerfile instruction a failed image build was running.
type dockerRun struct {
	File    string // repository path of the Dockerfile
	Line    int    // first line of the instruction
	EndLine int    // last line (after backslash continuations)
	Text    string // the instruction, continuations joined
}

var (
	buildkitPointer = regexp.MustCompile(`^\s*([\w./-]*(?:Dockerfile|Containerfile|dockerfile)[\w.-]*):(\d+)\s*$`)
	classicStep     = regexp.MustCompile(`^Step \d+/\d+ : (RUN .+)$`)
	buildkitFailed  = regexp.MustCompile(`did not complete successfully|returned a non-zero code`)
)

// maxDockerfileBytes bounds the Dockerfile read.
const maxDockerfileBytes = 1 << 20

// findDockerRun finds the RUN instruction a failed image build in the
// failing step was running, or nil when the step built no image or the log
// does not say.
func (x *explainer) findDockerRun() *dockerRun {
	name, line, classic := "", 0, ""
	failed := false
	for _, l := range x.log.Lines {
		t := strings.TrimSpace(l.Text)
		if buildkitFailed.MatchString(t) {
			failed = true
		}
		if m := buildkitPointer.FindStringSubmatch(t); m != nil {
			name, line = m[1], atoiBounded(m[2])
		}
		if m := classicStep.FindStringSubmatch(t); m != nil {
			classic = m[1]
		}
	}
	if !failed {
		return nil
	}
	for _, file := range x.dockerfileCandidates(name) {
		data, err := x.repo.ReadFile(file)
		if err != nil || len(data) > maxDockerfileBytes {
			continue
		}
		lines := strings.Split(string(data), "\n")
		if r := runAt(file, lines, line); r != nil {
			return r
		}
		if r := runMatching(file, lines, classic); r != nil {
			return r
		}
	}
	return nil
}

func atoiBounded(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 || n > 1<<20 {
		return 0
	}
	return n
}

// dockerfileCandidates lists the repository paths the build's Dockerfile
// may have: the -f/--file of the build command or the file: input of the
// build action, the pointer's name under the build context, and the
// pointer's name at the root.
func (x *explainer) dockerfileCandidates(name string) []string {
	var out []string
	add := func(p string) {
		if p == "" || strings.Contains(p, "$") {
			return
		}
		p = path.Clean(strings.TrimPrefix(p, "./"))
		for _, q := range out {
			if q == p {
				return
			}
		}
		out = append(out, p)
	}
	context := "."
	if n := x.em.Node; n != nil {
		args := n.EffectiveArgs()
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case (a == "-f" || a == "--file") && i+1 < len(args):
				add(path.Join(n.Dir, args[i+1]))
				i++
			case strings.HasPrefix(a, "--file="):
				add(path.Join(n.Dir, strings.TrimPrefix(a, "--file=")))
			case !strings.HasPrefix(a, "-") && i == len(args)-1 && i > 1:
				context = path.Join(n.Dir, a)
			}
		}
	}
	if s := x.step; s != nil && s.Uses != "" {
		if v, ok := s.With["file"]; ok {
			add(v.Text)
		}
		if v, ok := s.With["context"]; ok && v.Text != "" {
			context = v.Text
		}
	}
	if name != "" {
		add(path.Join(context, path.Base(name)))
		add(name)
	}
	add(path.Join(context, "Dockerfile"))
	return out
}

// runAt returns the RUN instruction starting at 1-based line n.
func runAt(file string, lines []string, n int) *dockerRun {
	if n <= 0 || n > len(lines) {
		return nil
	}
	first := strings.TrimSpace(lines[n-1])
	if len(first) < 4 || !strings.EqualFold(first[:4], "RUN ") {
		return nil
	}
	end := n
	for end < len(lines) && strings.HasSuffix(strings.TrimRight(lines[end-1], " \t\r"), "\\") {
		end++
	}
	parts := make([]string, 0, end-n+1)
	for _, l := range lines[n-1 : end] {
		parts = append(parts, strings.TrimSuffix(strings.TrimSpace(l), "\\"))
	}
	return &dockerRun{File: file, Line: n, EndLine: end, Text: strings.Join(strings.Fields(strings.Join(parts, " ")), " ")}
}

// runMatching returns the RUN instruction whose text is the classic
// builder's step text.
func runMatching(file string, lines []string, step string) *dockerRun {
	if step == "" {
		return nil
	}
	want := strings.Join(strings.Fields(step), " ")
	for i := range lines {
		if r := runAt(file, lines, i+1); r != nil && r.Text == want {
			return r
		}
	}
	return nil
}

// dockerRunProducer is the RUN instruction as the producer of a network or
// dependency failure: its single-shot fetch is what failed, whatever runs
// the build.
func (x *explainer) dockerRunProducer() (Producer, bool) {
	r := x.dockerRun
	if r == nil || x.rule == nil || x.rule.Producer != roleEmitter || (x.rule.Category != TransientNetwork && x.rule.Category != Dependency) {
		return Producer{}, false
	}
	return Producer{File: r.File, Line: r.Line, Symbol: clipText(r.Text, 60)}, true
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.TrimSpace(s[:n]) + "…"
}

// desc describes the RUN instruction for sentences.
func (r *dockerRun) desc() string {
	return fmt.Sprintf("the `RUN` instruction at %s:%d of the image build", r.File, r.Line)
}

// dockerAptRetries sets Acquire::Retries=5 on the apt-get calls of the RUN
// instruction that failed.
func (x *facts) dockerAptRetries() (*fixPlan, error) {
	r := x.dockerRun
	old, err := x.repo.ReadFile(r.File)
	if err != nil {
		return nil, noFix("cannot read %s", r.File)
	}
	if strings.Contains(r.Text, "Acquire::Retries") {
		return nil, noFix("the apt commands of %s:%d already set their retries", r.File, r.Line)
	}
	lines := strings.SplitAfter(string(old), "\n")
	changed := 0
	for i := r.Line - 1; i < r.EndLine && i < len(lines); i++ {
		next := aptCall.ReplaceAllString(lines[i], "${1}apt-get -o Acquire::Retries=5${2}")
		if next != lines[i] {
			lines[i], changed = next, changed+1
		}
	}
	if changed == 0 {
		return nil, noFix("the RUN instruction at %s:%d calls apt in a way Polylane does not edit", r.File, r.Line)
	}
	rationale := fmt.Sprintf("apt failed on a mirror that answered inconsistently or not at all%s, inside %s. The patch sets Acquire::Retries=5 on its apt-get calls, so apt retries a failed download a few times before it gives up; every build of this image (CI, release and local) gets the retries, and what is installed does not change.",
		cite(append(x.ids["cause"], x.ids["dockerrun"]...)...), r.desc())
	return &fixPlan{Title: "Let apt retry failed downloads in " + path.Base(r.File), Rationale: rationale,
		Edits: []patch.FileEdit{{Path: r.File, Old: old, New: []byte(strings.Join(lines, ""))}}}, nil
}

// aptCall matches an apt-get call that sets no options yet: "apt-get update",
// "apt-get install -y …".
var aptCall = regexp.MustCompile(`(^|[\s;&|(])apt-get(\s+(?:update|install|upgrade|dist-upgrade|-y|-q|--yes|--no-install-recommends)\b)`)

// dockerRunUnit says what retries the failing RUN instruction has today.
func (x *explainer) dockerRunUnit() (FailedUnit, bool) {
	if _, ok := x.dockerRunProducer(); !ok {
		return FailedUnit{}, false
	}
	r := x.dockerRun
	parts := []string{fmt.Sprintf("the `RUN` instruction at %s:%d runs once per build", r.File, r.Line)}
	switch {
	case strings.Contains(r.Text, "Acquire::Retries"):
		parts[0] += ", and its apt calls already set Acquire::Retries"
	case strings.Contains(r.Text, "apt-get"):
		parts[0] += ", and its apt-get calls set no Acquire::Retries (apt itself retries a failed download 3 times by default)"
	}
	if b := liftOutOfBuild(x.em.Node); b != nil && b.Kind == harness.NodeCommand {
		parts = append(parts, fmt.Sprintf("%s does not retry the image build", describe(b)))
	} else if x.step != nil {
		parts = append(parts, fmt.Sprintf("the step %q does not retry the image build", x.step.DisplayName()))
	}
	return FailedUnit{Summary: strings.Join(parts, "; ")}, true
}

// dockerRunBlast lists the workflow steps that build the Dockerfile of the
// failing RUN instruction: each of them runs the same instruction.
func (x *explainer) dockerRunBlast() (BlastRadius, bool) {
	if _, ok := x.dockerRunProducer(); !ok {
		return BlastRadius{}, false
	}
	r := x.dockerRun
	var callers []Location
	var names []string
	for _, wf := range x.repo.Workflows() {
		for _, job := range wf.Jobs {
			for _, s := range job.Steps {
				if !buildsDockerfile(s.Uses, s.With, s.Run, r.File) || wf.Path == x.wfPath() && x.step != nil && s.Line == x.step.Line {
					continue
				}
				callers = append(callers, Location{File: wf.Path, Line: s.Line, Symbol: s.DisplayName()})
				names = append(names, fmt.Sprintf("step %q of job %s in %s", s.DisplayName(), job.ID, wf.Path))
			}
		}
	}
	if len(callers) == 0 {
		return BlastRadius{Summary: fmt.Sprintf("%s is built only by the failing step %q", r.File, x.stepName())}, true
	}
	return BlastRadius{Summary: fmt.Sprintf("every build of %s runs the same instruction: besides the failing step, %s", r.File, strings.Join(dedupe(names, 4), ", ")), Callers: callers}, true
}

func (x *explainer) wfPath() string {
	if x.wf == nil {
		return ""
	}
	return x.wf.Path
}

// buildsDockerfile reports whether a workflow step builds the image of file:
// a build action whose file (or context's Dockerfile) it is, or a docker
// build command naming it or its directory as the context.
func buildsDockerfile(uses string, with map[string]harness.Value, run, file string) bool {
	if action, _, _ := strings.Cut(uses, "@"); action == "docker/build-push-action" {
		f := with["file"].Text
		if f == "" {
			f = path.Join(cleanContext(with["context"].Text), "Dockerfile")
		}
		return path.Clean(f) == file
	}
	for _, line := range strings.Split(run, "\n") {
		if !strings.Contains(line, "docker build") && !strings.Contains(line, "buildx build") && !strings.Contains(line, "podman build") {
			continue
		}
		words := strings.Fields(line)
		named, context := "", ""
		for i, w := range words {
			switch {
			case (w == "-f" || w == "--file") && i+1 < len(words):
				named = words[i+1]
			case strings.HasPrefix(w, "--file="):
				named = strings.TrimPrefix(w, "--file=")
			case i == len(words)-1 && !strings.HasPrefix(w, "-"):
				context = w
			}
		}
		if named == "" {
			named = path.Join(cleanContext(context), "Dockerfile")
		}
		if path.Clean(strings.Trim(named, `"'`)) == file {
			return true
		}
	}
	return false
}

func cleanContext(c string) string {
	c = strings.Trim(strings.TrimSpace(c), `"'`)
	if c == "" || strings.Contains(c, "${{") {
		return "."
	}
	return path.Clean(c)
}

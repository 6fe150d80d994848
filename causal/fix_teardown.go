package causal

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/polylane/polylane/causal/harness"
	"github.com/polylane/polylane/causal/patch"
)

// stopVerbs are subcommands that stop or remove what an earlier step started.
var stopVerbs = map[string]bool{"stop": true, "down": true, "delete": true, "rm": true, "destroy": true,
	"uninstall": true, "kill": true, "teardown": true}

// nameNoise are step-name words that say what a step does, not what to.
var nameNoise = map[string]bool{"start": true, "stop": true, "starting": true, "stopping": true, "setup": true,
	"teardown": true, "clean": true, "cleanup": true, "with": true, "from": true, "into": true, "tests": true,
	"test": true, "down": true, "kill": true, "remove": true, "delete": true, "create": true, "launch": true}

// skippedTeardown returns the later step of the failing job that stops what
// the failing step started, when it runs only after every earlier step
// succeeded: a failed or cancelled run then leaves the started process (and
// its port) behind for the next run on the same runner.
func (x *facts) skippedTeardown() *harness.Step {
	if x.wf == nil || x.job == nil || x.step == nil {
		return nil
	}
	start := x.unitWords(x.step, x.tree)
	for _, s := range x.job.Steps {
		if s.Index <= x.step.Index || s.Run == "" && s.Uses == "" {
			continue
		}
		if s.If != "" {
			continue // a condition of its own: leave it to the authors
		}
		tree := x.repo.ResolveStep(x.wf, x.job, s)
		if !stopsSomething(tree) {
			continue
		}
		for w := range x.unitWords(s, tree) {
			if start[w] {
				return s
			}
		}
	}
	return nil
}

// stopsSomething reports whether a step's tree kills a process or stops a
// container, cluster or release.
func stopsSomething(tree *harness.Node) bool {
	found := false
	tree.Walk(func(n *harness.Node) bool {
		if n.Kind != harness.NodeCommand || found {
			return !found
		}
		switch n.Tool() {
		case "kill", "pkill", "killall":
			found = true
		default:
			found = stopVerbs[subcommand(n)]
		}
		return !found
	})
	return found
}

// unitWords returns the distinctive words of a step: the words of its name
// and the file-like tokens (paths, pid and log files) of the scripts it runs.
func (x *facts) unitWords(s *harness.Step, tree *harness.Node) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s.Name), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) >= 4 && !nameNoise[w] {
			out[w] = true
		}
	}
	text := s.Run
	if tree != nil {
		tree.Walk(func(n *harness.Node) bool {
			if n.Kind == harness.NodeScript && n.File != "" {
				if b, err := x.repo.ReadFile(n.File); err == nil && len(b) < 1<<16 {
					text += "\n" + string(b)
				}
			}
			return true
		})
	}
	for _, tok := range strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("-_./", r)
	}) {
		if fileToken(tok) {
			out[tok] = true
		}
	}
	return out
}

// fileToken reports whether a token names a specific file: a pid, lock,
// socket or log file.
func fileToken(tok string) bool {
	for _, ext := range []string{".pid", ".lock", ".sock", ".log"} {
		if strings.HasSuffix(tok, ext) && len(tok) > len(ext)+2 {
			return true
		}
	}
	return false
}

// teardownAlways makes the teardown step run after failures and
// cancellations too.
func teardownAlways(x *facts, s *harness.Step, what string) (*fixPlan, error) {
	content, err := x.repo.ReadFile(x.wf.Path)
	if err != nil {
		return nil, noFix("cannot read %s", x.wf.Path)
	}
	out, err := patch.AddStepKey(content, stepSpan(s), "if", "always()")
	if err != nil {
		return nil, noFix("%v", err)
	}
	rationale := fmt.Sprintf("%s%s. The step %q stops it, but it runs only when every step before it passed, so a failed or cancelled run leaves it running and holding the port on that runner. "+
		"With `if: always()` the stop step runs whatever happened before it. A process left by an earlier run is still there until the runner is cleaned once.",
		what, cite(x.ids["cause"]...), s.DisplayName())
	return &fixPlan{Title: fmt.Sprintf("Always run %q", s.DisplayName()), Rationale: rationale,
		Edits: []patch.FileEdit{{Path: x.wf.Path, Old: content, New: out}}}, nil
}

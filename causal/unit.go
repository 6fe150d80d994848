package causal

import (
	"fmt"
	"strings"

	"github.com/polylane/polylane/causal/harness"
)

// Bounds of the blast-radius scan.
const (
	maxBlastWorkflows = 60
	maxBlastSteps     = 400
	maxNeighbours     = 10
)

// retryActions are workflow actions that re-run a step.
var retryActions = []string{"nick-fields/retry", "wandalen/wretry.action", "Wandalen/wretry.action", "nick-invision/retry", "retry"}

// nativeRetry lists flags that make a tool retry on its own.
var nativeRetry = []string{"--retry", "fetch-retries", "--retries", "retryHandler.count", "Acquire::Retries", "--tries", "--network-timeout", "--rerun-fails", "--flake-attempts"}

// builtinRetries says what a tool retries on its own by default.
var builtinRetries = map[string]string{
	"npm":     "npm itself retries a failed fetch only twice by default (fetch-retries=2)",
	"pip":     "pip itself retries a failed download 5 times with a 15 s timeout by default",
	"pip3":    "pip itself retries a failed download 5 times with a 15 s timeout by default",
	"apt-get": "apt itself retries a failed download 3 times by default",
	"apt":     "apt itself retries a failed download 3 times by default",
	"mvn":     "Maven's HTTP client retries 3 times by default, but not on a reset pooled connection",
	"gradle":  "Gradle retries dependency downloads a few times on its own",
	"helm":    "helm has no retry of its own",
	"curl":    "curl does not retry unless --retry is given",
	"git":     "git does not retry a failed transfer",
	"kubectl": "kubectl does not retry a failed request",
}

// retryOf says how a command is retried today, "" when it is not.
func (x *facts) retryOf(n *harness.Node) string {
	if n == nil {
		return ""
	}
	if l := n.RetryLoop(); l != nil {
		return loopWords(l)
	}
	for _, f := range nativeRetry {
		if strings.Contains(n.Text, f) {
			return "its own " + f + " setting"
		}
	}
	if x.step != nil {
		for _, a := range retryActions {
			if strings.HasPrefix(x.step.Uses, a) {
				return "the step's " + x.step.Uses + " wrapper"
			}
		}
	}
	return ""
}

// networkFailure reports whether the matched mechanism is a failed transfer,
// the only kind of failure a tool's built-in download retries are about: a
// failing test or compile is not retried by Maven's HTTP client.
func (x *explainer) networkFailure() bool {
	if x.rule == nil {
		return false
	}
	switch x.rule.Category {
	case TransientNetwork, RateLimit, Dependency, Ordering:
		return true
	}
	return false
}

// loopWords renders a retry loop as "6x/10s" (or "up to 6 times").
func loopWords(l *harness.Loop) string {
	bound := "an unbounded number of times"
	if l.Bound > 0 {
		bound = fmt.Sprintf("%dx", l.Bound)
	}
	if l.Sleep != "" && l.Bound > 0 {
		s := l.Sleep
		if atoi(s) > 0 {
			s += "s"
		} else {
			s = "a growing delay"
		}
		return bound + "/" + s
	}
	return bound
}

func atoi(s string) int {
	n := 0
	if s == "" || len(s) > 6 {
		return 0
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0
		}
		n = n*10 + int(r-'0')
	}
	return n
}

// failedUnit says which retries wrap the emitter and its neighbours today.
func (x *explainer) failedUnit() FailedUnit {
	if fu, ok := x.dockerRunUnit(); ok {
		return fu
	}
	if x.em.Node == nil {
		return x.unlocatedUnit()
	}
	retried, bare := x.neighbourRetries()
	fu := FailedUnit{Retried: x.retryOf(x.em.Node) != ""}
	var parts []string
	if len(retried) > 0 {
		parts = append(parts, strings.Join(dedupe(retried, 4), " and "))
	}
	if len(bare) > 0 {
		verb := "has"
		if len(bare) > 1 {
			verb = "have"
		}
		parts = append(parts, strings.Join(dedupe(bare, 4), " and ")+" "+verb+" no retry")
	}
	fu.Summary = strings.Join(parts, "; ")
	if d, ok := builtinRetries[x.em.Node.Tool()]; ok && !fu.Retried && fu.Summary != "" && x.networkFailure() {
		fu.Summary += "; " + d
	}
	if fu.Summary == "" {
		fu.Summary = describe(x.em.Node) + " has no retry"
	}
	return fu
}

// unlocatedUnit is the failed unit when no command printed the cause: what
// the runner was doing, or the step.
func (x *explainer) unlocatedUnit() FailedUnit {
	if fu, ok := x.runnerUnit(); ok {
		return fu
	}
	if x.step != nil {
		return FailedUnit{Summary: fmt.Sprintf("the step %q has no retry around the failing command that Polylane could see", x.step.DisplayName())}
	}
	return FailedUnit{Summary: "the failing command could not be located in the harness, so its retries are unknown"}
}

// neighbourRetries describes, for the emitter and its neighbours, the
// retries that wrap them (each loop once, cited as evidence) and, per unit,
// the commands that nothing retries.
func (x *explainer) neighbourRetries() (retried, bare []string) {
	var bareUnits []string
	bareCmds := map[string][]string{}
	seenLoop := map[*harness.Loop]bool{}
	for _, n := range x.neighbours() {
		label := unitLabel(n)
		if l := n.RetryLoop(); l != nil {
			if !seenLoop[l] {
				seenLoop[l] = true
				kind, words := "retry loop around ", fmt.Sprintf("%s retries `%s` %s", label, commandName(n), loopWords(l))
				if l.Wait {
					kind, words = "wait loop polling ", fmt.Sprintf("%s waits in a polling loop on `%s` (%s)", label, commandName(n), loopWords(l))
				}
				id := x.ev.file(n.File, l.Line, firstLineOf(l.Text), kind+commandName(n))
				x.ids["retries"] = append(x.ids["retries"], id)
				retried = append(retried, words)
			}
			continue
		}
		if r := x.retryOf(n); r != "" {
			retried = append(retried, fmt.Sprintf("`%s` in %s retries through %s", commandName(n), label, r))
			continue
		}
		if _, ok := bareCmds[label]; !ok {
			bareUnits = append(bareUnits, label)
		}
		bareCmds[label] = appendOnce(bareCmds[label], "`"+commandName(n)+"`")
	}
	for _, u := range bareUnits {
		bare = append(bare, strings.Join(dedupe(bareCmds[u], 3), " and ")+" in "+u)
	}
	return retried, bare
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func dedupe(in []string, max int) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	if len(out) > max {
		out = append(out[:max], fmt.Sprintf("%d more", len(out)-max))
	}
	return out
}

// unitLabel names where a command lives: "task X", "make target X", a
// script path or the step name.
func unitLabel(n *harness.Node) string {
	u := unitOf(n)
	if u == nil {
		return n.File
	}
	if u.Kind == harness.NodeScript {
		return u.Symbol
	}
	if u.Kind == harness.NodeStep {
		return fmt.Sprintf("step %q", u.Symbol)
	}
	return kindWord(u) + " " + u.Symbol
}

// neighbours returns the commands that talk to something, from the producer
// (or the emitter) up to the emitter and a few after it, in the emitter's
// own unit (its script, recipe, task or step) or the producer's: a command
// of another script did not print the cause line.
func (x *explainer) neighbours() []*harness.Node {
	if x.tr == nil || x.em.Node == nil {
		return nil
	}
	if quiet[x.em.Node.Tool()] {
		return x.reportedCommands()
	}
	units := map[*harness.Node]bool{unitOf(x.em.Node): true}
	if x.producer != nil {
		units[unitOf(x.producer)] = true
	}
	end := x.tr.index[x.em.Node]
	start := end
	if x.producer != nil {
		if i, ok := x.tr.index[x.producer]; ok && i < start {
			start = i + 1
		}
	}
	var out []*harness.Node
	extra := 0
	for i := start; i < len(x.tr.flat) && len(out) < maxNeighbours; i++ {
		n := x.tr.flat[i]
		if n.Kind != harness.NodeCommand || quiet[n.Tool()] || harnessCall(n) || offline(n) || n.Tool() == "" || !units[unitOf(n)] {
			continue
		}
		if subcommand(n) == "wait" && n != x.em.Node {
			continue
		}
		if i > end {
			extra++
			if extra > 2 {
				break
			}
		}
		out = append(out, n)
	}
	return out
}

// reportedCommands are, for an emitter that only prints (a script's echo
// of its own failure), the commands before it in its function or unit that
// the message reports on: up to three, in order.
func (x *facts) reportedCommands() []*harness.Node {
	em := x.em.Node
	unit, fn := unitOf(em), em.Nearest(harness.NodeFunc)
	var out []*harness.Node
	for i := x.tr.index[em] - 1; i >= 0 && len(out) < 3; i-- {
		n := x.tr.flat[i]
		if n.Kind != harness.NodeCommand || (fn != nil && !isAncestor(fn, n)) || (fn == nil && unitOf(n) != unit) {
			continue
		}
		if quiet[n.Tool()] || harnessCall(n) || offline(n) || n.Tool() == "" {
			continue
		}
		out = append([]*harness.Node{n}, out...)
	}
	return out
}

// blastRadius finds the other workflow steps and tasks that run the
// producer's unit.
func (x *explainer) blastRadius() BlastRadius {
	if b, ok := x.dockerRunBlast(); ok {
		return b
	}
	if x.producer == nil {
		if b, ok := x.serviceBlast(x.chain.Producer.Symbol); ok {
			return b
		}
		if x.regression() {
			return BlastRadius{Summary: fmt.Sprintf("not a harness failure: the change at commit %s that made %q fail is the thing to look at", shortCommit(x.in.Verdict.FirstBadSHA), x.stepName())}
		}
		return BlastRadius{Summary: "no harness producer was located, so callers were not traced"}
	}
	unit := unitOf(x.producer)
	if unit == nil || unit.Kind == harness.NodeStep {
		return BlastRadius{Summary: fmt.Sprintf("the producer is inline in step %q of %s; no other step runs it", x.stepName(), x.in.WorkflowPath)}
	}
	var callers []Location
	var names []string
	steps := 0
	for wi, wf := range x.repo.Workflows() {
		if wi >= maxBlastWorkflows {
			break
		}
		for _, job := range wf.Jobs {
			for _, st := range job.Steps {
				if st.Run == "" || steps >= maxBlastSteps {
					continue
				}
				steps++
				if x.step != nil && st == x.step {
					continue
				}
				if containsUnit(x.repo.ResolveStep(wf, job, st), unit) {
					callers = append(callers, Location{File: wf.Path, Line: st.Line, Symbol: st.DisplayName()})
					names = append(names, fmt.Sprintf("%s › %s › %s", wf.Path, job.ID, st.DisplayName()))
				}
			}
		}
	}
	what := kindWord(unit) + " " + unit.Symbol
	if unit.Kind == harness.NodeScript {
		what = unit.Symbol
	}
	if len(callers) == 0 {
		return BlastRadius{Summary: fmt.Sprintf("no other workflow step runs %s; only the failing step %q does", what, x.stepName())}
	}
	return BlastRadius{Callers: callers, Summary: fmt.Sprintf("%d other workflow step(s) also run %s: %s", len(callers), what, strings.Join(dedupe(names, 5), "; "))}
}

func containsUnit(root *harness.Node, unit *harness.Node) bool {
	found := false
	root.Walk(func(n *harness.Node) bool {
		if found {
			return false
		}
		if n.Kind == unit.Kind && n.File == unit.File && n.Symbol == unit.Symbol {
			found = true
		}
		return !found
	})
	return found
}

func (x *explainer) stepName() string {
	if x.step != nil {
		return x.step.DisplayName()
	}
	return x.in.Step.Name
}

// shortCommit is a commit's 7-character prefix, "(unknown)" without one.
func shortCommit(sha *string) string {
	if sha == nil || *sha == "" {
		return "(unknown)"
	}
	if len(*sha) > 7 {
		return (*sha)[:7]
	}
	return *sha
}

package causal

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/polylane/polylane/analysis"
	"github.com/polylane/polylane/causal/harness"
)

// Bounds of the evidence a chain cites.
const (
	maxQuote          = 160
	maxChangeEvidence = 5
	maxRunsEvidence   = 6
)

// buildChain assembles the chain: signal, site, mechanism, producer, failed
// unit, cadence, blast radius and the evidence they cite.
func (x *explainer) buildChain() {
	c := &x.chain
	c.Signal = fmt.Sprintf("CI failing: %s on %s@%s", firstNonEmptyStr(x.in.WorkflowName, x.in.WorkflowPath), x.in.Repository, x.in.Branch)
	c.SurfacingSite = Site{File: x.in.WorkflowPath, Step: x.stepName()}
	if x.step != nil && x.wf != nil {
		c.SurfacingSite.File, c.SurfacingSite.Line = x.wf.Path, x.step.Line
	}
	x.citeCommon()
	if x.regression() {
		x.regressionChain()
	} else {
		x.mechanismChain()
	}
	c.Producer = x.producerOf()
	c.FailedUnitToday = x.failedUnit()
	c.Cadence = x.in.Cadence
	c.BlastRadius = x.blastRadius()
	c.Evidence = x.ev.items
}

// citeCommon cites the cause line, the echo that located the emitter, the
// emitter itself and the other runs of the class.
func (x *explainer) citeCommon() {
	if x.cause.N > 0 {
		x.ids["cause"] = append(x.ids["cause"], x.ev.log(x.cause, "the line that states the cause"))
	}
	if x.matched.Line.N > 0 && x.matched.Line.N != x.cause.N {
		x.ids["cause"] = append(x.ids["cause"], x.ev.log(x.matched.Line, "the line the mechanism rule matched"))
	}
	if a := x.em.Anchor; a != nil && a.Line.N > 0 {
		x.ids["anchor"] = append(x.ids["anchor"], x.ev.log(a.Line, "the harness code running when the failure happened"))
	}
	if m := x.em.MakeErr; m != nil {
		x.ids["anchor"] = append(x.ids["anchor"], x.ev.log(m.Line, "make names the failed recipe line"))
	}
	if n := x.em.Node; n != nil {
		note := "the command that printed the cause line"
		if x.em.Ambiguous {
			note = "the most likely of several commands that could have printed the cause line"
		}
		x.ids["emitter"] = append(x.ids["emitter"], x.ev.file(n.File, n.Line, firstLineOf(n.Cmd.Raw), note))
	}
	if r := x.dockerRun; r != nil {
		x.ids["dockerrun"] = append(x.ids["dockerrun"], x.ev.file(r.File, r.Line, clipText(r.Text, 200), "the Dockerfile instruction the image build was running"))
	}
	x.citeRuns()
}

// citeRuns cites the other runs of the trigger's class.
func (x *explainer) citeRuns() {
	var others []string
	cited := 0
	occ := append(x.in.Occurrences[:0:0], x.in.Occurrences...)
	sort.SliceStable(occ, func(i, j int) bool { return occ[i].RunID > occ[j].RunID })
	for _, o := range occ {
		if o.RunID == x.in.RunID {
			continue
		}
		label := fmt.Sprint(o.RunID)
		if o.RunNumber > 0 {
			label = fmt.Sprintf("%d (run #%d)", o.RunID, o.RunNumber)
		}
		others = append(others, label)
		if l, ok := x.bestLine(o.Lines); ok && cited < 2 && o.JobID != 0 {
			id := x.ev.otherLog(o.RunID, o.JobID, l.N, l.Text, "the same failure in another run")
			x.ids["runs"] = append(x.ids["runs"], id)
			cited++
		}
	}
	if len(others) == 0 {
		return
	}
	step := x.stepName()
	text := fmt.Sprintf("runs %s failed in %q the same way", strings.Join(dedupe(others, maxRunsEvidence), ", "), step)
	x.ids["runs"] = append(x.ids["runs"], x.ev.runs(text, "other failures of the same class in the window"))
}

// bestLine returns the line of another run that states what the matched
// rule matched, else its first cause line.
func (x *explainer) bestLine(lines []analysis.Line) (analysis.Line, bool) {
	if x.rule != nil {
		for _, l := range lines {
			for _, re := range x.rule.Cause {
				if re.MatchString(l.Text) {
					return l, true
				}
			}
		}
	}
	return firstCause(lines)
}

// firstCause returns the first cause line of an occurrence.
func firstCause(lines []analysis.Line) (analysis.Line, bool) {
	for _, l := range lines {
		if l.Role == analysis.RoleCause || l.Role == "" {
			return l, true
		}
	}
	return analysis.Line{}, false
}

// mechanismChain fills the mechanism from the matched rule, or says plainly
// that no rule matched.
func (x *explainer) mechanismChain() {
	c := &x.chain
	if x.rule == nil {
		c.Mechanism = Mechanism{Category: Unknown,
			Summary: fmt.Sprintf("No mechanism rule matches this failure, so Polylane does not claim a cause beyond the log: %s%s.",
				quoteShort(x.cause.Text, ""), cite(x.ids["cause"]...))}
		c.Mechanism.Evidence = compact(x.ids["cause"])
		return
	}
	x.citeRule()
	c.Mechanism = Mechanism{Category: x.rule.Category, Rule: x.rule.ID, Summary: x.fillSummary(x.rule.Summary)}
	if f := x.family; f != nil {
		c.Mechanism.Family = f.ID
		c.Mechanism.KnownElsewhere = f.Sources[:min(2, len(f.Sources))]
	}
	c.Mechanism.Evidence = compact(append(append(append(append([]string{}, x.ids["cause"]...), x.ids["emitter"]...), x.ids["changes"]...), x.ids["gate"]...))
	c.Mechanism.Evidence = append(c.Mechanism.Evidence, compact(x.ids["install"])...)
	if c.Mechanism.Category == TestFailure {
		c.Mechanism.Test = x.failedTest()
	}
}

// regressionChain points at the first bad commit: no harness producer.
func (x *explainer) regressionChain() {
	c := &x.chain
	cat := x.regressionCategory()
	sha := ""
	if x.in.Verdict.FirstBadSHA != nil {
		sha = *x.in.Verdict.FirstBadSHA
	}
	var id string
	if sha != "" {
		id = x.ev.commit(sha, "the first commit whose runs fail this way")
	}
	summary := fmt.Sprintf("Every run since commit %s fails %q with %s%s, and the runs before it passed, so this is a regression in the change, not a harness flake.",
		shortSHA(sha), x.stepName(), quoteShort(x.cause.Text, ""), cite(append(x.ids["cause"], id)...))
	if sha == "" {
		summary = fmt.Sprintf("The failure persists from a point in the window on (%s%s); it is a regression to fix in the code, not in the harness.", quoteShort(x.cause.Text, ""), cite(x.ids["cause"]...))
	}
	if x.settingsRegression() {
		summary = fmt.Sprintf("Every run since commit %s fails %q with %s%s. The registry or service refused the job's credential for its permissions, which are set outside the repository (an organisation's default token permissions, a package's access), so that commit is only the first run after the change; the workflow fixes it by declaring what it needs.",
			shortSHA(sha), x.stepName(), quoteShort(x.cause.Text, ""), cite(append(x.ids["cause"], id)...))
	}
	if o, ok := x.outgrownLimit(); ok {
		summary += fmt.Sprintf(" Since that change the job needs more %s than %s gives it, so either the change needs less or the limit is raised.", o.need, o.limit)
	}
	c.Mechanism = Mechanism{Category: cat, Summary: summary, Evidence: compact(append(x.ids["cause"], id))}
	if x.rule != nil {
		c.Mechanism.Rule = x.rule.ID
	}
	if f := x.family; f != nil && x.rule != nil {
		c.Mechanism.Family = f.ID
		c.Mechanism.KnownElsewhere = f.Sources[:min(2, len(f.Sources))]
	}
	if cat == TestFailure {
		c.Mechanism.Test = x.failedTest()
	}
}

var testish = regexp.MustCompile(`(?i)(test|spec|assert|expect|e2e|check)`)

func (x *explainer) testLike() bool {
	return testish.MatchString(x.cause.Text)
}

// regressionCategory names what broke. A failure a rule recognises keeps
// that rule's category: a job killed for memory since commit X is still
// resource exhaustion, only now a persistent one. Without a rule, a step or
// command that runs tests makes it a test failure, and anything else a build
// failure.
func (x *explainer) regressionCategory() Category {
	if x.rule != nil && x.rule.Category != Unknown {
		return x.rule.Category
	}
	runsTests := testish.MatchString(x.stepName()) || x.testLike()
	if n := x.em.Node; n != nil {
		runsTests = runsTests || testish.MatchString(n.Text) || testish.MatchString(symbolOf(n))
	}
	if runsTests {
		return TestFailure
	}
	return BuildFailure
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	if s == "" {
		return "(unknown)"
	}
	return s
}

// citeRule cites the rule-specific evidence: changes, gate, installer.
func (x *explainer) citeRule() {
	f := x.find
	for i, e := range f.ChangeEvents {
		if i >= maxChangeEvidence {
			break
		}
		x.ids["changes"] = append(x.ids["changes"], x.ev.log(e.Line, "the harness changed "+e.Object))
	}
	for i, n := range f.Changes {
		if i >= 4 {
			break
		}
		x.ids["changes"] = append(x.ids["changes"], x.ev.file(n.File, n.Line, firstLineOf(n.Cmd.Raw), "changes "+describeTargets(n)))
	}
	if f.Gate != nil {
		x.ids["gate"] = append(x.ids["gate"], x.ev.file(f.Gate.File, f.Gate.Line, firstLineOf(f.Gate.Cmd.Raw), "the readiness gate"))
		gates := ofKind(x.evs, evGatePassed)
		if len(gates) > 0 {
			x.ids["gate"] = append(x.ids["gate"], x.ev.log(gates[0].Line, "the gate passes"))
			if len(gates) > 1 {
				x.ids["gate"] = append(x.ids["gate"], x.ev.log(gates[len(gates)-1].Line, "the gate passes for every object"))
			}
		}
	}
	if f.Install != nil {
		x.ids["install"] = append(x.ids["install"], x.ev.file(f.Install.File, f.Install.Line, firstLineOf(f.Install.Cmd.Raw), "starts what is used next, without waiting"))
	}
	if s := f.Service; s != nil && x.wf != nil {
		x.ids["install"] = append(x.ids["install"], x.ev.file(x.wf.Path, s.Line, s.Name+": "+s.Image.Text, "service container without a health check"))
	}
}

// describeTargets names what a change command acts on.
func describeTargets(n *harness.Node) string {
	args := n.EffectiveArgs()
	for i := 1; i+1 < len(args); i++ {
		if changeVerbs[args[i]] || args[i] == "upgrade" {
			return strings.Join(args[i+1:min(len(args), i+3)], " ")
		}
	}
	return "workloads"
}

func compact(ids []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, id := range ids {
		if id != "" && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// wordBounds moves a cut [start, end) of text inward to the nearest spaces
// within a short distance, so that a quote does not begin or end in the
// middle of a word, and never inside a UTF-8 sequence.
func wordBounds(text string, start, end int) (int, int) {
	const reach = 24
	if start > 0 && text[start-1] != ' ' {
		if i := strings.IndexByte(text[start:min(len(text), start+reach)], ' '); i >= 0 && start+i+1 < end {
			start += i + 1
		}
	}
	if end < len(text) && text[end] != ' ' {
		if i := strings.LastIndexByte(text[max(start, end-reach):end], ' '); i >= 0 && max(start, end-reach)+i > start {
			end = max(start, end-reach) + i
		}
	}
	for start > 0 && start < len(text) && text[start]&0xC0 == 0x80 {
		start++
	}
	for end < len(text) && end > start && text[end]&0xC0 == 0x80 {
		end--
	}
	return start, end
}

func firstNonEmptyStr(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// quoteShort renders a log text for a sentence, cut around the part a rule
// matched.
func quoteShort(text, around string) string {
	text = strings.TrimSpace(strings.TrimPrefix(text, "##[error]"))
	if len(text) <= maxQuote {
		return "'" + text + "'"
	}
	start := 0
	if i := strings.Index(text, around); around != "" && i >= 0 {
		start = max(0, min(i+len(around)/2-maxQuote/2, len(text)-maxQuote))
	}
	end := min(len(text), start+maxQuote)
	start, end = wordBounds(text, start, end)
	out := text[start:end]
	if start > 0 {
		out = "…" + out
	}
	if end < len(text) {
		out += "…"
	}
	return "'" + out + "'"
}

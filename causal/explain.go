package causal

import (
	"fmt"
	"strings"

	"github.com/polylane/polylane/analysis"
	"github.com/polylane/polylane/analysis/history"
	"github.com/polylane/polylane/analysis/redact"
	"github.com/polylane/polylane/causal/catalogue"
	"github.com/polylane/polylane/causal/harness"
	"github.com/polylane/polylane/causal/impact"
	"github.com/polylane/polylane/causal/patch"
)

// facts are what Explain learns about a failure before it matches a rule:
// the harness model, the failing step's log, the command that printed the
// cause line, its endpoint, and the evidence cited so far. Detectors and
// fixes read them; they never change what the pipeline has concluded.
type facts struct {
	in   Input
	repo *harness.Repo
	wf   *harness.Workflow
	job  *harness.Job
	step *harness.Step
	tree *harness.Node
	tr   *tracer
	log  *stepLog
	hits []hit
	evs  []event
	// cause is the primary cause line; texts the failure texts rules read.
	cause logLine
	texts []failText
	// headers are the lines a test runner's header may be on (see
	// failText.Header); only causeMatch reads them, for generic rules.
	headers []failText
	em      emission
	ev      *evidenceSet
	// endpoint is the host:port the cause line names, local when it is on the
	// runner or inside the test cluster.
	endpoint string
	local    bool
	// dockerRun is the Dockerfile RUN instruction a failed image build ran.
	dockerRun *dockerRun
	// locs are the places the step's log names (files and lines, failed
	// units); paths maps the paths it prints to repository paths.
	locs  []loc
	paths *pathMapper
	// ids are the evidence ids cited for each part of the story ("cause",
	// "emitter", "gate", …).
	ids map[string][]string
	// families are the catalogue's families that the failure texts show,
	// by text (computed once, see familiesOf).
	families map[int][]*catalogue.Family
}

// explainer runs Explain: the facts, the rule that matched and what the
// pipeline concluded from it.
type explainer struct {
	facts
	rule    *rule
	matched failText
	find    finding
	// family is the catalogued error family the matched text belongs to.
	family *catalogue.Family
	// testsFailedAt is the first log line of a cause line on which a test
	// or build failure wrapper rule holds (0: none); passing are the lines
	// of tests that passed. See notEvidence.
	testsFailedAt int
	passing       lineRanges
	producer      *harness.Node
	chain         Chain
	patch         *patch.Patch
	// creds are the credentials the patch passes, as its fix described them.
	creds   []impact.Credential
	fixNote string
	notes   []string
}

// fixContext is what a fix shape reads: the facts, the rule that matched,
// the failure text it matched and what its harness predicate found. A fix
// returns its plan; it cannot change the chain, the notes or the patch.
type fixContext struct {
	*facts
	rule    *rule
	matched failText
	find    finding
	// family is the catalogued error family the matched text belongs to.
	family *catalogue.Family
}

// failText is a line a rule may match: a cause line (primary) or context.
type failText struct {
	Line    logLine
	Primary bool
	// Header marks a line up to testHeaderLines above the cause: where a
	// test runner names the failed test before its error details. Only the
	// generic wrapper rules read it.
	Header bool
}

// testHeaderLines is how far above the cause line a test runner's header
// may be: Playwright prints the test, the matcher, the locator, the
// expectation and the timeout before the error (about 6 lines); Jest and
// Vitest put the ● or FAIL line a few lines above.
const testHeaderLines = 12

// Explain builds the causal chain of the trigger's failure class: it models
// the harness, finds the command that produced the cause line, matches the
// mechanism rules, says what happens to the failed unit today and what else
// runs the same code, proposes a patch where a harness change is right, and
// cites evidence for every claim. It never fails for lack of data: missing
// logs or harness files give an "unknown" mechanism, said plainly.
func Explain(in Input) (*Explanation, error) {
	if in.Repo == nil {
		return nil, fmt.Errorf("explain %s: no repository tree", in.Repository)
	}
	x := &explainer{facts: facts{in: in, repo: harness.NewRepo(in.Repo).Named(in.Repository), ev: newEvidenceSet(in.RunID, in.Job.ID), ids: map[string][]string{}}}
	x.locate()
	if err := x.readLog(); err != nil {
		x.notes = append(x.notes, err.Error())
	}
	x.resolveTree()
	x.trace()
	if x.dockerRun = x.instructionRun(); x.dockerRun == nil {
		x.dockerRun = x.findDockerRun()
	}
	x.match()
	x.resolveProducer()
	x.buildChain()
	x.propose()
	x.notOurs()
	return x.result(), nil
}

// locate finds the workflow, job and step (resolveTree builds the step's
// execution tree once the log is read).
func (x *explainer) locate() {
	if x.in.WorkflowPath == "" {
		return
	}
	wf, err := x.repo.Workflow(x.in.WorkflowPath)
	if err != nil {
		x.notes = append(x.notes, err.Error())
		return
	}
	x.wf = wf
	owner, job, step, err := x.repo.LocateStep(wf, x.in.Job.Name, x.in.Step.Name, x.in.Step.Number)
	x.wf = owner
	if err != nil {
		// Steps the runner adds (containers, set-up) are not in the file.
		x.job = wf.FindJob(x.in.Job.Name)
		x.notes = append(x.notes, err.Error())
		return
	}
	x.job, x.step = job, step
}

// readLog reads the failing step's lines and picks the cause line.
func (x *explainer) readLog() error {
	causeN := 0
	if r := x.in.Result; r != nil {
		for _, l := range r.Lines {
			if l.Role == analysis.RoleCause || l.Role == "" {
				causeN = l.N
				break
			}
		}
	}
	sl, err := readStepLog(x.in, causeN)
	x.log = sl
	if sl == nil {
		x.log = &stepLog{Cause: -1}
	}
	x.collectTexts(causeN)
	return err
}

// collectTexts gathers the failure texts: the analysis' cause lines first,
// then its context lines, the step's error lines and the lines around the
// cause.
func (x *explainer) collectTexts(causeN int) {
	seen := map[int]bool{}
	add := func(l logLine, primary bool) {
		if l.N > 0 && seen[l.N] || strings.TrimSpace(l.Text) == "" {
			return
		}
		seen[l.N] = true
		x.texts = append(x.texts, failText{Line: l, Primary: primary})
	}
	if r := x.in.Result; r != nil {
		for _, l := range r.Lines {
			ll, ok := x.log.line(l.N)
			if !ok {
				ll = logLine{N: l.N, Text: l.Text, Sec: -1}
			}
			primary := l.Role == analysis.RoleCause || l.Role == ""
			if primary && (x.cause.N == 0 || genericExit(x.cause.Text)) && !genericExit(ll.Text) {
				x.cause = ll
			}
			add(ll, primary)
		}
	}
	if x.cause.N == 0 {
		x.cause = x.fallbackCause()
		add(x.cause, true)
	}
	for i, l := range x.log.Lines {
		near := x.log.Cause >= 0 && i >= x.log.Cause-3 && i <= x.log.Cause+3
		if l.Kind == analysis.KindError || near {
			add(l, false)
		}
	}
	for _, l := range x.tapDiagnostics() {
		add(l, false)
	}
	for i := max(0, x.log.Cause-testHeaderLines); x.log.Cause >= 0 && i < x.log.Cause-3; i++ {
		l := x.log.Lines[i]
		if !seen[l.N] && strings.TrimSpace(l.Text) != "" {
			seen[l.N] = true
			x.headers = append(x.headers, failText{Line: l, Header: true})
		}
	}
}

// tapDiagnosticsCases is the corpus case whose miss led to reading a TAP
// test's diagnostics (kubernetes-sigs/dranet#273).
var tapDiagnosticsCases = []string{"kubernetes-sigs/dranet"}

// maxTAPDiagnostics bounds the diagnostic lines read after a TAP "not ok".
const maxTAPDiagnostics = 60

// tapDiagnostics are the "# " lines after the cause line when it is a TAP
// "not ok": what the failed test printed (see pastTAPDiagnostics).
func (x *explainer) tapDiagnostics() []logLine {
	i := x.log.Cause
	if x.leftOut(tapDiagnosticsCases) || i < 0 || i >= len(x.log.Lines) || !tapNotOK.MatchString(x.log.Lines[i].Text) {
		return nil
	}
	var out []logLine
	for _, l := range x.log.Lines[i+1:] {
		if !tapDiagnostic.MatchString(l.Text) || len(out) == maxTAPDiagnostics {
			break
		}
		out = append(out, l)
	}
	return out
}

// genericExit reports whether a line is the runner's generic exit-code line.
func genericExit(s string) bool {
	return strings.Contains(s, "Process completed with exit code")
}

// fallbackCause picks the last error line of the step that is not the
// generic exit-code line, else the last error line.
func (x *explainer) fallbackCause() logLine {
	var generic logLine
	for i := len(x.log.Lines) - 1; i >= 0; i-- {
		l := x.log.Lines[i]
		if l.Kind != analysis.KindError {
			continue
		}
		if genericExit(l.Text) {
			if generic.N == 0 {
				generic = l
			}
			continue
		}
		return l
	}
	return generic
}

// maxTraceLines bounds the lines before the cause that are aligned with the
// harness: the last ones matter.
const maxTraceLines = 4000

// trace aligns the log with the harness and finds the emitter and events.
func (x *explainer) trace() {
	before := x.log.before()
	x.evs = scanEvents(before)
	x.endpoint, x.local = x.findEndpoint()
	if x.tr == nil {
		return
	}
	traced := before
	if len(traced) > maxTraceLines {
		traced = traced[len(traced)-maxTraceLines:]
	}
	x.hits = x.tr.trace(traced)
	if x.log.Cause >= 0 {
		// make's error line comes after the cause; trace the tail too.
		tail := append(append([]logLine(nil), x.log.Lines[x.log.Cause:]...), x.log.Tail...)
		for _, h := range x.tr.trace(tail) {
			// and the harness's own echo of the cause line, if it printed it
			if h.Kind == echoMakeE || h.Kind == echoPrint && h.Line.N == x.cause.N {
				x.hits = append(x.hits, h)
			}
		}
	}
	x.em = locateEmitter(x.tr, x.hits, x.pinned(), x.cause.N, x.causeContext(), recentText(before, 200))
	if x.endpoint == "" && x.em.Node != nil {
		x.endpoint, x.local = endpointOf(x.em.Node.ExpandVars(x.em.Node.Text))
	}
}

// recentText joins the last n lines of lines.
func recentText(lines []logLine, n int) string {
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	return b.String()
}

// causeContext is the text the emitter search reads: the cause line plus
// the other primary lines.
func (x *explainer) causeContext() string {
	var b strings.Builder
	b.WriteString(x.cause.Text)
	for _, primary := range []bool{true, false} {
		for _, t := range x.texts {
			if t.Primary == primary && t.Line.N != x.cause.N {
				b.WriteString("\n")
				b.WriteString(t.Line.Text)
			}
		}
	}
	return b.String()
}

// regression reports whether the verdict makes this a product regression.
// notOurs clears the producer of a test or build failure that gets no
// harness patch: its fix belongs to the code or the test, not to the
// harness, so the chain names no harness line as its producer.
func (x *explainer) notOurs() {
	if cat := x.chain.Mechanism.Category; x.patch == nil && (cat == TestFailure || cat == BuildFailure) {
		x.chain.Producer = Producer{}
	}
}

func (x *explainer) regression() bool {
	return x.in.Verdict.Kind == history.Regression
}

// symbolOf names the unit a node belongs to: task, target, script, package
// script, function or step.
func symbolOf(n *harness.Node) string {
	u := n.Nearest(append([]string{harness.NodeFunc}, unitKinds...)...)
	if u == nil {
		return ""
	}
	return u.Symbol
}

// unitKinds are the node kinds that name where a command lives: a task, a
// make target, a just recipe, a Dockerfile RUN instruction, a Compose
// service, a script, a package.json script or a step.
var unitKinds = []string{harness.NodeTask, harness.NodeTarget, harness.NodeJustRecipe, harness.NodeInstruction,
	harness.NodeService, harness.NodeScript, harness.NodePackage, harness.NodeStep}

// unitOf returns the node that names where a command lives (for messages).
func unitOf(n *harness.Node) *harness.Node {
	return n.Nearest(unitKinds...)
}

func (x *explainer) result() *Explanation {
	exp := &Explanation{Chain: &x.chain, Patch: x.patch, Redacted: x.citedRedactions()}
	exp.WhatHappened = x.whatHappened()
	exp.WhyThisFix = x.whyThisFix()
	exp.NotAnalysed = x.repo.Skipped()
	exp.Reach = x.stepReach()
	if x.patch != nil {
		exp.Impact = x.assessImpact()
	}
	return exp
}

// citedRedactions lists the secrets removed from the trigger-log lines
// that the chain's evidence cites.
func (x *explainer) citedRedactions() []redact.Secret {
	var out []redact.Secret
	for _, e := range x.chain.Evidence {
		if e.Kind != EvidenceLog || e.RunID != x.in.RunID || e.JobID != x.in.Job.ID {
			continue
		}
		for _, k := range x.log.Redacted[e.Line] {
			out = redact.AddSecret(out, redact.Secret{Kind: k, Line: e.Line})
		}
	}
	return out
}

// assessImpact assesses whether the patch's files reach a deployed
// artifact and says where the change shows.
func (x *explainer) assessImpact() *impact.Impact {
	im, err := impact.AssessPatch(x.in.Repo, x.in.Repository, x.patch.Diff, x.creds)
	if err != nil {
		x.notes = append(x.notes, err.Error())
		return nil
	}
	im.Observability = impact.Observe(x.in.Repo, x.in.WorkflowPath, x.stepName(), addedLines(x.patch.Diff))
	return im
}

// addedLines returns the lines a unified diff adds, without the "+".
func addedLines(diff string) []string {
	var out []string
	for _, l := range strings.Split(diff, "\n") {
		if strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++") {
			out = append(out, l[1:])
		}
	}
	return out
}

package report

import (
	"fmt"
	"strings"

	"github.com/polylane/polylane/analysis"
	"github.com/polylane/polylane/analysis/history"
	"github.com/polylane/polylane/causal"
	"github.com/polylane/polylane/causal/diagnosis"
)

// known reports whether the chain names a mechanism.
func known(c *causal.Chain) bool {
	return c != nil && c.Mechanism.Category.Known()
}

// regression reports whether the verdict is a regression.
func (r *renderer) regression() bool {
	return r.d.Verdict.Kind == history.Regression
}

// heading is the document's visible title.
func (r *renderer) heading(b *strings.Builder) {
	step := r.d.Failure.Step.Name
	if step == "" {
		step = "an unnamed step"
	}
	fmt.Fprintf(b, "### Polylane: %s failed in %s\n\n", r.t(r.workflow()), r.t(step))
}

// inStep says where a failure happened: "in step X", or, for a run that
// was cancelled or whose jobs could not be read, that no step failed.
func (r *renderer) inStep(step string) string {
	if step == "" {
		return "without a failing step (cancelled, or no job data)"
	}
	return "in step " + r.t(step)
}

func (r *renderer) workflow() string {
	if r.d.Run.Workflow != "" {
		return r.d.Run.Workflow
	}
	return "the workflow"
}

// causeLine is the best statement of the cause in the trigger's log.
func (r *renderer) causeLine() (analysis.Line, bool) { return CauseLine(r.d) }

// CauseLine is the best statement of a diagnosis' cause in the trigger's
// log: the first line of the cause, else the first line cited.
func CauseLine(d *diagnosis.Diagnosis) (analysis.Line, bool) {
	for _, l := range d.Failure.Lines {
		if l.Role == analysis.RoleCause || l.Role == "" {
			return l, true
		}
	}
	if len(d.Failure.Lines) > 0 {
		return d.Failure.Lines[0], true
	}
	return analysis.Line{}, false
}

// summary is the opening paragraph: what failed, how often, the mechanism
// and what the fix does.
func (r *renderer) summary(b *strings.Builder) {
	r.heading(b)
	r.pullRequestLine(b)
	if r.narrated(b, r.opts.NarratedSummary) {
		return
	}
	d := r.d
	fmt.Fprintf(b, "%s failed on %s %s of job %s (%s",
		r.t(r.workflow()), r.c(d.Run.Branch), r.inStep(d.Failure.Step.Name), r.c(d.Failure.Job.Name), r.runRef(d.Run.ID, d.Run.Number))
	if d.Run.Attempt > 1 {
		fmt.Fprintf(b, ", attempt %d", d.Run.Attempt)
	}
	b.WriteString(")")
	if l, ok := r.causeLine(); ok && !d.Failure.Unknown {
		b.WriteString(": " + code(clipTail(clean(l.Text), min(r.lim.text, 160)), 0) + ".")
	} else {
		b.WriteString("; the job's log could not be read, so the line that states the cause is not known.")
	}
	b.WriteString(" " + r.frequency() + " " + r.mechanismSentence() + " " + r.fixSentence() + "\n\n")
}

// runRef renders "run #N" linked to the run.
func (r *renderer) runRef(id int64, number int) string {
	label := fmt.Sprintf("run %d", id)
	if number > 0 {
		label = fmt.Sprintf("run #%d", number)
	}
	return link(escapeText(label), r.ln.run(id))
}

// frequency says how often the class failed and what the verdict is.
func (r *renderer) frequency() string {
	d, c := r.d, r.cls
	var s string
	if c != nil && d.Window.Runs > 0 {
		s = fmt.Sprintf("The same failure happened in %d of the last %d runs on %s.", c.Count, d.Window.Runs, r.c(d.Window.Branch))
	}
	switch d.Verdict.Kind {
	case history.Flaky:
		s += " It comes and goes, so Polylane judges it flaky."
	case history.Regression:
		s += " It started at " + r.commitRef(d.Verdict.FirstBadSHA) + " and every run since has failed this way: a regression."
	case history.Broken:
		s += " It failed throughout the window: the step is broken, not flaky."
	case history.New:
		s += " There is too little history to tell whether it is flaky or a regression."
	}
	return strings.TrimSpace(s)
}

// commitRef renders a commit as a linked short sha, or says it is unknown.
func (r *renderer) commitRef(sha *string) string {
	if sha == nil || *sha == "" {
		return "a commit Polylane could not pin down"
	}
	return "commit " + link(r.shortSHA(*sha), r.ln.commit(*sha))
}

// mechanismSentence names the mechanism and the producer, or says plainly
// what is not known.
func (r *renderer) mechanismSentence() string {
	c := r.d.Chain
	switch {
	case c == nil:
		return "The causal analysis has not run for this failure, so the mechanism is not known yet."
	case !known(c):
		return "Polylane could not name the mechanism from the log and the harness; the evidence it found is listed below."
	}
	s := fmt.Sprintf("The mechanism is a %s (%s)", c.Mechanism.Category.Plain(), r.c(string(c.Mechanism.Category)))
	if c.Producer.File != "" {
		s += ", produced by " + r.producerRef(c.Producer)
	}
	return s + "."
}

// producerRef renders the producer's symbol and linked file:line.
func (r *renderer) producerRef(p causal.Producer) string {
	s := r.fileRef(p.File, p.Line)
	if p.Symbol != "" {
		s = r.c(p.Symbol) + " in " + s
	}
	if p.Ambiguous {
		s += " (one of several candidates)"
	}
	return s
}

// fileRef renders file:line as a code span linked to the file at the head
// commit.
func (r *renderer) fileRef(file string, line int) string {
	label := file
	if line > 0 {
		label = fmt.Sprintf("%s:%d", file, line)
	}
	return link(r.c(label), r.ln.blob(file, line))
}

// fixSentence says what the fix does, or why there is none.
func (r *renderer) fixSentence() string {
	p := r.d.Patch
	if p == nil {
		if r.regression() {
			return "No harness patch is proposed: the fix belongs in the change that introduced the failure."
		}
		return "No harness patch is proposed."
	}
	added, removed := patchCounts(p.Files)
	s := fmt.Sprintf("The proposed fix, “%s”, changes %s (+%d/−%d)", r.p(p.Title), r.fileList(p.Files), added, removed)
	switch im := r.d.Impact; {
	case im == nil:
		s += "; its reach into deployed artifacts was not assessed"
	case im.CIOnly:
		s += " and reaches nothing that is deployed"
	case len(im.Affected) > 0:
		s += fmt.Sprintf(" and reaches %d deployed %s", len(im.Affected), plural(len(im.Affected), "artifact", "artifacts"))
	}
	if im := r.d.Impact; im != nil && len(im.Credentials) > 0 {
		s += "; it passes a credential, so it is not a CI-only change"
	}
	return s + "."
}

// narratedNote marks a paragraph the narrator worded.
const narratedNote = "_Worded by an LLM from this diagnosis; facts checked._"

// maxNarrated bounds one narrated paragraph (the narrator's own bound is
// far lower); a longer one is not shown.
const maxNarrated = 8000

// narrated writes a narrated paragraph with its note and reports whether it
// did; empty or oversized text leaves the deterministic paragraph.
func (r *renderer) narrated(b *strings.Builder, text string) bool {
	text = strings.TrimSpace(text)
	if text == "" || len(text) > maxNarrated {
		return false
	}
	b.WriteString(text + "\n\n" + narratedNote + "\n\n")
	return true
}

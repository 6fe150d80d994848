package report

import (
	"fmt"
	"strings"

	"github.com/polylane/polylane/causal"
	"github.com/polylane/polylane/causal/catalogue"
)

// causalChain is the "Causal chain" section: signal, surfacing site,
// mechanism, producer, the failed unit today, cadence, blast radius and
// the evidence, each cited.
func (r *renderer) causalChain(b *strings.Builder) {
	b.WriteString("#### Causal chain\n\n")
	c := r.d.Chain
	if c == nil {
		b.WriteString("The causal stage has not run for this failure. What is known is the failing step and the lines of its log that state the cause:\n\n")
		r.failureLines(b)
		return
	}
	b.WriteString("- **Signal:** " + r.p(c.Signal) + "\n")
	b.WriteString("- **Surfacing site:** " + r.site(c.SurfacingSite) + "\n")
	b.WriteString("- **Mechanism** (" + r.c(orUnknown(c.Mechanism.Category)) + "): ")
	if known(c) {
		b.WriteString(r.p(c.Mechanism.Summary))
	} else {
		b.WriteString("unknown. No mechanism rule matched what the log and the harness show")
		if c.Mechanism.Summary != "" {
			b.WriteString("; " + r.p(c.Mechanism.Summary))
		}
	}
	b.WriteString("\n")
	if t := c.Mechanism.Test; t != nil && t.ID != "" {
		b.WriteString("- **Failed test:** " + r.c(t.ID))
		switch {
		case t.File != "":
			b.WriteString(" at " + r.fileRef(t.File, t.Line))
		case t.Printed != "":
			b.WriteString(" at " + r.c(t.Printed))
		}
		b.WriteString("\n")
	}
	r.producer(b, c.Producer)
	if s := c.FailedUnitToday.Summary; s != "" {
		b.WriteString("- **What happens to the failed unit today:** " + r.p(s) + "\n")
	}
	if s := c.Cadence; s != "" {
		b.WriteString("- **Cadence:** " + r.p(s) + "\n")
	}
	r.blast(b, c.BlastRadius)
	b.WriteString("- **Evidence:**\n")
	r.evidence(b, c.Evidence)
	b.WriteString("\n")
	r.knownElsewhere(b, c.Mechanism)
}

// knownElsewhere lists the public threads where the cause line's error
// family was diagnosed and fixed. Only sources that Polylane's own
// catalogue lists for that family are linked, whatever a stored document
// says.
func (r *renderer) knownElsewhere(b *strings.Builder, m causal.Mechanism) {
	var known []string
	for _, u := range m.KnownElsewhere {
		if catalogue.Default.Cites(m.Family, u) && safeURL(u) != "" {
			known = append(known, u)
		}
	}
	if len(known) == 0 {
		return
	}
	b.WriteString("Known elsewhere: the same error family (" + r.c(m.Family) + ") was diagnosed and fixed in\n\n")
	for _, u := range known {
		b.WriteString("- " + link(r.t(strings.TrimPrefix(u, "https://")), u) + "\n")
	}
	b.WriteString("\n")
}

// orUnknown is s, or "unknown" when s is empty.
func orUnknown[T ~string](s T) string {
	if s == "" {
		return string(causal.Unknown)
	}
	return string(s)
}

// site renders the surfacing site: the step and its workflow line.
func (r *renderer) site(s causal.Site) string {
	var parts []string
	if s.Step != "" {
		parts = append(parts, "step "+r.t(s.Step))
	}
	if s.File != "" {
		parts = append(parts, "declared at "+r.fileRef(s.File, s.Line))
	}
	if len(parts) == 0 {
		return "not located in the repository"
	}
	return strings.Join(parts, ", ")
}

// producer renders the producer, with the candidates when it is ambiguous.
func (r *renderer) producer(b *strings.Builder, p causal.Producer) {
	if p.File == "" {
		switch cat := r.d.Chain.Mechanism.Category; {
		case r.regression():
			b.WriteString("- **Producer:** none in the harness; the failure comes from the change at " + r.commitRef(r.d.Verdict.FirstBadSHA) + "\n")
		case cat == causal.TestFailure || cat == causal.BuildFailure:
			b.WriteString("- **Producer:** none in the harness; the fix belongs in the code or the test that failed\n")
		default:
			b.WriteString("- **Producer:** not found in the harness\n")
		}
		return
	}
	b.WriteString("- **Producer:** " + r.producerRef(p) + "\n")
	if !p.Ambiguous || len(p.Candidates) == 0 {
		return
	}
	r.locations(b, "candidate ", p.Candidates)
}

// blast renders the blast radius and the other callers.
func (r *renderer) blast(b *strings.Builder, br causal.BlastRadius) {
	if br.Summary == "" && len(br.Callers) == 0 {
		return
	}
	b.WriteString("- **Blast radius:** " + r.p(br.Summary) + "\n")
	r.locations(b, "also called from ", br.Callers)
}

// locations lists places as sub-items, each as lead, a link and its
// symbol, up to the level's limit.
func (r *renderer) locations(b *strings.Builder, lead string, ls []causal.Location) {
	left := r.each(len(ls), func(i int) {
		l := ls[i]
		b.WriteString("  - " + lead + r.fileRef(l.File, l.Line))
		if l.Symbol != "" {
			b.WriteString(" " + r.c(l.Symbol))
		}
		b.WriteString("\n")
	})
	if left > 0 {
		fmt.Fprintf(b, "  - … and %d more\n", left)
	}
}

// evidence lists the cited facts, trimmed to the level's limit.
func (r *renderer) evidence(b *strings.Builder, es []causal.Evidence) {
	if len(es) == 0 {
		b.WriteString("  - none was recorded\n")
		return
	}
	for i, e := range es {
		if i == r.lim.evidence {
			left := len(es) - i
			r.cut.evidence += left
			fmt.Fprintf(b, "  - … and %d more %s\n", left, plural(left, "entry", "entries"))
			return
		}
		b.WriteString("  - " + r.evidenceEntry(e) + "\n")
	}
}

// evidenceEntry renders one cited fact: its id, where it is, the quoted
// text and the note.
func (r *renderer) evidenceEntry(e causal.Evidence) string {
	var s string
	if e.ID != "" {
		s = "**" + r.t(e.ID) + "** "
	}
	switch e.Kind {
	case causal.EvidenceFile:
		s += r.fileRef(e.File, e.Line) + ": " + r.c(e.Text)
	case causal.EvidenceLog:
		s += r.logRef(e.RunID, e.JobID, e.Line) + ": " + r.c(e.Text)
	default:
		s += r.p(e.Text)
	}
	if e.Note != "" {
		s += " (" + r.p(e.Note) + ")"
	}
	return s
}

// logRef renders "run R, job J, line N" linked to the line in GitHub's job
// view when the step is known.
func (r *renderer) logRef(run, job int64, line int) string {
	if run == 0 {
		run = r.d.Run.ID
	}
	label := fmt.Sprintf("run %d, job %d, log line %d", run, job, line)
	if run == r.d.Run.ID {
		label = fmt.Sprintf("log line %d", line)
		if job != r.d.Failure.Job.ID {
			label = fmt.Sprintf("job %d, log line %d", job, line)
		}
	}
	step, at := r.stepLine(job, line)
	return link(label, r.ln.job(run, job, step, at))
}

// stepLine maps a raw log line to GitHub's step number and line within the
// step. Without a step table, a line of the failing job maps to the start
// of the failing step, and other jobs get no anchor.
func (r *renderer) stepLine(job int64, line int) (step, at int) {
	best := LogStep{}
	for _, s := range r.logSteps() {
		if s.JobID == job && s.FirstLine <= line && s.FirstLine > best.FirstLine {
			best = s
		}
	}
	if best.Number > 0 {
		return best.Number, line - best.FirstLine + 1
	}
	if job == r.d.Failure.Job.ID && r.d.Failure.Step.Number > 0 {
		return r.d.Failure.Step.Number, 1
	}
	return 0, 0
}

// logSteps is opts.LogSteps, or else the failing job's step table that the
// diagnosis carries.
func (r *renderer) logSteps() []LogStep {
	if len(r.opts.LogSteps) > 0 {
		return r.opts.LogSteps
	}
	var out []LogStep
	for _, s := range r.d.Failure.StepLines {
		if s.Step.Number > 0 && s.First > 0 && !s.Post {
			out = append(out, LogStep{JobID: r.d.Failure.Job.ID, Number: s.Step.Number, FirstLine: s.First})
		}
	}
	return out
}

// failureLines lists the trigger's cause lines as log citations.
func (r *renderer) failureLines(b *strings.Builder) {
	f := r.d.Failure
	if f.Unknown || len(f.Lines) == 0 {
		b.WriteString("- the failing job's log could not be read, so no line is cited\n\n")
		return
	}
	var es []causal.Evidence
	for _, l := range f.Lines {
		es = append(es, causal.Evidence{Kind: causal.EvidenceLog, RunID: r.d.Run.ID, JobID: f.Job.ID, Line: l.N, Text: l.Text, Note: l.Role})
	}
	for i, e := range es {
		if i == r.lim.evidence {
			r.cut.evidence += len(es) - i
			fmt.Fprintf(b, "- … and %d more\n", len(es)-i)
			break
		}
		b.WriteString("- " + r.evidenceEntry(e) + "\n")
	}
	b.WriteString("\n")
}

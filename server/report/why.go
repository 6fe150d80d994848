package report

import (
	"fmt"
	"strings"

	"github.com/polylane/polylane/analysis/history"
)

// why is the "Why this fix" section: the class counts, the other classes of
// the window, the verdict's reason and the patch's rationale. Without a
// patch it says why there is none; for a regression it points at where the
// failure started.
func (r *renderer) why(b *strings.Builder) {
	switch {
	case r.regression():
		b.WriteString("#### Where it started\n\n")
		r.started(b)
	case r.d.Patch != nil:
		b.WriteString("#### Why this fix\n\n")
	default:
		b.WriteString("#### Why there is no fix\n\n")
	}
	r.classCounts(b)
	r.otherClasses(b)
	if reason := r.d.Verdict.Reason; reason != "" {
		b.WriteString("Verdict " + r.c(r.d.Verdict.Kind) + fmt.Sprintf(" (confidence %.2f): ", r.d.Verdict.Confidence) + r.p(reason) + "\n\n")
	}
	if r.narrated(b, r.opts.NarratedWhyFix) {
		return
	}
	switch p := r.d.Patch; {
	case p != nil && p.Rationale != "":
		b.WriteString(r.p(p.Rationale) + "\n\n")
	case p == nil && !r.regression():
		b.WriteString(r.noPatchReason() + "\n\n")
	case p == nil && r.outgrownLimit():
		b.WriteString(r.p(r.d.WhyThisFix) + "\n\n")
	}
}

// outgrownLimit reports a regression whose diagnosis names the harness
// limit the change outgrew (a runner's memory, a wait's bound) rather
// than only the change.
func (r *renderer) outgrownLimit() bool {
	w := r.d.WhyThisFix
	return w != "" && !strings.HasPrefix(w, "This is a regression in the code under test")
}

// noPatchReason says honestly why no patch is offered.
func (r *renderer) noPatchReason() string {
	switch c := r.d.Chain; {
	case c == nil:
		return "The causal stage has not run, so Polylane has no mechanism to fix yet."
	case !known(c):
		return "Without a known mechanism Polylane proposes no change: a guess at the harness could hide a real failure."
	default:
		// the causal stage's own reason: which recipe refused and why
		if w := strings.TrimSpace(r.d.WhyThisFix); w != "" {
			return r.p(w)
		}
		return "Polylane has no safe harness change for this mechanism here; the chain below says where to look."
	}
}

// started points at the first bad commit and the run that failed first.
func (r *renderer) started(b *strings.Builder) {
	d := r.d
	b.WriteString("The failure started at " + r.commitRef(d.Verdict.FirstBadSHA))
	if c := r.cls; c != nil && len(c.Runs) > 0 {
		first := c.Runs[len(c.Runs)-1]
		fmt.Fprintf(b, "; the first run that failed this way was %s on %s", r.runRef(first, 0), r.c(c.FirstSeen.UTC().Format("2006-01-02 15:04 MST")))
	}
	if v := d.Verdict; v.LastGoodSHA != "" && v.FirstBadSHA != nil {
		good := v.LastGoodSHA
		fmt.Fprintf(b, ". The %d %s before it did not get to the step, so the cause is one of %s after the last green %s",
			v.UntestedRuns, plural(v.UntestedRuns, "run", "runs"), link("the commits", r.ln.compare(good, *v.FirstBadSHA)), r.commitRef(&good))
		r.rangeTouching(b)
	}
	if r.outgrownLimit() {
		b.WriteString(". Every run of the step since then has failed the same way.\n\n") // the note below names the limit
		return
	}
	b.WriteString(". Every run of the step since then has failed the same way. A harness retry would only hide it, so the fix belongs in the change that introduced it.\n\n")
}

// maxTouching bounds the commits of a range the comment names.
const maxTouching = 5

// rangeTouching names the commits of the first bad range that changed what
// the failing step builds or tests, with the files they changed.
func (r *renderer) rangeTouching(b *strings.Builder) {
	fr := r.d.FirstBadRange
	if fr == nil {
		return
	}
	n := fr.Commits
	switch t := fr.Touching; {
	case len(t) == 0 && fr.Unchecked > 0:
		fmt.Fprintf(b, "; none of the first %d of those %d commits changed a file the step builds or tests", n-fr.Unchecked, n)
		return
	case len(t) == 0:
		fmt.Fprintf(b, "; none of those %d %s changed a file the step builds or tests", n, plural(n, "commit", "commits"))
		return
	case len(t) == n:
		fmt.Fprintf(b, "; every one of those %d %s changed what the step builds or tests: ", n, plural(n, "commit", "commits"))
	case len(t) == 1:
		fmt.Fprintf(b, "; of those %d %s, only one changed what the step builds or tests: ", n, plural(n, "commit", "commits"))
	default:
		fmt.Fprintf(b, "; of those %d %s, %d changed what the step builds or tests: ", n, plural(n, "commit", "commits"), len(t))
	}
	var parts []string
	for i, c := range fr.Touching {
		if i == maxTouching {
			parts = append(parts, fmt.Sprintf("and %d more", len(fr.Touching)-i))
			break
		}
		sha := c.SHA
		files := make([]string, 0, 3)
		for j, f := range c.Files {
			if j == 3 {
				files = append(files, "…")
				break
			}
			files = append(files, r.c(f))
		}
		part := r.commitRef(&sha)
		if c.Message != "" {
			part += " " + r.p("(“"+c.Message+"”)")
		}
		parts = append(parts, part+", which changed "+strings.Join(files, ", "))
	}
	b.WriteString(strings.Join(parts, "; "))
	if fr.Unchecked > 0 {
		fmt.Fprintf(b, " (the files of %d later %s were not read)", fr.Unchecked, plural(fr.Unchecked, "commit", "commits"))
	}
}

// classCounts says how often the trigger's class failed in the window.
func (r *renderer) classCounts(b *strings.Builder) {
	d, c := r.d, r.cls
	if c == nil {
		fmt.Fprintf(b, "The failure belongs to no class of the window (%d runs on %s, %d failed).\n\n", d.Window.Runs, r.c(d.Window.Branch), d.Window.Failed)
		return
	}
	fmt.Fprintf(b, "This class (%s) failed %d of the last %d %s runs of %s, each time %s",
		r.c(c.ID), c.Count, d.Window.Runs, r.c(d.Window.Branch), r.t(r.workflow()), r.inStep(c.Step))
	if c.Job != "" {
		b.WriteString(" of job " + r.c(c.Job))
	}
	fmt.Fprintf(b, ", between %s and %s", c.FirstSeen.UTC().Format("2006-01-02"), c.LastSeen.UTC().Format("2006-01-02"))
	if c.Pattern != "" {
		b.WriteString(" (" + r.t(c.Pattern) + ")")
	}
	b.WriteString(".")
	if len(c.Endpoints) > 0 {
		b.WriteString(" The failures name " + r.codeList(c.Endpoints) + ".")
	}
	r.wordings(b, c.Wordings)
	if fr := d.FailureRate; fr.Runs > 0 {
		fmt.Fprintf(b, " The step's failure rate over the window is %.1f%% (%d of %d runs; 95%% interval %.1f–%.1f%%).",
			100*fr.Rate, fr.Failures, fr.Runs, 100*fr.Low, 100*fr.High)
	}
	if d.Cadence != "" {
		b.WriteString(" Cadence: " + r.p(d.Cadence) + ".")
	}
	b.WriteString("\n\n")
}

// maxWordings bounds the wordings of a class the comment lists.
const maxWordings = 5

// wordings lists the wordings of a class of one cause and the runs of each;
// they add up to the class's count.
func (r *renderer) wordings(b *strings.Builder, ws []history.Wording) {
	if len(ws) < 2 {
		return
	}
	parts := make([]string, 0, min(len(ws), maxWordings)+1)
	for i, w := range ws {
		if i == maxWordings {
			parts = append(parts, fmt.Sprintf("%d more", len(ws)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%d %s)", r.c(w.Signature), w.Runs, plural(w.Runs, "run", "runs")))
	}
	fmt.Fprintf(b, " One cause in %d wordings: %s.", len(ws), strings.Join(parts, ", "))
}

// otherClasses names the window's other classes as separate failures.
func (r *renderer) otherClasses(b *strings.Builder) {
	var others []history.Class
	for _, c := range r.d.Clusters {
		if r.cls == nil || c.ID != r.cls.ID {
			others = append(others, c)
		}
	}
	w := r.d.Window
	if len(others) == 0 {
		fmt.Fprintf(b, "No other failure class appears in the window (%d of %d runs failed).\n\n", w.Failed, w.Runs)
		return
	}
	runs := 0
	for _, c := range others {
		runs += c.Count
	}
	fmt.Fprintf(b, "The window's other failures (%d %s) are separate classes with their own causes:\n\n", runs, plural(runs, "run", "runs"))
	r.each(len(others), func(i int) {
		c := others[i]
		if c.Step == "" {
			fmt.Fprintf(b, "- %d %s %s: %s\n", c.Count, plural(c.Count, "run", "runs"), r.inStep(c.Step), r.c(c.Signature))
			return
		}
		fmt.Fprintf(b, "- %d in step %s: %s", c.Count, r.t(c.Step), r.c(c.Signature))
		if r.cls != nil && c.Step == r.cls.Step {
			b.WriteString(" (same step, different cause)")
		}
		b.WriteString("\n")
	})
	if left := len(others) - r.lim.list; left > 0 {
		fmt.Fprintf(b, "- … and %d more %s\n", left, plural(left, "class", "classes"))
	}
	if w.Unknown > 0 {
		fmt.Fprintf(b, "- %d failed %s could not be read (jobs or log missing)\n", w.Unknown, plural(w.Unknown, "run", "runs"))
	}
	b.WriteString("\n")
}

// codeList renders at most the list limit of values as code spans.
func (r *renderer) codeList(vs []string) string {
	return r.codeListN(vs, r.lim.list)
}

// codeListN renders at most n values as code spans and counts the rest.
func (r *renderer) codeListN(vs []string, n int) string {
	var parts []string
	for i := 0; i < len(vs) && i < n; i++ {
		parts = append(parts, r.c(vs[i]))
	}
	if left := len(vs) - n; left > 0 {
		parts = append(parts, fmt.Sprintf("%d more", left))
	}
	return strings.Join(parts, ", ")
}

package report

import (
	"errors"
	"fmt"
	"strings"

	"github.com/polylane/polylane/analysis/redact"
	"github.com/polylane/polylane/causal/diagnosis"
)

// Comment renders the assessment comment for a pull request in
// GitHub-flavoured markdown. Its first line is the hidden marker of kind
// KindAssessment. Text from logs, repository files, branch names and
// commit messages is escaped, and the result is always shorter than
// MaxChars: parts are left out, with a visible note, until it fits.
func Comment(d *diagnosis.Diagnosis, opts Options) (string, error) {
	if opts.Muted {
		out, err := render(d, opts, KindAssessment, []section{(*renderer).muted, (*renderer).footer})
		return out, wrap("render muted comment", err)
	}
	out, err := render(d, opts, KindAssessment, assessmentParts(false))
	return out, wrap("render assessment comment", err)
}

// PullRequest renders the title and body of the fix pull request: the
// assessment under a marker of kind KindFixPR. It fails when the diagnosis
// has no patch.
func PullRequest(d *diagnosis.Diagnosis, opts Options) (title, body string, err error) {
	if d == nil || d.Patch == nil {
		return "", "", errors.New("render fix pull request: the diagnosis has no patch")
	}
	title = plain("Polylane: "+redact.String(d.Patch.Title), 120)
	intro := func(r *renderer, b *strings.Builder) {
		b.WriteString("Polylane opened this pull request to fix a recurring CI failure. Review the change and the assessment below; nothing here has been merged or deployed.\n\n")
	}
	parts := append([]section{intro}, assessmentParts(true)...)
	body, err = render(d, opts, KindFixPR, parts)
	if err != nil {
		return "", "", fmt.Errorf("render fix pull request: %w", err)
	}
	return title, body, nil
}

// RegressionComment renders the comment for the pull request that
// introduced the first bad commit of a regression (or, when there is no
// such pull request, for the commit itself).
func RegressionComment(d *diagnosis.Diagnosis, opts Options) (string, error) {
	if d == nil || d.Verdict.FirstBadSHA == nil || *d.Verdict.FirstBadSHA == "" {
		return "", errors.New("render regression comment: the diagnosis names no first bad commit")
	}
	parts := []section{(*renderer).regressionIntro, (*renderer).flowchartBlock, (*renderer).why, (*renderer).causalChain, (*renderer).footer}
	out, err := render(d, opts, KindRegression, parts)
	return out, wrap("render regression comment", err)
}

// assessmentParts are the sections of the assessment, in order.
func assessmentParts(inBody bool) []section {
	return []section{
		(*renderer).summary,
		(*renderer).flowchartBlock,
		(*renderer).why,
		(*renderer).production,
		(*renderer).observability,
		(*renderer).assessed,
		(*renderer).causalChain,
		func(r *renderer, b *strings.Builder) { r.fix(b, inBody) },
		(*renderer).lint,
		(*renderer).verification,
		(*renderer).notAnalysed,
		(*renderer).footer,
	}
}

func wrap(what string, err error) error {
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// flowchartBlock renders the chart in a mermaid fence.
func (r *renderer) flowchartBlock(b *strings.Builder) {
	b.WriteString("```mermaid\n" + r.flowchart() + "```\n\n")
}

// regressionIntro opens the regression comment.
func (r *renderer) regressionIntro(b *strings.Builder) {
	d := r.d
	fmt.Fprintf(b, "### Polylane: %s started failing at this change\n\n", r.t(r.workflow()))
	fmt.Fprintf(b, "Since %s, step %s of %s on %s has failed in every run",
		r.commitRef(d.Verdict.FirstBadSHA), r.t(d.Failure.Step.Name), r.t(r.workflow()), r.c(d.Run.Branch))
	if c := r.cls; c != nil {
		fmt.Fprintf(b, " (%d %s so far)", c.Count, plural(c.Count, "run", "runs"))
	}
	b.WriteString(", most recently in " + r.runRef(d.Run.ID, d.Run.Number))
	if l, ok := r.causeLine(); ok && !d.Failure.Unknown {
		b.WriteString(" with " + code(clipTail(clean(l.Text), min(r.lim.text, 160)), 0))
	}
	b.WriteString(". Polylane proposes no harness patch for a regression: please look at what this change did to that step.\n\n")
}

// muted is the short form for a muted class.
func (r *renderer) muted(b *strings.Builder) {
	d := r.d
	fmt.Fprintf(b, "### Polylane: %s failed in %s (muted class)\n\n", r.t(r.workflow()), r.t(d.Failure.Step.Name))
	class := d.TriggerClass
	b.WriteString("The failure class " + r.c(class) + " is muted")
	if r.opts.MuteReason != "" {
		b.WriteString(" (" + r.t(r.opts.MuteReason) + ")")
	}
	fmt.Fprintf(b, ", so Polylane only records that %s failed the same way", r.runRef(d.Run.ID, d.Run.Number))
	if c := r.cls; c != nil && d.Window.Runs > 0 {
		fmt.Fprintf(b, " (%d of the last %d runs on %s)", c.Count, d.Window.Runs, r.c(d.Window.Branch))
	}
	b.WriteString(". Unmute it with " + code("@"+r.opts.handle()+" unmute "+class, 120) + " to get the full assessment back.\n\n")
}

// minimal is the last-resort body when no level fits: what failed, and
// where the full diagnosis is.
func (r *renderer) minimal() string {
	var b strings.Builder
	d := r.d
	fmt.Fprintf(&b, "### Polylane: %s failed\n\n", text(r.workflow(), 80))
	fmt.Fprintf(&b, "%s failed in step %s. The assessment is too large for a GitHub comment even when shortened", escapeText(fmt.Sprintf("Run #%d", d.Run.Number)), text(d.Failure.Step.Name, 80))
	if u := safeURL(r.opts.DashboardURL); u != "" {
		b.WriteString("; read it on the " + link("dashboard", u))
	}
	b.WriteString(".\n")
	return b.String()
}

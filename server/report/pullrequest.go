package report

import (
	"fmt"
	"strings"

	"github.com/polylane/polylane/causal/diagnosis"
)

// pullRequestLine leads the comment on a pull-request run with what its
// author asks first: is this my change? It gives the classification and
// its evidence, linked.
func (r *renderer) pullRequestLine(b *strings.Builder) {
	pr := r.d.PullRequest
	if pr == nil {
		return
	}
	span := pr.Span()
	switch pr.Classification {
	case diagnosis.PRFlaky:
		fmt.Fprintf(b, "**Not caused by this pull request:** the same failure hit %s %s (%s), with green runs in between: it is flaky.",
			pr.Elsewhere(r.c), span, r.examples(pr))
	case diagnosis.PRBrokenBase:
		fmt.Fprintf(b, "**Not caused by this pull request:** %s fails this way right now", r.c(pr.Base))
		if f := pr.BaseFirstBad; f != nil {
			b.WriteString(r.baseBreak(f))
		}
		fmt.Fprintf(b, "; the same failure hit %s %s (%s). This pull request inherits it from its base.", pr.Elsewhere(r.c), span, r.examples(pr))
	case diagnosis.PRNew:
		fmt.Fprintf(b, "**Most likely caused by this pull request:** none of the %d other %s of this workflow on %s and in other pull requests %s failed this way.",
			pr.Compared, plural(pr.Compared, "run", "runs"), r.c(pr.Base), span)
		if f := pr.FirstFailing; f != nil {
			sha := f.SHA
			fmt.Fprintf(b, " It first failed at %s (%s).", r.commitRef(&sha), link("run", r.ln.run(f.RunID)))
		}
		b.WriteString(" Polylane proposes no harness patch: look at what this change did to the step.")
	default:
		fmt.Fprintf(b, "**Not known yet whether this pull request caused the failure:** only %d other %s of this workflow, on %s or in other pull requests, %s to compare with, and none failed this way.",
			pr.Compared, plural(pr.Compared, "run", "runs"), r.c(pr.Base), span)
	}
	b.WriteString("\n\n")
}

// baseBreak says where the base started to fail: its first red commit, the
// pull request that merged it, and the range when cancelled runs hide the
// exact commit.
func (r *renderer) baseBreak(f *diagnosis.BaseBreak) string {
	sha := f.SHA
	s := " since " + r.commitRef(&sha)
	if f.PullRequest > 0 {
		s += " (merged in " + link(escapeText(fmt.Sprintf("#%d", f.PullRequest)), r.ln.pull(f.PullRequest)) + ")"
	}
	if f.LastGoodSHA != "" {
		good := f.LastGoodSHA
		s += fmt.Sprintf(", or one between it and the last green %s: %d cancelled %s in between tested nothing",
			r.commitRef(&good), f.Cancelled, plural(f.Cancelled, "run", "runs"))
	}
	return s
}

// examples links the runs elsewhere that failed the same way: "#40" for
// another pull request, the branch and day ("main Nov 12") for the base or
// a fork's pull request.
func (r *renderer) examples(pr *diagnosis.PullRequest) string {
	var parts []string
	for _, ex := range pr.Examples {
		label := escapeText(ex.Branch + " " + ex.CreatedAt.UTC().Format("Jan 2"))
		if ex.PullRequest > 0 {
			label = escapeText(fmt.Sprintf("#%d", ex.PullRequest))
		}
		parts = append(parts, link(orEmpty(label), r.ln.run(ex.RunID)))
	}
	if len(parts) == 0 {
		return "no run listed"
	}
	return strings.Join(parts, ", ")
}

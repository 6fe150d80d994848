package report

import (
	"fmt"
	"strings"

	"github.com/polylane/polylane/causal/diagnosis"
)

// KindExplain labels the answer to "@polylane explain".
const KindExplain = "explain"

// explainLevels keep every piece of evidence while the text fits, and
// shorten quoted lines before they leave evidence out.
var explainLevels = []limits{
	{evidence: 1 << 20, text: 1200, list: 1000, label: 80},
	{evidence: 1 << 20, text: 240, list: 200, label: 60},
	{evidence: 1 << 20, text: 100, list: 50, label: 40},
	{evidence: 200, text: 100, list: 20, label: 40},
	{evidence: 40, text: 80, list: 10, label: 40},
}

// Explain renders the answer to "@polylane explain": the whole causal
// chain of the diagnosis with every piece of evidence it cites and the
// lines of the failing job's log that state the cause, each linked to
// GitHub. Untrusted text is escaped as in Comment, and the result is
// shorter than MaxChars (quoted lines are shortened first, evidence is
// left out last, each with a visible note). It has no hidden marker: the
// caller labels its reply.
func Explain(d *diagnosis.Diagnosis, opts Options) (string, error) {
	parts := []section{(*renderer).explainIntro, (*renderer).causalChain, (*renderer).explainLines}
	out, err := renderAt(d, opts, KindExplain, parts, explainLevels)
	if err != nil {
		return "", fmt.Errorf("render explanation: %w", err)
	}
	_, body, _ := strings.Cut(out, "\n") // the marker line
	return body, nil
}

// explainIntro says which diagnosis is explained.
func (r *renderer) explainIntro(b *strings.Builder) {
	d := r.d
	fmt.Fprintf(b, "### Polylane: how %s failed in %s\n\n", r.t(r.workflow()), r.t(d.Failure.Step.Name))
	fmt.Fprintf(b, "The diagnosis of %s on %s (commit %s), verdict %s. ", r.runRef(d.Run.ID, d.Run.Number), r.c(d.Run.Branch),
		r.shortSHA(d.Run.HeadSHA), r.c(orUnknown(d.Verdict.Kind)))
	b.WriteString(r.mechanismSentence() + "\n\n")
}

// explainLines lists the cause lines of the failing job's log.
func (r *renderer) explainLines(b *strings.Builder) {
	b.WriteString("#### Cause lines in the log\n\n")
	r.failureLines(b)
}

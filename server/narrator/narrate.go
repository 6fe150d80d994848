package narrator

import (
	"context"
	"errors"
	"fmt"

	"github.com/polylane/polylane/causal/diagnosis"
)

// Wording is the narrated text of a diagnosis: the summary paragraph and
// the "why this fix" paragraph. Both are plain text in which backticks
// delimit code; render them with Markdown before showing them.
type Wording struct {
	Summary string
	WhyFix  string
}

// Markdown renders both paragraphs as inert markdown (see Markdown).
func (w Wording) Markdown(d *diagnosis.Diagnosis) (summary, whyFix string) {
	g := newGrounds(d)
	return markdown(g, w.Summary), markdown(g, w.WhyFix)
}

// Answer is the answer to a follow-up question.
type Answer struct {
	// Text is plain text in which backticks delimit code and lines that
	// start with "- " are list items; render it with Markdown.
	Text string
	// Cited lists the evidence ids the answer cites, in order of first use.
	Cited []string
	// Grounded is set when the answer rests on cited evidence, and unset
	// when it says that the answer is not known from the evidence.
	Grounded bool
	// Narrated is set when a model wrote the answer, unset for the
	// deterministic answer.
	Narrated bool
}

// Markdown renders the answer as inert markdown (see Markdown).
func (a Answer) Markdown(d *diagnosis.Diagnosis) string { return Markdown(d, a.Text) }

// Narrate asks the model to word the summary and "why this fix" paragraphs
// of d, and validates the reply with ValidateWording. On any error
// (ErrDisabled, ErrBudgetExhausted, ErrTimeout, a Rejection matching
// ErrRejected, or a transport error) the caller shows its deterministic
// text; nothing else changes. The call returns within the configured
// timeout, plus the time to build and check the text.
func (n *Narrator) Narrate(ctx context.Context, d *diagnosis.Diagnosis, opts Options) (Wording, error) {
	if n == nil {
		return Wording{}, ErrDisabled
	}
	if d == nil {
		return Wording{}, errors.New("narrate: no diagnosis")
	}
	p, err := wordingPrompt(d, opts)
	if err != nil {
		return Wording{}, fmt.Errorf("narrate run %d: %w", d.Run.ID, err)
	}
	reply, err := n.complete(ctx, p, opts)
	if err != nil {
		return Wording{}, fmt.Errorf("narrate run %d: %w", d.Run.ID, err)
	}
	w, err := parseWording(reply)
	if err == nil {
		err = ValidateWording(d, w)
	}
	if err != nil {
		n.outcome(KindWording, OutcomeRejected)
		return Wording{}, fmt.Errorf("narrate run %d: %w", d.Run.ID, err)
	}
	n.outcome(KindWording, OutcomeOK)
	return w, nil
}

// Answer answers a follow-up question about d. The question is untrusted:
// it reaches the model only as quoted data. The reply is validated with
// ValidateAnswer. The returned Answer is always ready to post: when the
// model is disabled, over budget, slow, failing or its reply is rejected,
// it is DeterministicAnswer(d, question) and the error says why.
func (n *Narrator) Answer(ctx context.Context, d *diagnosis.Diagnosis, question string, opts Options) (Answer, error) {
	det := DeterministicAnswer(d, question)
	if n == nil {
		return det, ErrDisabled
	}
	if d == nil {
		return det, errors.New("answer: no diagnosis")
	}
	p, err := answerPrompt(d, question, opts)
	if err != nil {
		return det, fmt.Errorf("answer about run %d: %w", d.Run.ID, err)
	}
	reply, err := n.complete(ctx, p, opts)
	if err != nil {
		return det, fmt.Errorf("answer about run %d: %w", d.Run.ID, err)
	}
	text := parseAnswer(reply)
	cited, err := ValidateAnswer(d, text)
	if err != nil {
		n.outcome(KindAnswer, OutcomeRejected)
		return det, fmt.Errorf("answer about run %d: %w", d.Run.ID, err)
	}
	n.outcome(KindAnswer, OutcomeOK)
	return Answer{Text: text, Cited: cited, Grounded: len(cited) > 0, Narrated: true}, nil
}

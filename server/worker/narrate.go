package worker

import (
	"context"

	"github.com/rs/zerolog"

	"github.com/polylane/polylane/server/narrator"
	"github.com/polylane/polylane/server/report"
)

// narrate asks the narrator to word the comment's summary and "why this
// fix" paragraphs when the server has one and the repository opted in
// (llm.enabled on its default branch). The narrator returns within its
// timeout; on any failure, rejection included, the comment keeps
// Polylane's own text and nothing else changes.
func (w *Worker) narrate(ctx context.Context, pub *published, opts *report.Options) {
	if w.opts.Narrator == nil || !pub.set.LLM || opts.Muted {
		return
	}
	wording, err := w.opts.Narrator.Narrate(ctx, pub.doc, narrator.Options{InstallationID: pub.inst, IncludeLogs: pub.set.LLMLogs})
	if err != nil {
		zerolog.Ctx(ctx).Info().Err(err).Msg("narrator: Polylane's own wording is used")
		return
	}
	opts.NarratedSummary, opts.NarratedWhyFix = wording.Markdown(pub.doc)
}

// answer answers an "@polylane why" question from a diagnosis: with the
// narrator when the server has one and the repository opted in, else (and
// whenever the narrator fails) with the deterministic answer. The answer is
// text to post; nothing in it is acted on.
func (w *Worker) answer(ctx context.Context, pub *published, question string) narrator.Answer {
	if w.opts.Narrator == nil || !pub.set.LLM {
		return narrator.DeterministicAnswer(pub.doc, question)
	}
	a, err := w.opts.Narrator.Answer(ctx, pub.doc, question, narrator.Options{InstallationID: pub.inst, IncludeLogs: pub.set.LLMLogs})
	if err != nil {
		zerolog.Ctx(ctx).Info().Err(err).Msg("narrator: the deterministic answer is used")
	}
	return a
}

package diagnosis

import (
	"encoding/json"
	"slices"
	"unsafe"

	"github.com/polylane/polylane/analysis"
	"github.com/polylane/polylane/analysis/history"
	"github.com/polylane/polylane/analysis/redact"
	"github.com/polylane/polylane/causal"
)

// RedactSecrets removes, in place, every secret that the redaction table
// (analysis/redact) recognises from the document's text that can quote a
// job log: the failure's lines and signature, the classes' signatures and
// members, the chain's summaries and log evidence, the summary
// paragraphs, the verdict's reason and the patch's title and rationale.
// The patch's diff, which comes from repository files and must still
// apply, and file evidence are left alone. Secrets found on lines of the
// trigger's job log are added to RedactedSecrets. It is the last pass
// over a document (the pipeline redacts log lines where it keeps them) and
// reports whether it changed anything.
func (d *Diagnosis) RedactSecrets() bool {
	changed := false
	d.walkText(func(s *string, line int) {
		out, kinds := redact.Line(*s)
		if len(kinds) == 0 {
			return
		}
		*s, changed = out, true
		if line > 0 {
			d.noteSecrets(kinds, line)
		}
	})
	return changed
}

// Redacted returns d when its text holds no secret, else a redacted copy;
// d itself is never changed. Renderers call it on documents that may have
// been stored before the pipeline redacted them.
func (d *Diagnosis) Redacted() *Diagnosis {
	found := false
	// A document built in memory shares strings between its fields (the
	// same line as a cause line, evidence and class sample): each backing
	// string is scanned once.
	type text struct {
		data *byte
		n    int
	}
	scanned := map[text]bool{}
	d.walkText(func(s *string, _ int) {
		k := text{unsafe.StringData(*s), len(*s)}
		if found || scanned[k] {
			return
		}
		scanned[k] = true
		found = redact.Contains(*s)
	})
	if !found {
		return d
	}
	c := &Diagnosis{}
	if data, err := json.Marshal(d); err == nil && json.Unmarshal(data, c) == nil {
		c.RedactSecrets()
		return c
	}
	// a document that does not survive a round trip is redacted in place
	// rather than shown with its secrets
	d.RedactSecrets()
	return d
}

// noteSecrets records secrets removed from line n of the trigger's log.
func (d *Diagnosis) noteSecrets(kinds []string, n int) {
	for _, k := range kinds {
		d.RedactedSecrets = redact.AddSecret(d.RedactedSecrets, redact.Secret{Kind: k, Line: n})
	}
	slices.SortStableFunc(d.RedactedSecrets, func(a, b redact.Secret) int { return a.Line - b.Line })
}

// walkText calls visit on every string of the document that can quote a
// job log, with the trigger-log line it comes from (0 when none).
func (d *Diagnosis) walkText(visit func(s *string, line int)) {
	for i := range d.Failure.Lines {
		visit(&d.Failure.Lines[i].Text, d.Failure.Lines[i].N)
	}
	visit(&d.Failure.Signature, 0)
	for i := range d.Clusters {
		c := &d.Clusters[i]
		visit(&c.Signature, 0)
		for j := range c.Members {
			visit(&c.Members[j], 0)
		}
		for j := range c.Wordings {
			visit(&c.Wordings[j].Signature, 0)
		}
	}
	for _, s := range []*string{&d.Summary, &d.WhyThisFix, &d.Cadence, &d.Verdict.Reason} {
		visit(s, 0)
	}
	if p := d.Patch; p != nil {
		visit(&p.Title, 0)
		visit(&p.Rationale, 0)
	}
	if ch := d.Chain; ch != nil {
		d.walkChain(ch, visit)
	}
}

// walkChain visits the chain's summaries and log evidence.
func (d *Diagnosis) walkChain(ch *causal.Chain, visit func(s *string, line int)) {
	for _, s := range []*string{&ch.Signal, &ch.Mechanism.Summary, &ch.FailedUnitToday.Summary, &ch.BlastRadius.Summary, &ch.Cadence} {
		visit(s, 0)
	}
	for i := range ch.Evidence {
		e := &ch.Evidence[i]
		if e.Kind == causal.EvidenceFile {
			continue
		}
		line := 0
		if e.Kind == causal.EvidenceLog && e.RunID == d.Run.ID && e.JobID == d.Failure.Job.ID {
			line = e.Line
		}
		visit(&e.Text, line)
		visit(&e.Note, 0)
	}
}

// redactOccurrences returns occs, or a copy when one of them held a
// secret in its lines, signature or command; a changed signature gets its
// id again, so that occurrences stored before redaction cluster with new
// ones.
func redactOccurrences(occs []history.Occurrence) []history.Occurrence {
	var out []history.Occurrence
	for i, o := range occs {
		changed := false
		lines := slices.Clone(o.Lines)
		for j := range lines {
			changed = redactField(&lines[j].Text) || changed
		}
		o.Lines = lines
		if redactField(&o.Signature) {
			o.SignatureID, changed = analysis.SignatureID(o.Signature), true
		}
		changed = redactField(&o.Command) || changed
		if !changed {
			continue
		}
		if out == nil {
			out = slices.Clone(occs)
		}
		out[i] = o
	}
	if out == nil {
		return occs
	}
	return out
}

// redactClasses returns classes, or a copy when a signature or member held
// a secret.
func redactClasses(classes []history.Class) []history.Class {
	var out []history.Class
	for i, c := range classes {
		changed := redactField(&c.Signature)
		members := slices.Clone(c.Members)
		for j := range members {
			changed = redactField(&members[j]) || changed
		}
		wordings := slices.Clone(c.Wordings)
		for j := range wordings {
			changed = redactField(&wordings[j].Signature) || changed
		}
		if !changed {
			continue
		}
		c.Members, c.Wordings = members, wordings
		if out == nil {
			out = slices.Clone(classes)
		}
		out[i] = c
	}
	if out == nil {
		return classes
	}
	return out
}

// redactField redacts *s and reports whether it changed.
func redactField(s *string) bool {
	out := redact.String(*s)
	if out == *s {
		return false
	}
	*s = out
	return true
}

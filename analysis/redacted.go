package analysis

import "github.com/polylane/polylane/analysis/redact"

// redactRetained removes secrets from what the result keeps of the log:
// its lines, the echoed command and the test name, and records the kind
// and line of each. Only these few retained lines pay for the redaction
// table, never the whole log.
func (r *Result) redactRetained() {
	for i := range r.Lines {
		l := &r.Lines[i]
		var kinds []string
		l.Text, kinds = redact.Line(l.Text)
		r.noteRedacted(kinds, l.N)
	}
	var kinds []string
	r.Command, kinds = redact.Line(r.Command)
	r.noteRedacted(kinds, r.CommandLine)
	r.Test, kinds = redact.Line(r.Test)
	r.noteRedacted(kinds, 0)
}

// noteRedacted records kinds of secrets removed from line n, once each.
func (r *Result) noteRedacted(kinds []string, n int) {
	for _, k := range kinds {
		r.Redacted = redact.AddSecret(r.Redacted, redact.Secret{Kind: k, Line: n})
	}
}

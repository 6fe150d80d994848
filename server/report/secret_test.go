package report

import (
	"strings"
	"testing"

	"github.com/polylane/polylane/analysis"
	"github.com/polylane/polylane/analysis/redact"
	"github.com/polylane/polylane/causal"
)

// TestSecretInDiagnosisNeverRendered: a document that still holds a token
// in its lines, signature and evidence (stored before the pipeline
// redacted them) renders as a comment, a fix pull request and a flowchart
// without it, with the note to rotate it, and the caller's document is
// left as it was; a document that records redacted secrets gets one line
// naming each kind and its log lines.
func TestSecretInDiagnosisNeverRendered(t *testing.T) {
	const token = "ghs_qNvAd8haSJiku0qoEV1ACoNVwvoaBz7erOwB"
	d := loadFixture(t, "network-flake")
	d.Failure.Lines = append([]analysis.Line{{N: 24, Text: "fatal: clone of https://x-access-token:" + token + "@github.com/o/r failed", Role: analysis.RoleCause}}, d.Failure.Lines...)
	d.Failure.Signature = "fatal: clone of https://x-access-token:" + token + "@github.com/o/r failed"
	d.Chain.Evidence = append(d.Chain.Evidence, causal.Evidence{ID: "E99", Kind: causal.EvidenceLog, RunID: d.Run.ID, JobID: d.Failure.Job.ID, Line: 24, Text: "Authorization: token " + token})
	d.Chain.Mechanism.Evidence = append(d.Chain.Mechanism.Evidence, "E99")
	comment, err := Comment(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, body, err := PullRequest(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"comment": comment, "pull request": body, "flowchart": Flowchart(d)} {
		if strings.Contains(out, token[4:]) {
			t.Errorf("the %s holds the token", name)
		}
	}
	if d.Failure.Signature != "fatal: clone of https://x-access-token:"+token+"@github.com/o/r failed" {
		t.Error("rendering changed the caller's document")
	}
	if notes := rotateNotes(comment); len(notes) != 1 || !strings.Contains(notes[0], "a GitHub token ([log line 24]") {
		t.Errorf("the comment of the old document has credential notes %q, want one for line 24", notes)
	}

	d.RedactedSecrets = []redact.Secret{{Kind: "GitHub token", Line: 24}, {Kind: "password", Line: 30}, {Kind: "GitHub token", Line: 31}}
	comment, err = Comment(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if notes := rotateNotes(comment); len(notes) != 1 || !strings.Contains(notes[0], "a GitHub token ([log line 24]") || !strings.Contains(notes[0], "[log line 31]") ||
		!strings.Contains(notes[0], "and a password ([log line 30]") || !strings.Contains(notes[0], "did not mask") {
		t.Errorf("credential note lines = %q", notes)
	}
}

// rotateNotes returns the lines of a comment that ask to rotate a
// credential.
func rotateNotes(comment string) []string {
	var notes []string
	for _, l := range strings.Split(comment, "\n") {
		if strings.Contains(l, "rotate it") {
			notes = append(notes, l)
		}
	}
	return notes
}

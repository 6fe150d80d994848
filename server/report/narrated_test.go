package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/polylane/polylane/causal"
)

// TestNarratedParagraphs replaces the summary and the reasoning of "Why
// this fix" with narrated text, each with the visible note, and keeps
// Polylane's own text when the narration is empty.
func TestNarratedParagraphs(t *testing.T) {
	d := loadFixture(t, "rollout-race")
	plain, err := Comment(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain, narratedNote) {
		t.Fatal("a comment without narration carries the LLM note")
	}
	summary := "Step `Provision` failed in 5 of the last 100 runs (E1)."
	why := "The patch waits for the rollout to finish before the next call (E2)."
	out, err := Comment(d, Options{NarratedSummary: summary, NarratedWhyFix: why})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{summary + "\n\n" + narratedNote, why + "\n\n" + narratedNote} {
		if !strings.Contains(out, want) {
			t.Errorf("narrated comment lacks %q", want)
		}
	}
	if strings.Contains(out, d.Patch.Rationale) && d.Patch.Rationale != "" {
		t.Error("the deterministic rationale is shown next to the narrated one")
	}
	if !strings.Contains(plain, "#### Why this fix") || !strings.Contains(out, "#### Why this fix") {
		t.Error("the section heading is lost")
	}
	huge := strings.Repeat("x", maxNarrated+1)
	out, err = Comment(d, Options{NarratedSummary: huge})
	if err != nil || strings.Contains(out, huge) || strings.Contains(out, narratedNote) {
		t.Errorf("an oversized narration was shown (err %v)", err)
	}
}

// TestExplain renders every evidence entry of the chain without a marker,
// and stays under the size limit for a chain far beyond real ones.
func TestExplain(t *testing.T) {
	d := loadFixture(t, "rollout-race")
	c := *d.Chain
	for i := range 80 {
		c.Evidence = append(c.Evidence, causal.Evidence{ID: fmt.Sprint("X", i), Kind: causal.EvidenceFile, File: "Taskfile.yaml", Line: i + 1, Text: "line @someone"})
	}
	d.Chain = &c
	out, err := Explain(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ParseMarker(out); ok || strings.HasPrefix(out, "<!--") {
		t.Error("the explanation starts with a marker")
	}
	for _, e := range c.Evidence {
		if e.ID != "" && !strings.Contains(out, "**"+e.ID+"**") {
			t.Errorf("evidence %s is missing", e.ID)
		}
	}
	for _, problem := range checkMarkdown(out, safety{repo: d.Repository}) {
		t.Error(problem)
	}
	for i := range 20000 {
		c.Evidence = append(c.Evidence, causal.Evidence{ID: fmt.Sprint("Y", i), Kind: causal.EvidenceLog, Line: i, Text: strings.Repeat("z", 500)})
	}
	out, err = Explain(d, Options{})
	if err != nil || len(out) >= MaxChars || !strings.Contains(out, "**Shortened.**") {
		t.Fatalf("huge explanation: %d bytes, %v", len(out), err)
	}
}

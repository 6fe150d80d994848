package report

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/polylane/polylane/analysis"
	"github.com/polylane/polylane/analysis/history"
	"github.com/polylane/polylane/causal"
)

// TestHugeDiagnosis renders a diagnosis far beyond anything real (thousands
// of classes, evidence entries and list entries, megabyte strings) and
// checks that every document stays under the limit, stays well formed and
// says that it was shortened.
func TestHugeDiagnosis(t *testing.T) {
	d := loadFixture(t, "rollout-race")
	big := strings.Repeat("x`y@z#1 <b>", 100000)
	d.Run.Workflow, d.Failure.Step.Name = big, big
	for i := range 2000 {
		d.Failure.Lines = append(d.Failure.Lines, analysis.Line{N: i + 1, Text: big})
		d.Clusters = append(d.Clusters, history.Class{ID: fmt.Sprint("c", i), Step: big, Signature: big, Count: 1, Runs: []int64{int64(i)}})
	}
	c := *d.Chain
	c.Mechanism.Summary, c.Signal = big, big
	c.Evidence = nil
	for i := range 5000 {
		id := fmt.Sprint("E", i)
		c.Evidence = append(c.Evidence, causal.Evidence{ID: id, Kind: causal.EvidenceLog, RunID: d.Run.ID, JobID: d.Failure.Job.ID, Line: i, Text: big, Note: big})
		c.Mechanism.Evidence = append(c.Mechanism.Evidence, id)
		c.BlastRadius.Callers = append(c.BlastRadius.Callers, causal.Location{File: big, Line: i, Symbol: big})
	}
	d.Chain = &c
	p := *d.Patch
	p.Diff = strings.Repeat("+line\n", 200000)
	p.Title = big
	d.Patch = &p
	im := *d.Impact
	im.Summary = big
	for range 3000 {
		im.Observability = append(im.Observability, big)
		im.CheckedNotAffected = append(im.CheckedNotAffected, big)
	}
	d.Impact = &im
	opts := Options{ConfigWarnings: im.Observability, DashboardURL: "https://polylane.example/x"}
	start := time.Now()
	out, err := Comment(d, opts)
	if err != nil {
		t.Fatalf("Comment: %v", err)
	}
	_, body, err := PullRequest(d, opts)
	if err != nil {
		t.Fatalf("PullRequest: %v", err)
	}
	t.Logf("rendered both in %v: %d and %d bytes", time.Since(start), len(out), len(body))
	for _, doc := range []string{out, body} {
		if len(doc) >= MaxChars || !strings.Contains(doc, "**Shortened.**") {
			t.Errorf("document of %d bytes, shortened note present: %v", len(doc), strings.Contains(doc, "**Shortened.**"))
		}
		for _, problem := range checkMarkdown(doc, safety{repo: d.Repository, dashboard: opts.DashboardURL}) {
			t.Error(problem)
		}
	}
}

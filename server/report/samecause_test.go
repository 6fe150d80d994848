package report

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestOneCauseListsItsWordingsAndCountsAgree: two wordings of one cause
// (one mechanism, one producer line) are one class; the comment lists both
// wordings with their runs, and every count of the class agrees.
func TestOneCauseListsItsWordingsAndCountsAgree(t *testing.T) {
	d := explained(t, filepath.Join("..", "..", "causal", "diagnosis", "testdata", "scenarios", "two-wordings-same-producer"))
	out, err := Comment(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"failed 5 of the last 18",
		"One cause in 2 wordings: `ModuleNotFoundError: No module named 'yaml'` (3 runs), `ImportError: cannot import name 'CSafeLoader'",
		"(2 runs)",
		"Cadence: 5 ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("comment lacks %q", want)
		}
	}
	for _, wrong := range []string{"failed 3 of the last", "failed 2 of the last", "3 of 18", "2 of 18"} {
		if strings.Contains(out, wrong) {
			t.Errorf("comment says %q: a count of one wording, not of the class", wrong)
		}
	}
}

// TestSameProducerOtherMechanismStaysApart: a failure at the same harness
// line with another mechanism (a full disk) is another class, named apart.
func TestSameProducerOtherMechanismStaysApart(t *testing.T) {
	d := explained(t, filepath.Join("..", "..", "causal", "diagnosis", "testdata", "scenarios", "same-producer-two-mechanisms"))
	if len(d.Clusters) != 2 || d.Clusters[0].Count != 3 || len(d.Clusters[0].Wordings) != 0 {
		t.Fatalf("classes = %+v", d.Clusters)
	}
	out, err := Comment(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "One cause in") || !strings.Contains(out, "failed 3 of the last 18") {
		t.Errorf("the comment merged the full disk into the class:\n%s", out)
	}
}

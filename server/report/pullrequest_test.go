package report

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestPullRequestCommentLeadsWithClassification renders the pull-request
// scenarios and checks that the line after the heading says whether the
// failure is the pull request's own, with its evidence.
func TestPullRequestCommentLeadsWithClassification(t *testing.T) {
	root := filepath.Join("..", "..", "causal", "diagnosis", "testdata", "scenarios")
	for name, want := range map[string][]string{
		"pr-flaky-across-prs": {"**Not caused by this pull request:** the same failure hit 3 other pull requests and `main` once in the last 30 days",
			"[\\#\u206013](https://github.com/acme/shop/actions/runs/", "it is flaky"},
		"pr-broken-base": {"**Not caused by this pull request:** `main` fails this way right now since commit [",
			"(merged in [\\#\u2060109](https://github.com/acme/shop/pull/109))", "1 cancelled run in between", "inherits it from its base"},
		"pr-new": {"**Most likely caused by this pull request:** none of the 9 other runs", "It first failed at commit [",
			"proposes no harness patch"},
		"pr-unknown": {"**Not known yet whether this pull request caused the failure:**"},
	} {
		t.Run(name, func(t *testing.T) {
			d := explained(t, filepath.Join(root, name))
			out, err := Comment(d, Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, rest, _ := strings.Cut(out, "### Polylane: ")
			_, rest, _ = strings.Cut(rest, "\n\n")
			lead, _, _ := strings.Cut(rest, "\n")
			for _, w := range want {
				if !strings.Contains(lead, w) {
					t.Errorf("the line after the heading lacks %q:\n%s", w, lead)
				}
			}
		})
	}
}

// TestRegressionRangeAfterCancelledRuns: the base broke after a cancelled
// run, so where it started is a range of commits, linked as a comparison.
func TestRegressionRangeAfterCancelledRuns(t *testing.T) {
	d := explained(t, filepath.Join("..", "..", "causal", "diagnosis", "testdata", "scenarios", "pr-broken-base"))
	out, err := Comment(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, started, _ := strings.Cut(out, "#### Where it started\n\n")
	started, _, _ = strings.Cut(started, "\n")
	want := "The 1 run before it did not get to the step, so the cause is one of [the commits](https://github.com/acme/shop/compare/" + d.Verdict.LastGoodSHA + "..." + *d.Verdict.FirstBadSHA + ")"
	if d.Verdict.LastGoodSHA == "" || !strings.Contains(started, want) {
		t.Errorf("where it started lacks the range %q:\n%s", want, started)
	}
}

// TestRangeNamesTheCommitsThatTouchTheStep: four cancelled runs sit between
// the last green run and the first red one; of the range's commits the
// comment names the one that changed the failed test's package, and when
// none did, it says so.
func TestRangeNamesTheCommitsThatTouchTheStep(t *testing.T) {
	root := filepath.Join("..", "..", "causal", "diagnosis", "testdata", "scenarios")
	for name, want := range map[string]string{
		"range-one-commit-touches": "; of those 5 commits, only one changed what the step builds or tests: commit [",
		"range-no-commit-touches":  "; none of those 3 commits changed a file the step builds or tests.",
	} {
		t.Run(name, func(t *testing.T) {
			d := explained(t, filepath.Join(root, name))
			out, err := Comment(d, Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, started, _ := strings.Cut(out, "#### Where it started\n\n")
			started, _, _ = strings.Cut(started, "\n")
			if !strings.Contains(started, want) {
				t.Fatalf("where it started lacks %q:\n%s", want, started)
			}
			if fr := d.FirstBadRange; len(fr.Touching) == 1 {
				c := fr.Touching[0]
				for _, w := range []string{"/commit/" + c.SHA + ")", "“change 5”", "which changed `cart/discount.go`"} {
					if !strings.Contains(started, w) {
						t.Errorf("the named commit lacks %q:\n%s", w, started)
					}
				}
				if strings.Contains(started, "docs/discounts.md") {
					t.Errorf("a file the step does not reach is named:\n%s", started)
				}
			}
		})
	}
}

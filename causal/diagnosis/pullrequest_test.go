package diagnosis

import (
	"testing"
	"time"

	"github.com/polylane/polylane/analysis/gha"
)

// TestClassifyBase covers the base-branch rules: a base whose latest runs
// fail this way is broken, unless it failed this way and passed before and
// other pull requests passed since it turned red.
func TestClassifyBase(t *testing.T) {
	t0 := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	mk := func(id int64, hour int, conclusion string) gha.Run {
		return gha.Run{ID: id, Conclusion: conclusion, CreatedAt: t0.Add(time.Duration(hour) * time.Hour)}
	}
	for _, tc := range []struct {
		name      string
		base, prs []gha.Run
		inClass   []int64
		want      string
	}{
		{"two red at the end", []gha.Run{mk(1, 1, "success"), mk(2, 2, "failure"), mk(3, 3, "failure")},
			[]gha.Run{mk(10, 4, "failure")}, []int64{2, 3, 10}, PRBrokenBase},
		{"red twice, red before, others pass since", []gha.Run{mk(1, 1, "failure"), mk(2, 2, "success"), mk(3, 3, "failure"), mk(4, 4, "failure")},
			[]gha.Run{mk(10, 5, "success"), mk(11, 6, "success")}, []int64{1, 3, 4}, PRFlaky},
		{"red once for the first time", []gha.Run{mk(1, 1, "success"), mk(2, 2, "failure")},
			[]gha.Run{mk(10, 1, "success")}, []int64{2}, PRBrokenBase},
		{"red once, another pull request passed since", []gha.Run{mk(1, 1, "success"), mk(2, 2, "failure")},
			[]gha.Run{mk(10, 3, "success")}, []int64{2}, PRFlaky},
		{"base green now", []gha.Run{mk(1, 1, "failure"), mk(2, 2, "success")},
			[]gha.Run{mk(10, 3, "failure")}, []int64{1, 10}, PRFlaky},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := map[int64]bool{}
			for _, id := range tc.inClass {
				in[id] = true
			}
			pr := &PullRequest{Compared: len(tc.base) + len(tc.prs)}
			for _, r := range tc.base {
				if in[r.ID] {
					pr.SeenOnBaseBranch++
				}
			}
			for _, r := range tc.prs {
				if in[r.ID] {
					pr.SeenInOtherPullRequests++
				}
			}
			pr.classify(tc.base, tc.prs, in)
			if pr.Classification != tc.want {
				t.Errorf("classification = %q, want %q", pr.Classification, tc.want)
			}
		})
	}
}

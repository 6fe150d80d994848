package webhook_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/store/storetest"
)

// TestFixBranchRuns: a completed run that is not diagnosed queues the
// fix's verification only on the branch of an open fix pull request of the
// repository itself; runs of other branches, and a fork's branch of the
// same name, never count.
func TestFixBranchRuns(t *testing.T) {
	for _, b := range storetest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			r := newRig(t, b, 0)
			ctx := context.Background()
			// A failure on the default branch records the repository.
			if status, text := r.post(t, "workflow_run", "main-failure", r.event(t, runEvent(tinyFailed)), "", "application/json"); status != 202 {
				t.Fatalf("failure on main: %d %s", status, text)
			}
			must(t, r.st.UpsertClass(ctx, store.FailureClass{RepositoryID: tinyRepoID, ID: "c", FirstSeen: time.Now(), LastSeen: time.Now(), Count: 1}))
			must(t, r.st.UpsertFixPullRequest(ctx, store.FixPullRequest{RepositoryID: tinyRepoID, ClassID: "c", Number: 77,
				Branch: "polylane/fix-c", State: store.FixOpen}))
			var tmpl map[string]any
			if err := json.Unmarshal(r.event(t, runEvent(tinyPassed)), &tmpl); err != nil {
				t.Fatal(err)
			}
			run := tmpl["workflow_run"].(map[string]any)
			for i, tc := range []struct {
				name, branch, conclusion string
				headRepo                 int64
				queued                   bool
				reason                   string
			}{
				{"success on the fix branch", "polylane/fix-c", "success", tinyRepoID, true, "queued for verification"},
				{"cancelled on the fix branch", "polylane/fix-c", "cancelled", tinyRepoID, true, "queued for verification"},
				{"failure on the fix branch is diagnosed", "polylane/fix-c", "failure", tinyRepoID, true, "queued for diagnosis"},
				{"another fix branch", "polylane/fix-other", "success", tinyRepoID, false, "no open fix pull request of that branch"},
				{"a fork's branch of the same name", "polylane/fix-c", "success", 4242, false, "fork"},
				{"a feature branch", "feature", "success", tinyRepoID, false, "not diagnosed"},
			} {
				before := r.jobs(t)
				run["id"] = float64(50000 + i)
				run["head_branch"], run["conclusion"] = tc.branch, tc.conclusion
				run["head_repository"] = map[string]any{"id": tc.headRepo, "full_name": "someone/tiny"}
				body, _ := json.Marshal(tmpl)
				status, text := r.post(t, "workflow_run", "fix-"+strconv.Itoa(i), body, "", "application/json")
				if status != 202 || !strings.Contains(text, tc.reason) {
					t.Errorf("%s: %d %q, want 202 saying %q", tc.name, status, text, tc.reason)
				}
				if got := r.jobs(t) - before; got != map[bool]int64{true: 1, false: 0}[tc.queued] {
					t.Errorf("%s: %d jobs queued", tc.name, got)
				}
			}
		})
	}
}

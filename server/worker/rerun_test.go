package worker

import (
	"strings"
	"testing"
	"time"

	"github.com/polylane/polylane/server/githubtest"
	"github.com/polylane/polylane/server/report"
	"github.com/polylane/polylane/store"
)

func TestPlanRerun(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	green := func(n int) *report.Verification {
		return &report.Verification{Green: n, Rate: 0.05, RateKnown: true, WorkflowRun: 9, WorkflowGreen: true}
	}
	refuted := green(3)
	refuted.Refuting = &report.VerifiedRun{InClass: true}
	red := green(3)
	red.WorkflowGreen = false
	for _, tc := range []struct {
		name  string
		limit int
		st    store.FixVerification
		v     *report.Verification
		step  rerunStep
		at    time.Time
	}{
		{"not opted in", 0, store.FixVerification{}, green(3), rerunNone, time.Time{}},
		{"first rerun", 5, store.FixVerification{}, green(3), rerunNow, now},
		{"spaced out", 5, store.FixVerification{Reruns: 1, LastRerunAt: now.Add(-time.Minute)}, green(4), rerunLater, now.Add(9 * time.Minute)},
		{"spacing elapsed", 5, store.FixVerification{Reruns: 1, LastRerunAt: now.Add(-rerunSpacing)}, green(4), rerunNow, now},
		{"reruns spent", 5, store.FixVerification{Reruns: 5}, green(8), rerunNone, time.Time{}},
		{"refused once", 5, store.FixVerification{Refused: "Resource not accessible by integration"}, green(3), rerunNone, time.Time{}},
		{"refuted", 5, store.FixVerification{}, refuted, rerunNone, time.Time{}},
		{"newest run failed", 5, store.FixVerification{}, red, rerunNone, time.Time{}},
		{"evidence enough", 100, store.FixVerification{}, green(59), rerunNone, time.Time{}},
		{"one short of evidence", 100, store.FixVerification{}, green(58), rerunNow, now},
		{"rate unknown", 5, store.FixVerification{}, &report.Verification{Green: 1, WorkflowRun: 9, WorkflowGreen: true}, rerunNone, time.Time{}},
	} {
		step, at := planRerun(tc.limit, tc.st, tc.v, now)
		if step != tc.step || !at.Equal(tc.at) {
			t.Errorf("%s: %v at %v, want %v at %v", tc.name, step, at, tc.step, tc.at)
		}
	}
}

// reruns counts the rerun requests GitHub accepted or refused.
func (f *fixRig) reruns(t *testing.T) int {
	t.Helper()
	n := 0
	for _, c := range f.sim.Calls() {
		if c.Method == "POST" && strings.HasSuffix(c.Path, "/rerun") {
			n++
		}
	}
	return n
}

// TestVerifyReruns: reruns are asked only when the repository opts in,
// within its number, spaced out; a refusal is said once and not retried;
// a low rate budget defers them.
func TestVerifyReruns(t *testing.T) {
	t.Run("not opted in", func(t *testing.T) {
		f := newFixRig(t)
		f.branchRun(t, githubtest.BranchRun{Conclusion: "success"})
		if n := f.reruns(t); n != 0 {
			t.Fatalf("%d reruns without fix_pull_requests.verify_reruns", n)
		}
	})
	optIn := func(t *testing.T) *fixRig {
		f := newFixRig(t)
		f.commit(t, f.sc.Repository.DefaultBranch, map[string]string{configPath: "fix_pull_requests:\n  verify_reruns: 2\n"})
		return f
	}
	t.Run("opted in", func(t *testing.T) {
		f := optIn(t)
		f.branchRun(t, githubtest.BranchRun{Conclusion: "success"})
		if n := f.reruns(t); n != 1 {
			t.Fatalf("%d reruns after a green run, want 1", n)
		}
		for _, c := range f.sim.Calls() {
			if c.Method == "POST" && strings.HasSuffix(c.Path, "/rerun") && !strings.Contains(c.Path, "/actions/jobs/") {
				t.Errorf("the rerun %s is not of the failing job", c.Path)
			}
		}
		body, _ := f.body(t)
		if !strings.Contains(body, "Polylane re-ran the failing job on the fix branch 1 of at most 2 times") {
			t.Fatalf("the description does not count the rerun:\n%s", body[strings.Index(body, "#### Verification"):])
		}
		// The next green run comes sooner than the spacing: no rerun now.
		f.branchRun(t, githubtest.BranchRun{Conclusion: "success"})
		if n := f.reruns(t); n != 1 {
			t.Fatalf("%d reruns within %s, want 1", n, rerunSpacing)
		}
	})
	t.Run("refused", func(t *testing.T) {
		f := optIn(t)
		f.sim.InjectFault(githubtest.Fault{Kind: githubtest.FaultNoPermission, Message: "actions=write", Method: "POST", Path: "/repos/*/*/actions/jobs/*/rerun", Times: -1})
		f.branchRun(t, githubtest.BranchRun{Conclusion: "success"})
		body, comment := f.body(t)
		for _, text := range []string{body, comment} {
			if !strings.Contains(text, "could not re-run the failing job on the fix branch: GitHub answered `Resource not accessible by integration`") {
				t.Fatalf("the refusal is not said:\n%s", text[strings.Index(text, "#### Verification"):])
			}
		}
		st, err := f.st.GetFixVerification(testCtx(t), f.sc.Repository.ID, f.doc.TriggerClass)
		if err != nil || st.Refused == "" || st.Reruns != 0 {
			t.Fatalf("verification state %+v (%v)", st, err)
		}
		f.branchRun(t, githubtest.BranchRun{Conclusion: "success"})
		if n := f.reruns(t); n != 1 {
			t.Fatalf("%d rerun requests after a refusal, want the one refused", n)
		}
	})
	t.Run("budget low", func(t *testing.T) {
		f := optIn(t)
		f.sim.SetRateRemaining("installation:"+itoa(int(f.sc.InstallationID)), 100)
		f.branchRun(t, githubtest.BranchRun{Conclusion: "success"})
		if n := f.reruns(t); n != 0 {
			t.Fatalf("%d reruns with the rate budget low", n)
		}
	})
}

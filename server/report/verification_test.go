package report

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/polylane/polylane/store"
)

func TestChance(t *testing.T) {
	for _, tc := range []struct {
		p    float64
		n    int
		want float64
	}{
		{0.05, 20, 0.3584859},
		{0.05, 3, 0.857375},
		{0, 20, 1},
		{1, 1, 0},
		{1, 0, 1},
		{0.3, 0, 1},
		{0.5, 5, 0.03125},
		{-0.2, 4, 1},
		{1.5, 2, 0},
	} {
		if got := Chance(tc.p, tc.n); math.Abs(got-tc.want) > 1e-6 {
			t.Errorf("Chance(%v, %d) = %v, want %v", tc.p, tc.n, got, tc.want)
		}
	}
}

func TestRunsForEvidence(t *testing.T) {
	for _, tc := range []struct {
		p    float64
		want int
	}{
		{0.05, 59}, // 0.95^58 = 5.1%, 0.95^59 = 4.8%
		{0.5, 5},   // 0.5^4 = 6.25%, 0.5^5 = 3.1%
		{0.95, 2},  // exactly 5% after one run is not below 5%
		{0.96, 1},
		{1, 1},
		{0, 0},
		{-1, 0},
		{math.NaN(), 0},
		{1e-300, maxEvidenceRuns}, // 1−p rounds to 1
		{1e-9, maxEvidenceRuns},
	} {
		got := RunsForEvidence(tc.p)
		if got != tc.want {
			t.Errorf("RunsForEvidence(%v) = %d, want %d", tc.p, got, tc.want)
		}
		if got > 0 && got < maxEvidenceRuns && (Chance(tc.p, got) >= EvidenceChance || got > 1 && Chance(tc.p, got-1) < EvidenceChance) {
			t.Errorf("RunsForEvidence(%v) = %d is not the first count below 5%%", tc.p, got)
		}
	}
}

func TestChanceStatement(t *testing.T) {
	for _, tc := range []struct {
		name  string
		n     int
		p     float64
		known bool
		want  []string
	}{
		{"issue example", 20, 0.05, true, []string{"20 green runs of `E2E Tests` on the fix branch",
			"at this class's 5% failure rate that happens by chance 36% of the time, so it is not yet evidence",
			"below 5% at 59 green runs in a row (39 more)"}},
		{"three green runs", 3, 0.05, true, []string{"3 green runs", "by chance 86% of the time", "not yet evidence", "(56 more)"}},
		{"evidence", 60, 0.05, true, []string{"60 green runs", "by chance 4.6% of the time, below 5%: it is evidence that the fix works"}},
		{"one run of a class that always fails", 1, 1, true, []string{"1 green run of", "by chance 0% of the time, below 5%"}},
		{"none yet", 0, 0.05, true, []string{"No green run of `E2E Tests` on the fix branch yet", "59 green runs in a row would happen by chance less than 5% of the time"}},
		{"class never failed", 20, 0, true, []string{"failed in none of the window's runs", "cannot tell"}},
		{"rate unknown", 4, 0, false, []string{"4 green runs", "not known"}},
		{"tiny chance", 200, 0.3, true, []string{"less than 0.1% of the time"}},
		// (1−0.6316)^3 = 4.99987%: never shown as 5%.
		{"just below 5%", 3, 0.6316, true, []string{"by chance 4.9999% of the time, below 5%"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ChanceStatement("E2E Tests", tc.n, tc.p, tc.known)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("statement %q lacks %q", got, w)
				}
			}
		})
	}
}

func TestVerificationSection(t *testing.T) {
	d := loadFixture(t, "rollout-race")
	green := func(n int) []VerifiedRun {
		return []VerifiedRun{{Workflow: "E2E Tests", RunID: 1, Attempt: n, Conclusion: "success"}}
	}
	for _, tc := range []struct {
		name  string
		v     Verification
		want  []string
		never []string
	}{
		{"three green runs", Verification{Branch: "polylane/fix-x", HeadSHA: "0123456789abcdef0123456789abcdef01234567",
			Workflows: green(3), Workflow: "E2E Tests", Green: 3, Rate: 0.05, RateKnown: true},
			[]string{"#### Verification", "on the fix branch `polylane/fix-x` at `0123456`", "- E2E Tests: success (attempt 3)",
				"3 green runs of `E2E Tests` on the fix branch; at this class's 5% failure rate that happens by chance 86% of the time, so it is not yet evidence"},
			[]string{"Refuted", "Check failing"}},
		{"refuted", Verification{Branch: "polylane/fix-x", Workflows: []VerifiedRun{{Workflow: "E2E Tests", RunID: 2, Attempt: 1,
			Conclusion: "failure", FailedJob: "e2e", Cause: "timed out waiting for rollout", InClass: true}},
			Refuting: &VerifiedRun{Workflow: "E2E Tests", Cause: "timed out waiting for rollout", InClass: true}, Workflow: "E2E Tests", RateKnown: true, Rate: 0.05},
			[]string{"**Refuted: this fix is no longer recommended.** E2E Tests failed on the fix branch in this class's way: `timed out waiting for rollout`"},
			[]string{"green runs", "Check failing"}},
		{"lint fails", Verification{Branch: "polylane/fix-x", Workflows: []VerifiedRun{
			{Workflow: "E2E Tests", Conclusion: "success"},
			{Workflow: "Lint <b>", Conclusion: "failure", FailedJob: "golangci", Cause: "fix.go:3:2: x declared and not used"}},
			Workflow: "E2E Tests", Green: 1, Rate: 0.5, RateKnown: true},
			[]string{"**Check failing:** Lint \\<b\\> (job `golangci`) failure on the fix branch: `fix.go:3:2: x declared and not used`",
				"1 green run of `E2E Tests`"},
			[]string{"Refuted", "<b>"}},
		{"cancelled is no failing check", Verification{Branch: "polylane/fix-x", Workflows: []VerifiedRun{{Workflow: "E2E Tests", Conclusion: "cancelled"}},
			Workflow: "E2E Tests", Rate: 0.05, RateKnown: true},
			[]string{"- E2E Tests: cancelled", "No green run of `E2E Tests` on the fix branch yet"}, []string{"Check failing", "Refuted"}},
		{"hostile names and cause", Verification{Branch: "polylane/fix-x", Workflows: []VerifiedRun{
			{Workflow: "@acme/owners [x](http://evil.example)", Conclusion: "failure", FailedJob: "j`b", Cause: "@acme/owners `rm -rf` <img src=x>"}},
			Workflow: "E2E Tests", Rate: 0.05, RateKnown: true},
			[]string{"**Check failing:** @\u2060acme/owners \\[x\\](http:\u2060//evil.example)", "(job ``j`b``)", ": ``@acme/owners `rm -rf` <img src=x>``"},
			[]string{"<img src=x>.", "[x](http"}},
		{"refused rerun", Verification{Branch: "polylane/fix-x", Workflow: "E2E Tests", RerunLimit: 5, RerunRefused: "Resource not accessible by integration"},
			[]string{"No workflow of the repository has completed", "could not re-run", "`actions: write`"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Verification: &tc.v}
			for _, render := range []func() (string, error){
				func() (string, error) { return Comment(d, opts) },
				func() (string, error) { _, body, err := PullRequest(d, opts); return body, err },
			} {
				got, err := render()
				if err != nil {
					t.Fatal(err)
				}
				for _, w := range tc.want {
					if !strings.Contains(got, w) {
						t.Errorf("section lacks %q:\n%s", w, got[strings.Index(got, "#### Verification"):])
					}
				}
				section := got[strings.Index(got, "#### Verification"):]
				for _, w := range tc.never {
					if strings.Contains(section, w) {
						t.Errorf("section holds %q", w)
					}
				}
			}
		})
	}
	plain, err := Comment(d, Options{})
	if err != nil || strings.Contains(plain, "Verification") {
		t.Fatalf("a comment without verification has the section (%v)", err)
	}
}

// TestBuildVerification: the section counts the runs of the branch's
// current head only; a head Polylane did not write restarts the count and
// keeps the record; a head Polylane just wrote has no result yet.
func TestBuildVerification(t *testing.T) {
	at := func(m int) time.Time { return time.Date(2026, 3, 1, 9, m, 0, 0, time.UTC) }
	run := func(id int64, attempt int, wf int64, head, conclusion string, m int) store.FixVerificationRun {
		return store.FixVerificationRun{RunID: id, Attempt: attempt, WorkflowID: wf, WorkflowName: map[int64]string{1: "E2E", 2: "Lint"}[wf],
			HeadSHA: head, Conclusion: conclusion, CompletedAt: at(m)}
	}
	fix := store.FixPullRequest{Branch: "polylane/fix-c", HeadSHA: "aaa", UpdatedAt: at(0)}
	runs := []store.FixVerificationRun{
		run(10, 1, 1, "aaa", "failure", 1), run(10, 2, 1, "aaa", "success", 2), run(11, 1, 2, "aaa", "success", 3),
		run(12, 1, 1, "aaa", "success", 4),
	}
	v := BuildVerification(fix, runs, "E2E", 1)
	if v.HeadSHA != "aaa" || v.Restarted || v.Green != 2 || len(v.Workflows) != 2 || v.Workflows[0].RunID != 12 || v.Workflows[1].Workflow != "Lint" {
		t.Fatalf("at Polylane's head: %+v", v)
	}
	// Someone pushed bbb: the count starts again, the record stays.
	pushed := append(runs, run(13, 1, 1, "bbb", "success", 5))
	v = BuildVerification(fix, pushed, "E2E", 1)
	if v.HeadSHA != "bbb" || !v.Restarted || v.Green != 1 || len(v.Workflows) != 1 {
		t.Fatalf("after a person's push: %+v", v)
	}
	// Polylane moved the branch to ccc after these runs: nothing of ccc yet.
	moved := fix
	moved.HeadSHA, moved.UpdatedAt = "ccc", at(30)
	v = BuildVerification(moved, pushed, "E2E", 1)
	if v.HeadSHA != "ccc" || v.Restarted || v.Green != 0 || len(v.Workflows) != 0 {
		t.Fatalf("after Polylane moved the branch: %+v", v)
	}
	// A failure of the class refutes the head it happened at.
	refuted := append(runs, store.FixVerificationRun{RunID: 14, Attempt: 1, WorkflowID: 1, WorkflowName: "E2E", HeadSHA: "aaa",
		Conclusion: "failure", InClass: true, Cause: "timeout", CompletedAt: at(6)})
	if v = BuildVerification(fix, refuted, "E2E", 1); !v.Refuted() || v.Refuting.RunID != 14 {
		t.Fatalf("a failure of the class did not refute: %+v", v)
	}
}

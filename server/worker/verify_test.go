package worker

import (
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/polylane/polylane/causal/diagnosis"
	"github.com/polylane/polylane/server/githubtest"
	"github.com/polylane/polylane/server/jobs"
	"github.com/polylane/polylane/server/webhook"
	"github.com/polylane/polylane/store/storetest"
)

// fixRig is a rig with the class's fix pull request open.
type fixRig struct {
	*rig
	doc     *diagnosis.Diagnosis
	trigger int64
	pr      githubtest.PullRequest
}

func newFixRig(t *testing.T) *fixRig {
	t.Helper()
	dir := sharedScenario(t, "karmada-rollout")
	r := newRig(t, storetest.Backends()[0], dir)
	ctx := testCtx(t)
	doc, pa, fa := r.diagnoseTrigger(t)
	if err := r.w.publish(ctx, pa); err != nil {
		t.Fatal(err)
	}
	if err := r.w.fix(ctx, fa); err != nil {
		t.Fatal(err)
	}
	pulls := r.botPulls()
	if len(pulls) != 1 {
		t.Fatalf("%d fix pull requests", len(pulls))
	}
	return &fixRig{rig: r, doc: doc, trigger: pa.RunID, pr: pulls[0]}
}

// branchRun completes a run on the fix branch, delivers it to the webhook
// and works the job it queued: a verify job for a success, diagnose and
// publish for a failure.
func (f *fixRig) branchRun(t *testing.T, br githubtest.BranchRun) jobs.VerifyArgs {
	t.Helper()
	ctx := testCtx(t)
	br.Branch, br.Like = f.pr.Head, f.trigger
	id, err := f.sim.RunOnBranch(f.repo, br)
	if err != nil {
		t.Fatal(err)
	}
	a := f.deliver(t, id)
	va := jobs.VerifyArgs{DeliveryGUID: a.DeliveryGUID, InstallationID: a.InstallationID, RepositoryID: a.RepositoryID, RunID: id, Attempt: 1}
	if br.Conclusion == "success" {
		if err := f.w.verify(ctx, va); err != nil {
			t.Fatal(err)
		}
		return va
	}
	if err := f.w.diagnose(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := f.w.publish(ctx, jobs.PublishArgs{DeliveryGUID: a.DeliveryGUID, InstallationID: a.InstallationID,
		RepositoryID: a.RepositoryID, RunID: id, Attempt: 1}); err != nil {
		t.Fatal(err)
	}
	return va
}

// body is the fix pull request's description now, and its assessment.
func (f *fixRig) body(t *testing.T) (string, string) {
	t.Helper()
	for _, p := range f.sim.PullRequests(f.repo) {
		if p.Number == f.pr.Number {
			comments := f.botComments(p.Number)
			if len(comments) != 1 {
				t.Fatalf("%d comments of Polylane on the fix pull request, want 1", len(comments))
			}
			return p.Body, comments[0].Body
		}
	}
	t.Fatal("the fix pull request is gone")
	return "", ""
}

// TestVerifyGreenRuns: three green runs of the class's workflow on the fix
// branch give the chance statement at the class's rate, in the description
// and in the assessment; a redelivered run writes nothing.
func TestVerifyGreenRuns(t *testing.T) {
	f := newFixRig(t)
	rate := f.doc.FailureRate.Rate
	if f.doc.FailureRate.Runs == 0 || rate <= 0 || rate >= 1 {
		t.Fatalf("the scenario's class has no usable failure rate: %+v", f.doc.FailureRate)
	}
	var last jobs.VerifyArgs
	for i := range 3 {
		before, calls := f.writes(), len(f.sim.APICalls())
		last = f.branchRun(t, githubtest.BranchRun{Conclusion: "success"})
		t.Logf("green run %d: %d API calls", i+1, len(f.sim.APICalls())-calls)
		// the description and the assessment are edited, nothing else
		if n := f.writes() - before; n != 2 {
			t.Fatalf("green run %d wrote %d times to GitHub, want 2", i+1, n)
		}
	}
	chance := math.Pow(1-rate, 3) * 100
	want := fmt.Sprintf("3 green runs of `%s` on the fix branch; at this class's", f.doc.Run.Workflow)
	body, comment := f.body(t)
	for name, text := range map[string]string{"description": body, "assessment": comment} {
		if !strings.Contains(text, "#### Verification") || !strings.Contains(text, want) {
			t.Fatalf("the %s lacks the statement %q:\n%s", name, want, text)
		}
		if !strings.Contains(text, fmt.Sprintf("by chance %.0f%% of the time", chance)) && !strings.Contains(text, fmt.Sprintf("by chance %.1f%% of the time", chance)) {
			t.Errorf("the %s does not give the chance %.2f%%:\n%s", name, chance, text[strings.Index(text, "#### Verification"):])
		}
		if strings.Contains(text, "Refuted") || strings.Contains(text, "Check failing") {
			t.Errorf("the %s marks green runs as failing", name)
		}
	}
	// A redelivered run changes nothing: the webhook drops the same
	// delivery, and the job worked again (a retry, or a delivery of the
	// same run under another guid) writes nothing.
	before := f.writes()
	ev, err := f.sim.WorkflowRunEvent(f.repo, last.RunID)
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, "/webhooks/github", strings.NewReader(string(ev.Payload)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(webhook.HeaderEvent, ev.Name)
	req.Header.Set(webhook.HeaderDelivery, last.DeliveryGUID)
	req.Header.Set(webhook.HeaderSignature, f.sim.Sign(ev.Payload))
	rec := httptest.NewRecorder()
	f.hook.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "duplicate") {
		t.Fatalf("a redelivery answered %d: %s", rec.Code, rec.Body.String())
	}
	if err := f.w.verify(testCtx(t), last); err != nil {
		t.Fatal(err)
	}
	if f.writes() != before {
		t.Fatalf("a redelivered run wrote %d times to GitHub", f.writes()-before)
	}
	runs, err := f.st.ListFixVerificationRuns(testCtx(t), f.sc.Repository.ID, f.doc.TriggerClass)
	if err != nil || len(runs) != 3 {
		t.Fatalf("%d verification runs recorded (%v), want 3", len(runs), err)
	}
}

// TestVerifyRefuted: a run on the fix branch failing with the class's
// signature refutes the fix; no new assessment is posted for it.
func TestVerifyRefuted(t *testing.T) {
	f := newFixRig(t)
	f.branchRun(t, githubtest.BranchRun{Conclusion: "success"})
	va := f.branchRun(t, githubtest.BranchRun{Conclusion: "failure"})
	// The failure's publish job worked again (a retry, a redelivery) writes
	// nothing.
	before := f.writes()
	if err := f.w.publish(testCtx(t), jobs.PublishArgs{DeliveryGUID: va.DeliveryGUID, InstallationID: va.InstallationID,
		RepositoryID: va.RepositoryID, RunID: va.RunID, Attempt: 1}); err != nil {
		t.Fatal(err)
	}
	if f.writes() != before {
		t.Fatalf("publishing the fix branch's failure again wrote %d times", f.writes()-before)
	}
	body, comment := f.body(t)
	for name, text := range map[string]string{"description": body, "assessment": comment} {
		if !strings.Contains(text, "**Refuted: this fix is no longer recommended.**") {
			t.Fatalf("the %s does not say the fix is refuted:\n%s", name, text)
		}
	}
	runs, err := f.st.ListFixVerificationRuns(testCtx(t), f.sc.Repository.ID, f.doc.TriggerClass)
	if err != nil || len(runs) != 2 || !runs[1].InClass || runs[1].Cause == "" {
		t.Fatalf("verification runs %+v (%v)", runs, err)
	}
}

// TestVerifyLintFails: a fix branch whose lint fails is marked with the
// failing check and its cause line, and not refuted.
func TestVerifyLintFails(t *testing.T) {
	f := newFixRig(t)
	log := failingStepSays(t, f.failedLog(t), "make lint", "##[endgroup]", "golangci-lint run ./...",
		"pkg/rollout/wait.go:41:2: ineffectual assignment to err (ineffassign)", "make: *** [Makefile:12: lint] Error 1")
	f.branchRun(t, githubtest.BranchRun{Conclusion: "failure", FailedJob: "lint", Log: log})
	body, comment := f.body(t)
	for name, text := range map[string]string{"description": body, "assessment": comment} {
		if strings.Contains(text, "Refuted") {
			t.Fatalf("a lint failure refuted the fix in the %s", name)
		}
		i := strings.Index(text, "**Check failing:**")
		if i < 0 {
			t.Fatalf("the %s does not mark the failing check:\n%s", name, text)
		}
		line := text[i:]
		line = line[:strings.Index(line, "\n")]
		if !strings.Contains(line, "(job `lint`)") || !strings.Contains(line, "`pkg/rollout/wait.go:41:2: ineffectual assignment to err (ineffassign)`") {
			t.Errorf("the %s's failing check does not name the job and its cause line: %s", name, line)
		}
	}
	runs, err := f.st.ListFixVerificationRuns(testCtx(t), f.sc.Repository.ID, f.doc.TriggerClass)
	if err != nil || len(runs) != 1 || runs[0].InClass || runs[0].FailedJob != "lint" {
		t.Fatalf("verification runs %+v (%v)", runs, err)
	}
}

// failedLog is the log of the trigger's failed job.
func (f *fixRig) failedLog(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sharedScenario(t, "karmada-rollout"), "logs", strconv.FormatInt(f.doc.Failure.Job.ID, 10)+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// failingStepSays replaces the output of the log's failing step (between
// the last "##[group]Run" header before the last "##[error]" and that
// error) with the given lines, each at the time of the line it replaces,
// so that the step's place in the log stays where the job's steps say.
func failingStepSays(t *testing.T, log string, lines ...string) string {
	t.Helper()
	all := strings.Split(log, "\n")
	end := -1
	for i := len(all) - 1; i >= 0 && end < 0; i-- {
		if strings.Contains(all[i], "##[error]") {
			end = i
		}
	}
	start := -1
	for i := end - 1; i >= 0 && start < 0; i-- {
		if strings.Contains(all[i], "##[group]Run ") {
			start = i
		}
	}
	if start < 0 || end-start < len(lines)+2 {
		t.Fatal("the log has no failing step to replace")
	}
	var out []string
	out = append(out, all[:start+1]...)
	for i, l := range lines {
		stamp, _, _ := strings.Cut(all[start+1+i], " ")
		out = append(out, stamp+" "+l)
	}
	stamp, _, _ := strings.Cut(all[end], " ")
	out = append(out, stamp+" ##[error]Process completed with exit code 2.")
	out = append(out, all[end+1:]...)
	return strings.Join(out, "\n")
}

// TestVerifyWhatTheConfigurationDoesNotWatch: a fix's own CI counts where
// the configuration diagnoses nothing: a branch it does not watch is
// diagnosed all the same, a workflow it does not watch is recorded without
// a diagnosis.
func TestVerifyWhatTheConfigurationDoesNotWatch(t *testing.T) {
	t.Run("branches", func(t *testing.T) {
		f := newFixRig(t)
		f.commit(t, f.sc.Repository.DefaultBranch, map[string]string{configPath: "branches: [main]\n"})
		f.branchRun(t, githubtest.BranchRun{Conclusion: "failure"})
		if body, _ := f.body(t); !strings.Contains(body, "**Refuted") {
			t.Fatal("a failure of the class on the fix branch was not recorded where branches: [main]")
		}
	})
	t.Run("workflows", func(t *testing.T) {
		f := newFixRig(t)
		f.commit(t, f.sc.Repository.DefaultBranch, map[string]string{configPath: "workflows: [other.yml]\n"})
		id, err := f.sim.RunOnBranch(f.repo, githubtest.BranchRun{Branch: f.pr.Head, Like: f.trigger, Conclusion: "failure"})
		if err != nil {
			t.Fatal(err)
		}
		a := f.deliver(t, id)
		if err := f.w.diagnose(testCtx(t), a); err != nil {
			t.Fatal(err)
		}
		if err := f.w.verify(testCtx(t), jobs.VerifyArgs{DeliveryGUID: a.DeliveryGUID, InstallationID: a.InstallationID,
			RepositoryID: a.RepositoryID, RunID: id, Attempt: 1}); err != nil {
			t.Fatal(err)
		}
		runs, err := f.st.ListFixVerificationRuns(testCtx(t), f.sc.Repository.ID, f.doc.TriggerClass)
		if err != nil || len(runs) != 1 || runs[0].Conclusion != "failure" || runs[0].InClass {
			t.Fatalf("verification runs %+v (%v)", runs, err)
		}
		if body, _ := f.body(t); !strings.Contains(body, "**Check failing:**") {
			t.Fatal("a failure of an unwatched workflow on the fix branch is not marked")
		}
	})
}

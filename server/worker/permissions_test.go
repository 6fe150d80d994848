package worker

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/server/githubtest"
	"github.com/polylane/polylane/server/jobs"
	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/store/storetest"
)

// revoke takes permissions from the scenario's installation and drops the
// worker's cached token, as after an owner changed the app's permissions.
func (r *rig) revoke(t *testing.T, change map[string]string) {
	t.Helper()
	perms := maps.Clone(githubtest.DefaultPermissions)
	for k, v := range change {
		if v == "" {
			delete(perms, k)
		} else {
			perms[k] = v
		}
	}
	r.sim.SetInstallationPermissions(r.sc.InstallationID, perms)
	r.gh.ForgetInstallation(r.sc.InstallationID)
}

// calls counts the recorded API calls of a method whose path ends with
// suffix.
func (r *rig) calls(method, suffix string) int {
	n := 0
	for _, c := range r.sim.Calls() {
		if c.Method == method && strings.HasSuffix(c.Path, suffix) {
			n++
		}
	}
	return n
}

// TestRerunWithoutActionsWrite: GitHub refuses a re-run from an
// installation with actions: read; "@polylane rerun" gets a reply that
// names the permission and the installation's settings, once, and the
// delivery is done rather than failed.
func TestRerunWithoutActionsWrite(t *testing.T) {
	r := newRig(t, storetest.Backends()[0], conversationScenario)
	ctx := testCtx(t)
	number, _ := r.diagnosedPR(t)
	if err := r.sim.SetPermission(r.repo, "writer", "write"); err != nil {
		t.Fatal(err)
	}
	r.revoke(t, map[string]string{"actions": "read"})
	r.sim.ResetRecording()
	a := r.say(t, number, "writer", "@polylane rerun")
	if err := r.w.mention(ctx, a); err != nil {
		t.Fatalf("the refused re-run ended the job with %v", err)
	}
	got := r.replies(number)
	if len(got) != 1 {
		t.Fatalf("%d replies, want 1", len(got))
	}
	for _, want := range []string{"`actions: write`", "/settings/installations/", "Nothing was changed"} {
		if !strings.Contains(got[0].Body, want) {
			t.Errorf("the reply lacks %q:\n%s", want, got[0].Body)
		}
	}
	if n := r.calls("POST", "/rerun-failed-jobs"); n != 1 {
		t.Errorf("%d re-run requests, want 1 (a refusal is not retried)", n)
	}
	if d, err := r.st.GetDelivery(ctx, a.DeliveryGUID); err != nil || d.State != store.DeliveryDone {
		t.Errorf("delivery: %v %s %q", err, d.State, d.Error)
	}
}

// TestWorkflowFixWithoutWorkflowsPermission: where the repository allows
// workflow fixes but the installation lacks workflows: write, the fix job
// opens nothing and does not fail, the pull request's comment shows the
// patch with why, and "@polylane fix" says how to grant the permission;
// no branch is written, since GitHub would refuse it.
func TestWorkflowFixWithoutWorkflowsPermission(t *testing.T) {
	r := newRig(t, storetest.Backends()[0], testdataScenario("rs-python-cuda-image-disk-full"))
	ctx := testCtx(t)
	r.commit(t, r.sc.Repository.DefaultBranch, map[string]string{configPath: "fix_pull_requests:\n  workflows: true\n"})
	r.revoke(t, map[string]string{"workflows": ""})
	fa := r.defaultBranchFix(t)
	if err := r.w.fix(ctx, fa); err != nil {
		t.Fatalf("fix job: %v", err)
	}
	if n := len(r.botPulls()); n != 0 {
		t.Fatalf("%d fix pull requests without workflows: write", n)
	}
	if d, err := r.st.GetDelivery(ctx, fa.DeliveryGUID); err != nil || d.State == store.DeliveryFailed {
		t.Errorf("delivery: %v %s %q", err, d.State, d.Error)
	}

	run, number := r.prFailure(t)
	r.diagnoseAndPublish(t, run.ID)
	comments := r.botComments(number)
	if len(comments) != 1 || !strings.Contains(comments[0].Body, "lacks the `workflows: write` permission") || !strings.Contains(comments[0].Body, "```diff") {
		t.Fatalf("the comment does not show the patch and why no pull request is opened:\n%v", comments)
	}
	if err := r.sim.SetPermission(r.repo, "writer", "write"); err != nil {
		t.Fatal(err)
	}
	r.sim.ResetRecording()
	if err := r.w.mention(ctx, r.say(t, number, "writer", "@polylane fix")); err != nil {
		t.Fatal(err)
	}
	got := r.replies(number)
	if len(got) != 1 || !strings.Contains(got[0].Body, "`workflows: write`") || !strings.Contains(got[0].Body, "/settings/installations/") || len(r.botPulls()) != 0 {
		t.Fatalf("@polylane fix without workflows: write: %d pull requests, replies %v", len(r.botPulls()), got)
	}
	if n := r.calls("POST", "/git/refs") + r.calls("POST", "/git/commits"); n != 0 {
		t.Errorf("%d branch or commit writes GitHub would refuse", n)
	}
}

// TestBranchRefusalIsNotAlreadyExists: a 422 on creating the fix branch
// whose message is not "Reference already exists" ends the job at once
// with GitHub's message, instead of moving a branch that does not exist
// and retrying.
func TestBranchRefusalIsNotAlreadyExists(t *testing.T) {
	r := newRig(t, storetest.Backends()[0], testdataScenario("rs-python-cuda-image-disk-full"))
	ctx := testCtx(t)
	r.commit(t, r.sc.Repository.DefaultBranch, map[string]string{configPath: "fix_pull_requests:\n  workflows: true\n"})
	fa := r.defaultBranchFix(t)
	r.sim.InjectFault(githubtest.Fault{Kind: githubtest.FaultValidation, Method: "POST", Path: "/repos/*/*/git/refs", Message: "Reference update failed"})
	r.sim.ResetRecording()
	err := r.w.fix(ctx, fa)
	var perm permanent
	if !errors.As(err, &perm) || !strings.Contains(err.Error(), "Reference update failed") {
		t.Fatalf("fix job: %v, want a permanent error with GitHub's message", err)
	}
	if n := r.calls("PATCH", ""); n != 0 {
		t.Errorf("%d branch moves after a refused creation", n)
	}
}

// TestTruncatedTree: where GitHub cuts the recursive tree listing, the
// diagnosis lists the directories it needs one at a time and reaches the
// same patch as with the whole listing, and the fix pull request carries
// it.
func TestTruncatedTree(t *testing.T) {
	ctx := testCtx(t)
	dir := testdataScenario("rs-python-cuda-image-disk-full")
	diagnosed := func(r *rig) string {
		t.Helper()
		r.commit(t, r.sc.Repository.DefaultBranch, map[string]string{configPath: "fix_pull_requests:\n  workflows: true\n"})
		fa := r.defaultBranchFix(t)
		_, doc := r.storedDiagnosis(t, fa.RunID, fa.Attempt)
		if err := r.w.fix(ctx, fa); err != nil {
			t.Fatalf("fix job: %v", err)
		}
		if n := len(r.botPulls()); n != 1 {
			t.Fatalf("%d fix pull requests, want 1", n)
		}
		return doc.Patch.Diff
	}
	whole := diagnosed(newRig(t, storetest.Backends()[0], dir))
	r := newRigWith(t, storetest.Backends()[0], dir, githubtest.Options{TreeLimit: 2})
	if cut := diagnosed(r); cut != whole {
		t.Errorf("patch from a truncated listing:\n%s\nwant:\n%s", cut, whole)
	}
	listings := 0
	for _, c := range r.sim.Calls() {
		if strings.Contains(c.Path, "/git/trees/") && !strings.Contains(c.Query, "recursive") {
			listings++
		}
	}
	if listings == 0 {
		t.Error("no directory was listed after the truncated listing")
	}
}

// TestLowBudgetDefersBackfill: with the installation's API budget nearly
// spent, a diagnosis that would read a workflow's history for the first
// time waits for the reset (a snooze) instead of spending the rest; with
// the budget back it runs.
func TestLowBudgetDefersBackfill(t *testing.T) {
	r := newRig(t, storetest.Backends()[0], conversationScenario)
	ctx := testCtx(t)
	actor := fmt.Sprintf("installation:%d", r.sc.InstallationID)
	r.sim.SetRateRemaining(actor, 100)
	a := r.deliver(t, r.sc.TriggerRunID)
	err := r.w.diagnose(ctx, a)
	var rl *ghclient.RateLimitedError
	if !errors.As(err, &rl) || rl.Wait <= 0 || rl.Wait > time.Hour+time.Minute {
		t.Fatalf("diagnose with 100 calls left: %v, want a wait until the reset", err)
	}
	if n := r.calls("GET", "/runs"); n != 0 {
		t.Errorf("%d run listings with the budget low", n)
	}
	r.sim.SetRateRemaining(actor, 5000)
	if err := r.w.diagnose(ctx, a); err != nil {
		t.Fatalf("diagnose with the budget back: %v", err)
	}
}

// TestValidationRefusalIsNotRetried: a 422 GitHub answers a write ends the
// job at once, its delivery failed with GitHub's message, rather than
// being retried eight times.
func TestValidationRefusalIsNotRetried(t *testing.T) {
	r := newRig(t, storetest.Backends()[0], conversationScenario)
	ctx := testCtx(t)
	run, _ := r.prFailure(t)
	a := r.deliver(t, run.ID)
	if err := r.w.diagnose(ctx, a); err != nil {
		t.Fatal(err)
	}
	r.sim.InjectFault(githubtest.Fault{Kind: githubtest.FaultValidation, Method: "POST", Path: "/repos/*/*/issues/*/comments", Message: "Body is too long"})
	verdict := r.w.run(ctx, &rivertype.JobRow{Kind: "publish", Attempt: 1, MaxAttempts: 8}, a.DeliveryGUID, "publish",
		func(ctx context.Context) error { return r.w.publish(ctx, jobs.PublishArgs(a)) })
	if !errors.As(verdict, new(*river.JobCancelError)) {
		t.Fatalf("verdict %v, want the job cancelled", verdict)
	}
	if d, err := r.st.GetDelivery(ctx, a.DeliveryGUID); err != nil || d.State != store.DeliveryFailed || !strings.Contains(d.Error, "Body is too long") {
		t.Errorf("delivery: %v %s %q", err, d.State, d.Error)
	}
}

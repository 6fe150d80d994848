package worker

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/polylane/polylane/server/jobs"

	"github.com/polylane/polylane/store/storetest"
)

// testdataScenario is an in-repository scenario of causal/diagnosis.
func testdataScenario(name string) string {
	return filepath.Join("..", "..", "causal", "diagnosis", "testdata", "scenarios", name)
}

// defaultBranchFix diagnoses and publishes the scenario's trigger (a
// default-branch failure) and returns the arguments of its fix job.
func (r *rig) defaultBranchFix(t *testing.T) jobs.FixArgs {
	t.Helper()
	a := r.diagnoseAndPublish(t, r.sc.TriggerRunID)
	_, doc := r.storedDiagnosis(t, a.RunID, a.Attempt)
	if doc.Patch == nil {
		t.Fatalf("the trigger's diagnosis has no patch")
	}
	return jobs.FixArgs{DeliveryGUID: a.DeliveryGUID, InstallationID: a.InstallationID, RepositoryID: a.RepositoryID,
		ClassID: doc.TriggerClass, RunID: a.RunID, Attempt: a.Attempt}
}

// TestWorkflowFixNeedsOptIn: a patch that changes .github/workflows/* is
// opened as a pull request only once the default branch's
// .github/polylane.yml sets fix_pull_requests.workflows: not by the fix job,
// not on "@polylane fix", which says how to allow it, and the pull
// request's comment shows the patch with the same sentence.
func TestWorkflowFixNeedsOptIn(t *testing.T) {
	r := newRig(t, storetest.Backends()[0], testdataScenario("rs-python-cuda-image-disk-full"))
	ctx := testCtx(t)
	fa := r.defaultBranchFix(t)
	for _, requested := range []bool{false, true} {
		fa.Requested = requested
		if err := r.w.fix(ctx, fa); err != nil {
			t.Fatal(err)
		}
		if n := len(r.botPulls()); n != 0 {
			t.Fatalf("requested %v: %d fix pull requests change a workflow without fix_pull_requests.workflows", requested, n)
		}
	}

	run, number := r.prFailure(t)
	r.diagnoseAndPublish(t, run.ID)
	_, doc := r.storedDiagnosis(t, run.ID, run.RunAttempt)
	if doc.Patch == nil || len(workflowFiles(doc.Patch.Diff)) == 0 {
		t.Fatalf("the pull request's diagnosis has no workflow patch")
	}
	comments := r.botComments(number)
	if len(comments) != 1 || !strings.Contains(comments[0].Body, "Polylane opens no pull request for this fix because it changes") ||
		!strings.Contains(comments[0].Body, "`fix_pull_requests.workflows: true`") || !strings.Contains(comments[0].Body, "```diff") {
		t.Fatalf("the comment does not show the patch and why no pull request is opened:\n%s", comments[0].Body)
	}
	if err := r.sim.SetPermission(r.repo, "writer", "write"); err != nil {
		t.Fatal(err)
	}
	if err := r.w.mention(ctx, r.say(t, number, "writer", "@polylane fix")); err != nil {
		t.Fatal(err)
	}
	if got := r.replies(number); len(got) != 1 || !strings.Contains(got[0].Body, "`fix_pull_requests.workflows: true`") || len(r.botPulls()) != 0 {
		t.Fatalf("@polylane fix without the opt-in: %d pull requests, replies %v", len(r.botPulls()), got)
	}

	r.commit(t, r.sc.Repository.DefaultBranch, map[string]string{configPath: "fix_pull_requests:\n  workflows: true\n"})
	fa.Requested = false
	if err := r.w.fix(ctx, fa); err != nil {
		t.Fatal(err)
	}
	if n := len(r.botPulls()); n != 1 {
		t.Fatalf("with fix_pull_requests.workflows: %d fix pull requests, want 1", n)
	}
}

// TestCredentialFixNeverAutomatic: a patch that passes the workflow's token
// is not CI-only, and is never opened by the fix job on its own, even
// where workflow changes are allowed; asked for by someone with write
// access, it is opened, and its body says what the token is given to.
func TestCredentialFixNeverAutomatic(t *testing.T) {
	r := newRig(t, storetest.Backends()[0], testdataScenario("rs-ts-release-notes-ratelimit"))
	ctx := testCtx(t)
	r.commit(t, r.sc.Repository.DefaultBranch, map[string]string{configPath: "fix_pull_requests:\n  workflows: true\n"})
	fa := r.defaultBranchFix(t)
	_, doc := r.storedDiagnosis(t, fa.RunID, fa.Attempt)
	if !strings.Contains(doc.Patch.Diff, "${{ github.token }}") {
		t.Fatalf("the patch passes no token:\n%s", doc.Patch.Diff)
	}
	if err := r.w.fix(ctx, fa); err != nil {
		t.Fatal(err)
	}
	if n := len(r.botPulls()); n != 0 {
		t.Fatalf("%d fix pull requests passing the workflow's token were opened without being asked for", n)
	}
	fa.Requested = true // what "@polylane fix" from someone with write access does
	if err := r.w.fix(ctx, fa); err != nil {
		t.Fatal(err)
	}
	pulls := r.botPulls()
	if len(pulls) != 1 {
		t.Fatalf("asked for: %d fix pull requests, want 1", len(pulls))
	}
	body := strings.ReplaceAll(pulls[0].Body, `\_`, "_") // markdown escapes
	for _, want := range []string{"Not a CI-only change: the patch passes a credential", "GITHUB_TOKEN to the step", "api.github.com"} {
		if !strings.Contains(body, want) {
			t.Errorf("the fix pull request's body lacks %q:\n%s", want, pulls[0].Body)
		}
	}
	if strings.Contains(pulls[0].Body, "CI-only change: nothing that is deployed") || strings.Contains(pulls[0].Body, "never opens this fix") {
		t.Errorf("the body calls the change CI-only, or says it is not opened:\n%s", pulls[0].Body)
	}
}

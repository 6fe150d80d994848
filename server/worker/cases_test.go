package worker

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/polylane/polylane/server/jobs"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/rs/zerolog"

	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/store/storetest"
)

// TestPatchNoLongerApplies changes the default branch's file so that the
// patch's context is gone: no pull request is opened, and the delivery
// says why.
func TestPatchNoLongerApplies(t *testing.T) {
	r := newRig(t, storetest.Backends()[0], sharedScenario(t, "karmada-rollout"))
	ctx := testCtx(t)
	a := r.deliver(t, r.sc.TriggerRunID)
	if err := r.w.diagnose(ctx, a); err != nil {
		t.Fatal(err)
	}
	_, doc := r.storedDiagnosis(t, a.RunID, a.Attempt)
	repo, err := r.gh.Repo(a.InstallationID, r.repo)
	if err != nil {
		t.Fatal(err)
	}
	head, err := repo.BranchHead(ctx, r.sc.Repository.DefaultBranch)
	if err != nil {
		t.Fatal(err)
	}
	commit, err := repo.GetCommit(ctx, head)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := repo.CreateTree(ctx, commit.Tree, []ghclient.TreeFile{{Path: "Taskfile.yaml", Content: []byte("version: '3'\ntasks: {}\n")}})
	if err != nil {
		t.Fatal(err)
	}
	moved, err := repo.CreateCommit(ctx, "rewrite the Taskfile", tree, []string{head})
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.MoveBranch(ctx, r.sc.Repository.DefaultBranch, moved, false); err != nil {
		t.Fatal(err)
	}
	fa := jobs.FixArgs{DeliveryGUID: a.DeliveryGUID, InstallationID: a.InstallationID, RepositoryID: a.RepositoryID,
		ClassID: doc.TriggerClass, RunID: a.RunID, Attempt: a.Attempt}
	if err := r.w.fix(ctx, fa); err != nil {
		t.Fatalf("fix job: %v (want an explained state, not an error)", err)
	}
	if n := len(r.botPulls()); n != 0 {
		t.Fatalf("%d fix pull requests opened for a patch that does not apply", n)
	}
	d, err := r.st.GetDelivery(ctx, a.DeliveryGUID)
	if err != nil {
		t.Fatal(err)
	}
	if d.State != store.DeliveryFailed || !strings.Contains(d.Error, "Taskfile.yaml") || !strings.Contains(d.Error, "not opened") {
		t.Fatalf("delivery %s: %q", d.State, d.Error)
	}
}

func TestLoopGuard(t *testing.T) {
	tests := []struct {
		payload string
		want    bool
	}{
		{`{"workflow_run":{"id":1,"head_branch":"polylane/fix-x","actor":{"login":"octocat"}},"repository":{"id":2,"full_name":"o/r"}}`, true},
		{`{"workflow_run":{"id":1,"head_branch":"main","actor":{"login":"polylane[bot]"}},"repository":{"id":2,"full_name":"o/r"}}`, true},
		{`{"workflow_run":{"id":1,"head_branch":"main","actor":{"login":"octocat"},"triggering_actor":{"login":"Polylane[bot]"}},"repository":{"id":2,"full_name":"o/r"}}`, true},
		{`{"workflow_run":{"id":1,"head_branch":"main","actor":{"login":"octocat"}},"repository":{"id":2,"full_name":"o/r"}}`, false},
		{`{"workflow_run":{"id":1,"head_branch":"polylane-docs","actor":{"login":"octocat"}},"repository":{"id":2,"full_name":"o/r"}}`, false},
	}
	for i, tc := range tests {
		p, err := parseRunPayload([]byte(tc.payload))
		if err != nil {
			t.Fatal(err)
		}
		if got := p.loopGuarded("polylane[bot]"); got != tc.want {
			t.Errorf("case %d: loop guarded = %v, want %v", i, got, tc.want)
		}
	}
	if _, err := parseRunPayload([]byte(`{"workflow_run":{"id":0}}`)); err == nil {
		t.Error("a payload without run or repository was accepted")
	}
}

// TestNoCredentials cancels jobs when no app is configured, and says so on
// the delivery.
func TestNoCredentials(t *testing.T) {
	st := storetest.OpenSQLite(t)
	ctx := context.Background()
	if _, err := st.RecordDelivery(ctx, store.Delivery{GUID: "g", Event: "workflow_run", Payload: []byte("{}")}, nil, nil); err != nil {
		t.Fatal(err)
	}
	w := &Worker{opts: Options{Store: st}, st: st, log: zerolog.Nop()}
	err := w.run(ctx, &rivertype.JobRow{Kind: jobs.KindPublish, Attempt: 1, MaxAttempts: 8}, "g", "publish", func(context.Context) error { return nil })
	var cancel *river.JobCancelError
	if !errors.As(err, &cancel) {
		t.Fatalf("err = %v, want a cancelled job", err)
	}
	d, _ := st.GetDelivery(ctx, "g")
	if d.State != store.DeliveryFailed || !strings.Contains(d.Error, "credentials") {
		t.Fatalf("delivery %s %q", d.State, d.Error)
	}
}

// TestRunVerdicts maps step errors to River's verdicts.
func TestRunVerdicts(t *testing.T) {
	st := storetest.OpenSQLite(t)
	ctx := context.Background()
	w := &Worker{opts: Options{Store: st}, st: st, gh: &ghclient.Client{}, log: zerolog.Nop()}
	tests := []struct {
		name  string
		err   error
		final bool
		check func(error) bool
	}{
		{"success", nil, false, func(err error) bool { return err == nil }},
		{"rate limited", &ghclient.RateLimitedError{Wait: 90}, false, func(err error) bool { return errors.As(err, new(*river.JobSnoozeError)) }},
		{"permanent", fail("bad"), false, func(err error) bool { return errors.As(err, new(*river.JobCancelError)) }},
		{"no permission", ghclient.ErrNoPermission, false, func(err error) bool { return errors.As(err, new(*river.JobCancelError)) }},
		{"transient", errors.New("boom"), false, func(err error) bool {
			return err != nil && !errors.As(err, new(*river.JobCancelError)) && !errors.As(err, new(*river.JobSnoozeError))
		}},
	}
	for _, tc := range tests {
		got := w.run(ctx, &rivertype.JobRow{Kind: KindDiagnoseForTest, Attempt: 1, MaxAttempts: 8}, "", tc.name, func(context.Context) error { return tc.err })
		if !tc.check(got) {
			t.Errorf("%s: verdict %v", tc.name, got)
		}
	}
}

// KindDiagnoseForTest labels jobs in TestRunVerdicts.
const KindDiagnoseForTest = "test"

// TestTreeFS checks the lazy tree against fstest and its bounds.
func TestTreeFS(t *testing.T) {
	blobs := map[string][]byte{"s1": []byte("version: '3'\n"), "s2": []byte("#!/bin/sh\necho hi\n"), "s3": []byte("x")}
	fetched := 0
	tree := ghclient.Tree{Entries: []ghclient.TreeEntry{
		{Path: "Taskfile.yaml", Mode: "100644", Type: "blob", SHA: "s1", Size: 13},
		{Path: "hack", Mode: "040000", Type: "tree", SHA: "t1"},
		{Path: "hack/e2e.sh", Mode: "100755", Type: "blob", SHA: "s2", Size: 18},
		{Path: "vendor", Mode: "160000", Type: "commit", SHA: "c1"},
	}}
	fsys := newTreeFS(tree, 10, func(sha string) ([]byte, error) {
		fetched++
		return blobs[sha], nil
	})
	if err := fstest.TestFS(fsys, "Taskfile.yaml", "hack/e2e.sh"); err != nil {
		t.Fatal(err)
	}
	if fetched != 2 {
		t.Fatalf("%d downloads, want each file once", fetched)
	}
	info, err := fs.Stat(fsys, "hack/e2e.sh")
	if err != nil || info.Mode().Perm() != 0o755 || info.Size() != 18 {
		t.Fatalf("stat: %v %v", info, err)
	}

	big := ghclient.Tree{Entries: []ghclient.TreeEntry{
		{Path: "huge.bin", Mode: "100644", Type: "blob", SHA: "s3", Size: maxBlobBytes + 1},
		{Path: "link", Mode: "120000", Type: "blob", SHA: "s3", Size: 1},
		{Path: "a", Mode: "100644", Type: "blob", SHA: "s3", Size: 1},
		{Path: "b", Mode: "100644", Type: "blob", SHA: "s4", Size: 1},
		{Path: "../escape", Mode: "100644", Type: "blob", SHA: "s3", Size: 1},
	}}
	failing := newTreeFS(big, 1, func(sha string) ([]byte, error) {
		if sha == "s4" {
			return nil, errors.New("GitHub is down")
		}
		return blobs[sha], nil
	})
	for _, name := range []string{"huge.bin", "link", "../escape"} {
		if _, err := fs.ReadFile(failing, name); err == nil {
			t.Errorf("%s was read", name)
		}
	}
	if _, err := fs.ReadFile(failing, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := fs.ReadFile(failing, "b"); err == nil || failing.Err() != nil {
		t.Fatalf("past the budget: %v, kept %v (want a refusal, not a kept failure)", err, failing.Err())
	}
	retry := newTreeFS(big, 5, failing.fetch)
	if _, err := fs.ReadFile(retry, "b"); err == nil || retry.Err() == nil {
		t.Fatalf("a failed download was not kept: %v", retry.Err())
	}
}

// TestRegressionComment publishes a regression without a patch: one
// comment on the change that introduced the first bad commit (a commit
// comment when no pull request has it), not repeated by a second publish,
// and no fix pull request.
func TestRegressionComment(t *testing.T) {
	dir := filepath.Join("..", "..", "causal", "diagnosis", "testdata", "scenarios", "regression-unit-test")
	r := newRig(t, storetest.Backends()[0], dir)
	ctx := testCtx(t)
	a := r.deliver(t, r.sc.TriggerRunID)
	if err := r.w.diagnose(ctx, a); err != nil {
		t.Fatal(err)
	}
	_, doc := r.storedDiagnosis(t, a.RunID, a.Attempt)
	if doc.Verdict.Kind != "regression" || doc.Verdict.FirstBadSHA == nil || doc.Patch != nil {
		t.Fatalf("diagnosis: verdict %s, first bad %v, patch %v", doc.Verdict.Kind, doc.Verdict.FirstBadSHA, doc.Patch != nil)
	}
	pa := jobs.PublishArgs(a)
	for range 2 {
		if err := r.w.publish(ctx, pa); err != nil {
			t.Fatal(err)
		}
	}
	var ours []string
	for _, c := range r.sim.CommitComments(r.repo) {
		if c.User == r.sim.AppSlug()+"[bot]" {
			ours = append(ours, c.SHA)
		}
	}
	if len(ours) != 1 || ours[0] != *doc.Verdict.FirstBadSHA {
		t.Fatalf("commit comments by the app: %v, want one on %s", ours, *doc.Verdict.FirstBadSHA)
	}
	if n := len(r.botPulls()); n != 0 {
		t.Fatalf("%d fix pull requests for a regression", n)
	}
}

// TestCrashedJobIsNotRunAgain: a job that River rescued from a dead process
// once runs again; after a second rescue its step is not run, the job is
// cancelled and the delivery says why.
func TestCrashedJobIsNotRunAgain(t *testing.T) {
	st := storetest.OpenSQLite(t)
	ctx := context.Background()
	w := &Worker{opts: Options{Store: st}, st: st, gh: &ghclient.Client{}, log: zerolog.Nop()}
	rescued := rivertype.AttemptError{Error: "Stuck job rescued by JobRescuer"}
	for _, tc := range []struct {
		guid   string
		errs   []rivertype.AttemptError
		runs   bool
		failed bool
	}{
		{"fresh", nil, true, false},
		{"one crash", []rivertype.AttemptError{rescued}, true, false},
		{"crash and error", []rivertype.AttemptError{rescued, {Error: "502 Bad Gateway"}}, true, false},
		{"two crashes", []rivertype.AttemptError{rescued, {Error: "boom"}, rescued}, false, true},
	} {
		if _, err := st.RecordDelivery(ctx, store.Delivery{GUID: tc.guid, Event: "workflow_run", Payload: []byte("{}")}, nil, nil); err != nil {
			t.Fatal(err)
		}
		ran := false
		err := w.run(ctx, &rivertype.JobRow{Kind: KindDiagnoseForTest, Attempt: len(tc.errs) + 1, MaxAttempts: 8, Errors: tc.errs}, tc.guid, "diagnose",
			func(context.Context) error { ran = true; return nil })
		d, _ := st.GetDelivery(ctx, tc.guid)
		if ran != tc.runs || errors.As(err, new(*river.JobCancelError)) != tc.failed || (d.State == store.DeliveryFailed) != tc.failed {
			t.Errorf("%s: ran %v, verdict %v, delivery %s %q", tc.guid, ran, err, d.State, d.Error)
		}
	}
}

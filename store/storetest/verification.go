package storetest

import (
	"testing"
	"time"

	"github.com/polylane/polylane/store"
)

func testFixVerification(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	repo := seedRepo(t, s)
	must(t, s.UpsertClass(ctx, store.FailureClass{RepositoryID: repo.ID, ID: "cls-a", LastSeen: base}))
	must(t, s.UpsertFixPullRequest(ctx, store.FixPullRequest{RepositoryID: repo.ID, ClassID: "cls-a", Number: 40,
		Branch: "polylane/fix-cls-a", State: store.FixOpen, HeadSHA: "abc", CreatedAt: base}))

	green := store.FixVerificationRun{RepositoryID: repo.ID, ClassID: "cls-a", RunID: 900, Attempt: 1, WorkflowID: 7,
		WorkflowName: "E2E Tests", HeadSHA: "abc", Conclusion: "success", CompletedAt: base}
	changed, err := s.PutFixVerificationRun(ctx, green)
	must(t, err)
	if !changed {
		t.Fatal("a new run did not change the record")
	}
	changed, err = s.PutFixVerificationRun(ctx, green)
	must(t, err)
	if changed {
		t.Fatal("a redelivered run changed the record")
	}
	red := store.FixVerificationRun{RepositoryID: repo.ID, ClassID: "cls-a", RunID: 800, Attempt: 2, WorkflowID: 8,
		WorkflowName: "Lint", HeadSHA: "abc", Conclusion: "failure", FailedJob: "golangci", Cause: "main.go:3: unused x",
		FailureClass: "cls-lint", CompletedAt: base.Add(time.Minute)}
	_, err = s.PutFixVerificationRun(ctx, red)
	must(t, err)
	red.InClass, red.FailureClass = true, "cls-a"
	changed, err = s.PutFixVerificationRun(ctx, red)
	must(t, err)
	if !changed {
		t.Fatal("a run whose analysis changed did not change the record")
	}
	list, err := s.ListFixVerificationRuns(ctx, repo.ID, "cls-a")
	must(t, err)
	if len(list) != 2 || list[0].RunID != 800 || list[1].RunID != 900 || list[0].UpdatedAt.IsZero() {
		t.Fatalf("verification runs: %+v", list)
	}
	red.UpdatedAt = list[0].UpdatedAt
	equal(t, "verification run", list[0], red)
	if other, err := s.ListFixVerificationRuns(ctx, repo.ID, "cls-b"); err != nil || len(other) != 0 {
		t.Fatalf("another class's runs: %v %+v", err, other)
	}
	_, err = s.PutFixVerificationRun(ctx, store.FixVerificationRun{RepositoryID: repo.ID, ClassID: "cls-a", RunID: 1, Attempt: 1})
	wantErr(t, err, store.ErrInvalid)
	_, err = s.PutFixVerificationRun(ctx, store.FixVerificationRun{RepositoryID: repo.ID, ClassID: "no-fix", RunID: 1, Attempt: 1,
		Conclusion: "success", CompletedAt: base})
	wantErr(t, err, store.ErrNotFound)

	v, err := s.GetFixVerification(ctx, repo.ID, "cls-a")
	must(t, err)
	if v.Reruns != 0 || v.Refused != "" || !v.LastRerunAt.IsZero() {
		t.Fatalf("verification before any rerun: %+v", v)
	}
	v.Reruns, v.LastRerunAt = 2, base.Add(time.Hour)
	must(t, s.PutFixVerification(ctx, v))
	v.Refused = "Resource not accessible by integration"
	must(t, s.PutFixVerification(ctx, v))
	got, err := s.GetFixVerification(ctx, repo.ID, "cls-a")
	must(t, err)
	v.UpdatedAt = got.UpdatedAt
	equal(t, "fix verification", got, v)
	wantErr(t, s.PutFixVerification(ctx, store.FixVerification{RepositoryID: repo.ID, ClassID: "cls-a", Reruns: -1}), store.ErrInvalid)
	wantErr(t, s.PutFixVerification(ctx, store.FixVerification{RepositoryID: repo.ID, ClassID: "no-fix"}), store.ErrNotFound)
}

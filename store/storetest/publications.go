package storetest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/polylane/polylane/store"
)

func testDiagnoses(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	repo := seedRepo(t, s)
	run := seedRun(t, s, repo.ID, 7001, 1, base)
	doc := json.RawMessage(`{"schema": "polylane.diagnosis/v1", "verdict": {"kind": "flaky"}, "n": [1, 2.5, null]}`)
	d := store.Diagnosis{RepositoryID: repo.ID, RunID: 7001, Attempt: 1, Document: doc, Verdict: "flaky",
		ClassID: "cls-1", CreatedAt: base}
	id, err := s.PutDiagnosis(ctx, d, store.Job{Args: testArgs{N: 7}})
	must(t, err)
	if id <= 0 {
		t.Fatalf("diagnosis id = %d", id)
	}
	if n := jobCount(t, s); n != 1 {
		t.Fatalf("jobs after PutDiagnosis with one job = %d", n)
	}
	got, err := s.GetDiagnosis(ctx, run.Key())
	must(t, err)
	sameJSON(t, "document", got.Document, doc)
	got.Document, d.Document, d.ID = nil, nil, id
	equal(t, "diagnosis", got, d)

	n, err := s.MarkDiagnosesStale(ctx, repo.ID, "cls-1")
	must(t, err)
	if n != 1 {
		t.Fatalf("MarkDiagnosesStale changed %d, want 1", n)
	}
	n, err = s.MarkDiagnosesStale(ctx, repo.ID, "cls-1")
	must(t, err)
	if n != 0 {
		t.Fatalf("MarkDiagnosesStale twice changed %d, want 0", n)
	}
	byID, err := s.GetDiagnosisByID(ctx, id)
	must(t, err)
	if !byID.Stale {
		t.Fatal("diagnosis not stale after MarkDiagnosesStale")
	}

	// Replacing keeps the id and clears the stale flag.
	d.Document, d.Verdict, d.CreatedAt = json.RawMessage(`{"v": 2}`), "regression", base.Add(time.Hour)
	id2, err := s.PutDiagnosis(ctx, d)
	must(t, err)
	got, err = s.GetDiagnosisByID(ctx, id2)
	must(t, err)
	if id2 != id || got.Stale || got.Verdict != "regression" || !got.CreatedAt.Equal(d.CreatedAt) {
		t.Fatalf("after replace: id %d (was %d) %+v", id2, id, got)
	}

	// A failing job rolls the diagnosis back.
	other := seedRun(t, s, repo.ID, 7002, 1, base)
	d2 := store.Diagnosis{RepositoryID: repo.ID, RunID: other.RunID, Attempt: 1, Document: doc}
	if _, err := s.PutDiagnosis(ctx, d2, store.Job{Args: unmarshalableArgs{C: make(chan int)}}); err == nil {
		t.Fatal("PutDiagnosis with a failing job succeeded")
	}
	_, err = s.GetDiagnosis(ctx, other.Key())
	wantErr(t, err, store.ErrNotFound)

	d2.Document = json.RawMessage(`{"truncated":`)
	_, err = s.PutDiagnosis(ctx, d2)
	wantErr(t, err, store.ErrInvalid)
	d2.Document, d2.RunID = doc, 1
	_, err = s.PutDiagnosis(ctx, d2)
	wantErr(t, err, store.ErrNotFound)
	_, err = s.GetDiagnosisByID(ctx, id+1000)
	wantErr(t, err, store.ErrNotFound)
}

func testComments(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	repo := seedRepo(t, s)
	seedRun(t, s, repo.ID, 7101, 1, base)
	did, err := s.PutDiagnosis(ctx, store.Diagnosis{RepositoryID: repo.ID, RunID: 7101, Attempt: 1, Document: json.RawMessage(`{}`)})
	must(t, err)

	c := store.PublishedComment{RepositoryID: repo.ID, Number: 12, Kind: store.CommentDiagnosis, CommentID: 9001, DiagnosisID: did}
	must(t, s.UpsertComment(ctx, c))
	got, err := s.GetComment(ctx, repo.ID, 12, store.CommentDiagnosis)
	must(t, err)
	c.CreatedAt, c.UpdatedAt = got.CreatedAt, got.UpdatedAt
	equal(t, "comment", got, c)

	// One comment per (repository, number, kind): a second upsert replaces it.
	c.CommentID, c.DiagnosisID = 9002, 0
	must(t, s.UpsertComment(ctx, c))
	must(t, s.UpsertComment(ctx, store.PublishedComment{RepositoryID: repo.ID, Number: 12, Kind: store.CommentReply, CommentID: 9003}))
	got, err = s.GetComment(ctx, repo.ID, 12, store.CommentDiagnosis)
	must(t, err)
	if got.CommentID != 9002 || got.DiagnosisID != 0 {
		t.Fatalf("after replace: %+v", got)
	}
	_, err = s.GetComment(ctx, repo.ID, 13, store.CommentDiagnosis)
	wantErr(t, err, store.ErrNotFound)
	wantErr(t, s.UpsertComment(ctx, store.PublishedComment{RepositoryID: repo.ID, Number: 1, Kind: "x", CommentID: 1, DiagnosisID: did + 99}), store.ErrNotFound)
	wantErr(t, s.UpsertComment(ctx, store.PublishedComment{RepositoryID: repo.ID, Number: 1}), store.ErrInvalid)
}

func testFixPullRequests(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	repo := seedRepo(t, s)
	for _, id := range []string{"cls-a", "cls-b"} {
		must(t, s.UpsertClass(ctx, store.FailureClass{RepositoryID: repo.ID, ID: id, LastSeen: base}))
	}
	p := store.FixPullRequest{RepositoryID: repo.ID, ClassID: "cls-a", Number: 40, Branch: "polylane/fix-cls-a",
		State: store.FixOpen, HeadSHA: "abc", CreatedAt: base}
	must(t, s.UpsertFixPullRequest(ctx, p))
	got, err := s.GetFixPullRequest(ctx, repo.ID, "cls-a")
	must(t, err)
	p.UpdatedAt = got.UpdatedAt
	equal(t, "fix pull request", got, p)

	p.State, p.ClosedAt, p.CreatedAt = store.FixMerged, base.Add(time.Hour), time.Time{}
	must(t, s.UpsertFixPullRequest(ctx, p))
	must(t, s.UpsertFixPullRequest(ctx, store.FixPullRequest{RepositoryID: repo.ID, ClassID: "cls-b", Number: 41,
		Branch: "polylane/fix-cls-b", State: store.FixOpen, CreatedAt: base.Add(time.Minute)}))
	list, err := s.ListFixPullRequests(ctx, repo.ID)
	must(t, err)
	if len(list) != 2 || list[0].Number != 41 || list[1].State != store.FixMerged || !list[1].ClosedAt.Equal(p.ClosedAt) ||
		!list[1].CreatedAt.Equal(base) {
		t.Fatalf("fix pull requests: %+v", list)
	}
	wantErr(t, s.UpsertFixPullRequest(ctx, store.FixPullRequest{RepositoryID: repo.ID, ClassID: "cls-a", Number: 1,
		Branch: "b", State: "draft"}), store.ErrInvalid)
	wantErr(t, s.UpsertFixPullRequest(ctx, store.FixPullRequest{RepositoryID: repo.ID, ClassID: "no-class", Number: 1,
		Branch: "b", State: store.FixOpen}), store.ErrNotFound)
	_, err = s.GetFixPullRequest(ctx, repo.ID, "cls-z")
	wantErr(t, err, store.ErrNotFound)
}

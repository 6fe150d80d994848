package storetest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/polylane/polylane/store"
)

// testConversations covers the stale flag of one diagnosis and the records
// of "@polylane" commands.
func testConversations(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	repo := seedRepo(t, s)
	seedRun(t, s, repo.ID, 8001, 1, base)
	seedRun(t, s, repo.ID, 8002, 1, base)
	id, err := s.PutDiagnosis(ctx, store.Diagnosis{RepositoryID: repo.ID, RunID: 8001, Attempt: 1,
		Document: json.RawMessage(`{}`), ClassID: "cls-a"})
	must(t, err)
	other, err := s.PutDiagnosis(ctx, store.Diagnosis{RepositoryID: repo.ID, RunID: 8002, Attempt: 1,
		Document: json.RawMessage(`{}`), ClassID: "cls-a"})
	must(t, err)
	must(t, s.SetDiagnosisStale(ctx, id, true))
	for _, tc := range []struct {
		id    int64
		stale bool
	}{{id, true}, {other, false}} {
		d, err := s.GetDiagnosisByID(ctx, tc.id)
		must(t, err)
		if d.Stale != tc.stale {
			t.Fatalf("diagnosis %d stale = %v, want %v (only the one flagged)", tc.id, d.Stale, tc.stale)
		}
	}
	must(t, s.SetDiagnosisStale(ctx, id, false))
	if d, _ := s.GetDiagnosisByID(ctx, id); d.Stale {
		t.Fatal("stale flag not cleared")
	}
	wantErr(t, s.SetDiagnosisStale(ctx, 999999, true), store.ErrNotFound)

	_, err = s.GetMention(ctx, repo.ID, 55, "help")
	wantErr(t, err, store.ErrNotFound)
	m := store.Mention{RepositoryID: repo.ID, CommentID: 55, Command: "mute cls-a flaky upstream", Number: 12,
		Author: "octocat", State: store.MentionActing, CreatedAt: base}
	must(t, s.PutMention(ctx, m))
	got, err := s.GetMention(ctx, repo.ID, 55, m.Command)
	must(t, err)
	if got.State != store.MentionActing || got.Number != 12 || got.Author != "octocat" || !got.CreatedAt.Equal(base) || got.UpdatedAt.IsZero() {
		t.Fatalf("stored mention %+v", got)
	}
	m.State, m.ReplyID, m.Outcome = store.MentionDone, 9001, "muted"
	must(t, s.PutMention(ctx, m))
	got, err = s.GetMention(ctx, repo.ID, 55, m.Command)
	must(t, err)
	if got.State != store.MentionDone || got.ReplyID != 9001 || got.Outcome != "muted" || !got.CreatedAt.Equal(base) {
		t.Fatalf("replaced mention %+v", got)
	}
	// Another command of the same comment is a record of its own.
	_, err = s.GetMention(ctx, repo.ID, 55, "unmute cls-a")
	wantErr(t, err, store.ErrNotFound)
	for _, bad := range []store.Mention{
		{RepositoryID: repo.ID, CommentID: 55, State: store.MentionDone},
		{RepositoryID: repo.ID, CommentID: 55, Command: "help", State: "lost"},
		{RepositoryID: repo.ID, CommentID: 55, Command: strings.Repeat("x", 3000), State: store.MentionDone},
	} {
		wantErr(t, s.PutMention(ctx, bad), store.ErrInvalid)
	}
	testReplyCount(t, s, repo.ID)
}

// testReplyCount covers the count of replies to an author without write
// access: one per reply, whatever the number of commands it answered, and
// only that author's unprivileged, answered commands in that repository.
func testReplyCount(t *testing.T, s store.Store, repoID int64) {
	ctx := ctxFor(t)
	other := repoID + 1000 // mentions name a repository by id only
	start := time.Now().Add(-time.Minute)
	for _, m := range []store.Mention{
		{RepositoryID: repoID, CommentID: 60, Command: "fix", Author: "mallory", ReplyID: 700, Unprivileged: true},
		{RepositoryID: repoID, CommentID: 60, Command: "rerun", Author: "mallory", ReplyID: 700, Unprivileged: true},
		{RepositoryID: repoID, CommentID: 61, Command: "help", Author: "mallory", ReplyID: 701, Unprivileged: true},
		{RepositoryID: repoID, CommentID: 62, Command: "help", Author: "mallory", ReplyID: 702},
		{RepositoryID: repoID, CommentID: 63, Command: "help", Author: "mallory", Unprivileged: true},
		{RepositoryID: repoID, CommentID: 64, Command: "help", Author: "eve", ReplyID: 704, Unprivileged: true},
		{RepositoryID: other, CommentID: 65, Command: "help", Author: "mallory", ReplyID: 705, Unprivileged: true},
	} {
		m.Number, m.State = 12, store.MentionDone
		must(t, s.PutMention(ctx, m))
	}
	got, err := s.GetMention(ctx, repoID, 61, "help")
	must(t, err)
	if !got.Unprivileged {
		t.Fatalf("stored mention lost Unprivileged: %+v", got)
	}
	for _, tc := range []struct {
		repo   int64
		author string
		since  time.Time
		want   int
	}{
		{repoID, "mallory", start, 2},
		{repoID, "eve", start, 1},
		{other, "mallory", start, 1},
		{repoID, "nobody", start, 0},
		{repoID, "mallory", time.Now().Add(time.Hour), 0},
	} {
		n, err := s.CountUnprivilegedReplies(ctx, tc.repo, tc.author, tc.since)
		must(t, err)
		if n != tc.want {
			t.Errorf("replies to %s in repository %d since %s = %d, want %d", tc.author, tc.repo, tc.since.Format(time.TimeOnly), n, tc.want)
		}
	}
}

package storetest

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/polylane/polylane/store"
)

func testOccurrences(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	repo := seedRepo(t, s)
	older := seedRun(t, s, repo.ID, 8001, 1, base)
	newer := seedRun(t, s, repo.ID, 8002, 1, base.Add(time.Hour))
	exit := 2
	lines := json.RawMessage(`[{"n": 12, "text": "FAIL: TestX", "role": "cause"}]`)
	occ := []store.Occurrence{
		{JobID: 1, JobName: "test", StepNumber: 4, StepName: "go test", Signature: "FAIL: Test<N>", SignatureID: "s1",
			CauseLines: lines, ExitCode: &exit, ClassID: "c1"},
		{JobID: 2, JobName: "lint", StepNumber: 3, StepName: "lint", Unknown: true, ClassID: "c2",
			OccurredAt: base.Add(2 * time.Minute)},
	}
	must(t, s.PutOccurrences(ctx, older.Key(), occ))
	must(t, s.PutOccurrences(ctx, newer.Key(), occ[:1]))

	got, err := s.ListOccurrences(ctx, store.OccurrenceQuery{RepositoryID: repo.ID, ClassID: "c1"})
	must(t, err)
	if len(got) != 2 || got[0].RunID != 8002 || got[1].RunID != 8001 {
		t.Fatalf("occurrences of c1 newest first: %+v", got)
	}
	first := got[1]
	sameJSON(t, "cause lines", first.CauseLines, lines)
	first.CauseLines = nil
	want := occ[0]
	want.RepositoryID, want.RunID, want.Attempt, want.OccurredAt, want.CauseLines = repo.ID, 8001, 1, base, nil
	equal(t, "occurrence", first, want)

	all, err := s.ListOccurrences(ctx, store.OccurrenceQuery{RepositoryID: repo.ID})
	must(t, err)
	if len(all) != 3 {
		t.Fatalf("all occurrences: %d, want 3", len(all))
	}
	lint := all[1]
	if lint.ClassID != "c2" || lint.ExitCode != nil || !lint.Unknown || string(lint.CauseLines) != "[]" {
		t.Fatalf("occurrence without cause lines or exit code: %+v (lines %s)", lint, lint.CauseLines)
	}
	since, err := s.ListOccurrences(ctx, store.OccurrenceQuery{RepositoryID: repo.ID, Since: base.Add(time.Minute)})
	must(t, err)
	if len(since) != 2 {
		t.Fatalf("occurrences since base+1m: %d, want 2", len(since))
	}
	none, err := s.ListOccurrences(ctx, store.OccurrenceQuery{RepositoryID: repo.ID, WorkflowID: 99})
	must(t, err)
	if len(none) != 0 {
		t.Fatalf("occurrences of an unknown workflow: %+v", none)
	}

	// Replacing the occurrences of an attempt.
	must(t, s.PutOccurrences(ctx, older.Key(), nil))
	all, err = s.ListOccurrences(ctx, store.OccurrenceQuery{RepositoryID: repo.ID})
	must(t, err)
	if len(all) != 1 {
		t.Fatalf("after clearing run 8001: %d occurrences, want 1", len(all))
	}
	bad := []store.Occurrence{{JobID: 1, StepNumber: 1, CauseLines: json.RawMessage(`{not json`)}}
	wantErr(t, s.PutOccurrences(ctx, older.Key(), bad), store.ErrInvalid)
	wantErr(t, s.PutOccurrences(ctx, store.RunKey{RepositoryID: repo.ID, RunID: 1, Attempt: 1}, occ), store.ErrNotFound)
}

func testClasses(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	repo := seedRepo(t, s)
	c := store.FailureClass{RepositoryID: repo.ID, ID: "cls-1", WorkflowID: 7, WorkflowPath: ".github/workflows/ci.yml",
		Step: "go test", Signature: "FAIL: Test<N>", FirstSeen: base, LastSeen: base.Add(time.Hour), Count: 3,
		Pattern: "intermittent", Verdict: "flaky"}
	must(t, s.UpsertClass(ctx, c))
	got, err := s.GetClass(ctx, repo.ID, "cls-1")
	must(t, err)
	c.UpdatedAt = got.UpdatedAt
	equal(t, "class", got, c)

	must(t, s.MuteClass(ctx, repo.ID, "cls-1", true, "known flake, tracked in #12"))
	// A later analysis: a window that starts later and ends later.
	later := c
	later.FirstSeen, later.LastSeen, later.Count, later.Pattern = base.Add(time.Minute), base.Add(2*time.Hour), 5, "persistent"
	must(t, s.UpsertClass(ctx, later))
	got, err = s.GetClass(ctx, repo.ID, "cls-1")
	must(t, err)
	if !got.FirstSeen.Equal(base) || !got.LastSeen.Equal(later.LastSeen) || got.Count != 5 || got.Pattern != "persistent" {
		t.Fatalf("after a second upsert: %+v (first_seen kept earliest, last_seen latest, stats replaced)", got)
	}
	if !got.Muted || got.MuteReason != "known flake, tracked in #12" {
		t.Fatalf("UpsertClass lost the mute: %+v", got)
	}

	must(t, s.UpsertClass(ctx, store.FailureClass{RepositoryID: repo.ID, ID: "cls-2", LastSeen: base}))
	tests := []struct {
		query store.ClassQuery
		want  []string
	}{
		{store.ClassQuery{RepositoryID: repo.ID}, []string{"cls-2"}},
		{store.ClassQuery{RepositoryID: repo.ID, IncludeMuted: true}, []string{"cls-1", "cls-2"}},
		{store.ClassQuery{RepositoryID: repo.ID, IncludeMuted: true, WorkflowID: 7}, []string{"cls-1"}},
		{store.ClassQuery{RepositoryID: 5}, nil},
	}
	for _, tc := range tests {
		list, err := s.ListClasses(ctx, tc.query)
		must(t, err)
		var ids []string
		for _, c := range list {
			ids = append(ids, c.ID)
		}
		equal(t, "classes", ids, tc.want)
	}
	wantErr(t, s.MuteClass(ctx, repo.ID, "nope", true, ""), store.ErrNotFound)
	_, err = s.GetClass(ctx, repo.ID, "nope")
	wantErr(t, err, store.ErrNotFound)
	wantErr(t, s.UpsertClass(ctx, store.FailureClass{RepositoryID: repo.ID, ID: "x"}), store.ErrInvalid)
}

// testConfigMutes: the configuration's mutes are set and cleared as a
// whole, apart from command mutes, survive a later analysis, and leave
// their classes out of ListClasses unless muted ones are asked for.
func testConfigMutes(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	repo := seedRepo(t, s)
	for i, id := range []string{"a", "b", "c"} {
		must(t, s.UpsertClass(ctx, store.FailureClass{RepositoryID: repo.ID, ID: id, LastSeen: base.Add(time.Duration(i) * time.Hour)}))
	}
	must(t, s.MuteClass(ctx, repo.ID, "c", true, "by command"))
	state := func() map[string]string {
		t.Helper()
		out := map[string]string{}
		for _, id := range []string{"a", "b", "c"} {
			c, err := s.GetClass(ctx, repo.ID, id)
			must(t, err)
			out[id] = fmt.Sprintf("config=%v(%s) command=%v(%s)", c.MutedInConfig, c.ConfigMuteReason, c.Muted, c.MuteReason)
		}
		return out
	}
	listed := func() []string {
		t.Helper()
		list, err := s.ListClasses(ctx, store.ClassQuery{RepositoryID: repo.ID})
		must(t, err)
		var ids []string
		for _, c := range list {
			ids = append(ids, c.ID)
		}
		return ids
	}

	must(t, s.SetConfigMutes(ctx, repo.ID, map[string]string{"a": "noisy", "c": "", "not-stored": "x"}))
	equal(t, "after the first configuration", state(), map[string]string{
		"a": "config=true(noisy) command=false()", "b": "config=false() command=false()", "c": "config=true() command=true(by command)"})
	equal(t, "listed unmuted", listed(), []string{"b"})

	// A later analysis of the class keeps the mark.
	must(t, s.UpsertClass(ctx, store.FailureClass{RepositoryID: repo.ID, ID: "a", LastSeen: base.Add(5 * time.Hour), Count: 9}))
	// The file changes: a's reason, b muted, c no longer named.
	must(t, s.SetConfigMutes(ctx, repo.ID, map[string]string{"a": "still noisy", "b": "new"}))
	equal(t, "after the second configuration", state(), map[string]string{
		"a": "config=true(still noisy) command=false()", "b": "config=true(new) command=false()", "c": "config=false() command=true(by command)"})
	equal(t, "listed unmuted", listed(), []string(nil))

	// A file that mutes nothing clears every mark, and leaves the command's.
	must(t, s.SetConfigMutes(ctx, repo.ID, nil))
	equal(t, "after an empty configuration", state(), map[string]string{
		"a": "config=false() command=false()", "b": "config=false() command=false()", "c": "config=false() command=true(by command)"})
	equal(t, "listed unmuted", listed(), []string{"a", "b"})
}

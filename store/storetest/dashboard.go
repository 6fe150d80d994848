package storetest

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/polylane/polylane/store"
)

// testDashboard checks the dashboard's read models: per-day counts follow
// inserts and updates of runs, a failed attempt counts for its first failing
// step's class, and the diagnosis and occurrence lists page with cursors.
func testDashboard(t *testing.T, s store.Store) {
	t.Run("RunDays", func(t *testing.T) { testRunDays(t, s) })
	t.Run("ClassDays", func(t *testing.T) { testClassDays(t, s) })
	t.Run("Pages", func(t *testing.T) { testDashboardPages(t, s) })
}

// dashRepo stores installation 1 and a repository of its own for one subtest.
func dashRepo(t *testing.T, s store.Store, id int64) store.Repository {
	t.Helper()
	ctx := ctxFor(t)
	must(t, s.UpsertInstallation(ctx, store.Installation{ID: 1, AccountLogin: "acme", AccountType: "Organization"}))
	r := store.Repository{ID: id, InstallationID: 1, FullName: fmt.Sprintf("acme/dash-%d", id), DefaultBranch: "main"}
	must(t, s.UpsertRepository(ctx, r))
	return r
}

// dashRun stores a run attempt of workflow wf with a conclusion.
func dashRun(t *testing.T, s store.Store, repo, runID int64, wf int64, name, conclusion string, created time.Time) store.WorkflowRun {
	t.Helper()
	r := store.WorkflowRun{RepositoryID: repo, RunID: runID, Attempt: 1, WorkflowID: wf, WorkflowPath: ".github/workflows/" + name + ".yml",
		WorkflowName: name, RunNumber: int(runID), Branch: "main", Event: "push", Status: "completed",
		Conclusion: conclusion, CreatedAt: created}
	must(t, s.UpsertRun(ctxFor(t), r))
	return r
}

func testRunDays(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	repo := dashRepo(t, s, 201)
	day0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	dashRun(t, s, repo.ID, 1, 7, "CI", "success", day0.Add(time.Hour))
	dashRun(t, s, repo.ID, 2, 7, "CI", "failure", day0.Add(2*time.Hour))
	dashRun(t, s, repo.ID, 3, 7, "CI", "failure", day0.Add(26*time.Hour))
	pending := dashRun(t, s, repo.ID, 4, 7, "CI", "", day0.Add(27*time.Hour))
	dashRun(t, s, repo.ID, 5, 8, "Nightly", "success", day0.Add(-time.Hour))

	// The pending run completes, and the workflow is renamed by its newest run.
	pending.Status, pending.Conclusion, pending.WorkflowName = "completed", "success", "CI (renamed)"
	must(t, s.UpsertRun(ctx, pending))
	must(t, s.UpsertRun(ctx, pending)) // an update that changes nothing counts nothing

	days, err := s.RunDays(ctx, store.DayQuery{RepositoryIDs: []int64{repo.ID}, From: day0, To: day0.Add(48 * time.Hour)})
	must(t, err)
	want := []store.RunDay{
		{RepositoryID: repo.ID, WorkflowID: 7, Day: day0, Conclusion: "failure", Runs: 1},
		{RepositoryID: repo.ID, WorkflowID: 7, Day: day0, Conclusion: "success", Runs: 1},
		{RepositoryID: repo.ID, WorkflowID: 7, Day: day0.AddDate(0, 0, 1), Conclusion: "failure", Runs: 1},
		{RepositoryID: repo.ID, WorkflowID: 7, Day: day0.AddDate(0, 0, 1), Conclusion: "success", Runs: 1},
	}
	equal(t, "run days", days, want)

	one, err := s.RunDays(ctx, store.DayQuery{RepositoryIDs: []int64{repo.ID}, WorkflowID: 8})
	must(t, err)
	if len(one) != 1 || one[0].Runs != 1 || !one[0].Day.Equal(day0.AddDate(0, 0, -1)) {
		t.Fatalf("run days of workflow 8: %+v", one)
	}
	// A window that starts mid-day leaves that day out.
	late, err := s.RunDays(ctx, store.DayQuery{RepositoryIDs: []int64{repo.ID}, WorkflowID: 7, From: day0.Add(time.Minute)})
	must(t, err)
	if len(late) != 2 || !late[0].Day.Equal(day0.AddDate(0, 0, 1)) {
		t.Fatalf("run days from mid-day: %+v", late)
	}

	wfs, err := s.ListWorkflows(ctx, []int64{repo.ID, 999})
	must(t, err)
	if len(wfs) != 2 || wfs[0].Name != "CI (renamed)" || wfs[0].WorkflowID != 7 || wfs[1].Name != "Nightly" ||
		!wfs[0].LastRunAt.Equal(day0.Add(27*time.Hour)) {
		t.Fatalf("workflows: %+v", wfs)
	}
	outcomes, err := s.OutcomeDays(ctx, store.DayQuery{RepositoryIDs: []int64{repo.ID}, WorkflowID: 7})
	must(t, err)
	wantOutcomes := []store.OutcomeDay{
		{RepositoryID: repo.ID, WorkflowID: 7, Day: day0, Runs: 2, Succeeded: 1, Failed: 1},
		{RepositoryID: repo.ID, WorkflowID: 7, Day: day0.AddDate(0, 0, 1), Runs: 2, Succeeded: 1, Failed: 1},
	}
	equal(t, "outcome days", outcomes, wantOutcomes)
	_, err = s.RunDays(ctx, store.DayQuery{})
	wantErr(t, err, store.ErrInvalid)
}

func testClassDays(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	repo := dashRepo(t, s, 202)
	day0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	r1 := dashRun(t, s, repo.ID, 11, 7, "CI", "failure", day0.Add(time.Hour))
	r2 := dashRun(t, s, repo.ID, 12, 7, "CI", "failure", day0.Add(2*time.Hour))
	r3 := dashRun(t, s, repo.ID, 13, 7, "CI", "failure", day0.Add(25*time.Hour))
	// Run 11 fails in two jobs: the first job's class counts for the chart.
	must(t, s.PutOccurrences(ctx, r1.Key(), []store.Occurrence{
		{JobID: 2, StepNumber: 1, ClassID: "late"},
		{JobID: 1, StepNumber: 5, ClassID: "early"},
		{JobID: 1, StepNumber: 6, ClassID: "late"},
	}))
	must(t, s.PutOccurrences(ctx, r2.Key(), []store.Occurrence{{JobID: 1, StepNumber: 5, ClassID: "early"}}))
	must(t, s.PutOccurrences(ctx, r3.Key(), []store.Occurrence{{JobID: 1, StepNumber: 2, ClassID: "late"},
		{JobID: 3, StepNumber: 2, ClassID: "late"}}))

	must(t, s.UpsertClass(ctx, store.FailureClass{RepositoryID: repo.ID, ID: "early", Step: "go test",
		Signature: "FAIL: Test<N>", Verdict: "flaky", LastSeen: day0}))
	q := store.DayQuery{RepositoryIDs: []int64{repo.ID}, From: day0, To: day0.AddDate(0, 0, 2)}
	days, err := s.ClassDays(ctx, q)
	must(t, err)
	want := []store.ClassDay{
		{RepositoryID: repo.ID, WorkflowID: 7, Day: day0, ClassID: "early", Runs: 2},
		{RepositoryID: repo.ID, WorkflowID: 7, Day: day0.AddDate(0, 0, 1), ClassID: "late", Runs: 1},
	}
	equal(t, "class days", days, want)

	q.ClassID = "late"
	late, err := s.ClassDays(ctx, q)
	must(t, err)
	if len(late) != 2 || late[0].Runs != 1 || late[1].Runs != 1 {
		t.Fatalf("class days of late (any step): %+v", late)
	}
	q.ClassID = ""
	counts, err := s.ClassRunCounts(ctx, q)
	must(t, err)
	wantCounts := []store.ClassRunCount{ // equal counts are ordered by class id
		{RepositoryID: repo.ID, WorkflowID: 7, ClassID: "early", Runs: 2, LastDay: day0,
			Step: "go test", Signature: "FAIL: Test<N>", Verdict: "flaky"},
		{RepositoryID: repo.ID, WorkflowID: 7, ClassID: "late", Runs: 2, LastDay: day0.AddDate(0, 0, 1)},
	}
	equal(t, "class run counts", counts, wantCounts)
	top, err := s.TopClasses(ctx, q)
	must(t, err)
	equal(t, "top classes", top, wantCounts[:1])

	// The window counts whole days: from 03:00 starts with the next day.
	q.From = day0.Add(3 * time.Hour)
	counts, err = s.ClassRunCounts(ctx, q)
	must(t, err)
	if len(counts) != 1 || counts[0].ClassID != "late" || counts[0].Runs != 1 {
		t.Fatalf("class run counts from 03:00: %+v", counts)
	}

	// Replacing a run's occurrences moves its counts: run 11 now fails in
	// "late" only, twice; run 13 no longer fails at all.
	must(t, s.PutOccurrences(ctx, r1.Key(), []store.Occurrence{{JobID: 1, StepNumber: 5, ClassID: "late"},
		{JobID: 4, StepNumber: 1, ClassID: "late"}}))
	must(t, s.PutOccurrences(ctx, r3.Key(), nil))
	q.From = day0
	counts, err = s.ClassRunCounts(ctx, q)
	must(t, err)
	want2 := []store.ClassRunCount{
		{RepositoryID: repo.ID, WorkflowID: 7, ClassID: "early", Runs: 1, LastDay: day0, Step: "go test",
			Signature: "FAIL: Test<N>", Verdict: "flaky"},
		{RepositoryID: repo.ID, WorkflowID: 7, ClassID: "late", Runs: 1, LastDay: day0},
	}
	equal(t, "class run counts after replacing occurrences", counts, want2)
	q.ClassID = "late"
	late, err = s.ClassDays(ctx, q)
	must(t, err)
	if len(late) != 1 || late[0].Runs != 1 || !late[0].Day.Equal(day0) {
		t.Fatalf("class days of late after replacing occurrences: %+v", late)
	}
}

func testDashboardPages(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	repo := dashRepo(t, s, 203)
	for i := range 5 {
		r := dashRun(t, s, repo.ID, int64(100+i), 7, "CI", "failure", base.Add(time.Duration(i)*time.Hour))
		must(t, s.PutOccurrences(ctx, r.Key(), []store.Occurrence{{JobID: 1, StepNumber: 3, ClassID: "c1",
			CauseLines: json.RawMessage(`[{"n": 4, "text": "boom"}]`)}, {JobID: 2, StepNumber: 1, ClassID: "c2"}}))
		class := "c1"
		if i == 2 {
			class = "c2"
		}
		_, err := s.PutDiagnosis(ctx, store.Diagnosis{RepositoryID: repo.ID, RunID: r.RunID, Attempt: 1,
			Document: json.RawMessage(`{"schema":"polylane.diagnosis/v1"}`), Verdict: "flaky", ClassID: class,
			CreatedAt: base.Add(time.Duration(i) * time.Minute)})
		must(t, err)
	}
	var runs []int64
	var cursor *store.DiagnosisCursor
	for range 5 {
		page, err := s.ListDiagnosisSummaries(ctx, store.DiagnosisQuery{RepositoryID: repo.ID, ClassID: "c1", Limit: 3, After: cursor})
		must(t, err)
		for _, d := range page.Diagnoses {
			runs = append(runs, d.RunID)
			if d.WorkflowName != "CI" || d.RunNumber != int(d.RunID) || d.Verdict != "flaky" {
				t.Fatalf("diagnosis summary: %+v", d)
			}
		}
		if cursor = page.Next; cursor == nil {
			break
		}
		back, err := store.ParseDiagnosisCursor(cursor.String())
		must(t, err)
		equal(t, "diagnosis cursor round trip", back, *cursor)
	}
	equal(t, "diagnoses of c1 newest first", runs, []int64{104, 103, 101, 100})

	var seen []int64
	var oc *store.OccurrenceCursor
	for range 10 {
		page, err := s.ListOccurrencePage(ctx, store.OccurrencePageQuery{RepositoryID: repo.ID, Limit: 4, After: oc})
		must(t, err)
		for _, o := range page.Occurrences {
			seen = append(seen, o.RunID*10+o.JobID)
		}
		if oc = page.Next; oc == nil {
			break
		}
		back, err := store.ParseOccurrenceCursor(oc.String())
		must(t, err)
		equal(t, "occurrence cursor round trip", back, *oc)
	}
	equal(t, "occurrences newest first", seen, []int64{1042, 1041, 1032, 1031, 1022, 1021, 1012, 1011, 1002, 1001})
	page, err := s.ListOccurrencePage(ctx, store.OccurrencePageQuery{RepositoryID: repo.ID, ClassID: "c2", Limit: 500})
	must(t, err)
	if len(page.Occurrences) != 5 || page.Next != nil {
		t.Fatalf("occurrences of c2: %d, next %v", len(page.Occurrences), page.Next)
	}
	_, err = store.ParseOccurrenceCursor("bm90LWEtY3Vyc29y")
	wantErr(t, err, store.ErrInvalid)
}

package storetest

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/polylane/polylane/store"
)

func testRuns(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	repo := seedRepo(t, s)
	r := seedRun(t, s, repo.ID, 5001, 1, base)
	got, err := s.GetRun(ctx, r.Key())
	must(t, err)
	r.UpdatedAt = got.UpdatedAt
	equal(t, "run", got, r)

	// Upserting the same (repository, run id, attempt) updates the one row.
	r.Status, r.Conclusion, r.CreatedAt = "completed", "success", base.Add(time.Hour)
	must(t, s.UpsertRun(ctx, r))
	page, err := s.ListRuns(ctx, store.RunQuery{RepositoryID: repo.ID})
	must(t, err)
	if len(page.Runs) != 1 || page.Runs[0].Conclusion != "success" || !page.Runs[0].CreatedAt.Equal(base) {
		t.Fatalf("after a second upsert of the same attempt: %+v (want one run, success, created_at kept)", page.Runs)
	}
	// A second attempt is another row.
	seedRun(t, s, repo.ID, 5001, 2, base.Add(time.Minute))
	page, err = s.ListRuns(ctx, store.RunQuery{RepositoryID: repo.ID})
	must(t, err)
	if len(page.Runs) != 2 || page.Runs[0].Attempt != 2 {
		t.Fatalf("two attempts: %+v", page.Runs)
	}

	_, err = s.GetRun(ctx, store.RunKey{RepositoryID: repo.ID, RunID: 5001, Attempt: 3})
	wantErr(t, err, store.ErrNotFound)
	orphan := r
	orphan.RepositoryID = 999
	wantErr(t, s.UpsertRun(ctx, orphan), store.ErrNotFound)
	bad := r
	bad.Attempt = 0
	wantErr(t, s.UpsertRun(ctx, bad), store.ErrInvalid)
}

// testRunHistoryPagination stores runs with ties on created_at and checks that
// paging with a cursor yields every run once, newest first.
func testRunHistoryPagination(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	repo := seedRepo(t, s)
	must(t, s.UpsertRepository(ctx, store.Repository{ID: 202, InstallationID: 1, FullName: "acme/other"}))
	var want []store.RunKey
	for i := range 23 {
		created := base.Add(time.Duration(i/3) * time.Minute) // three runs per instant
		r := seedRun(t, s, repo.ID, int64(9000+i%5*100+i), 1+i%2, created)
		want = append(want, r.Key())
		if i%4 == 0 {
			seedRun(t, s, 202, int64(7000+i), 1, created) // another repository: filtered out
		}
	}
	// Newest first: created_at, then run id, then attempt, descending.
	created := map[store.RunKey]time.Time{}
	for i, k := range want {
		created[k] = base.Add(time.Duration(i/3) * time.Minute)
	}
	sort.Slice(want, func(i, j int) bool {
		a, b := want[i], want[j]
		if !created[a].Equal(created[b]) {
			return created[a].After(created[b])
		}
		if a.RunID != b.RunID {
			return a.RunID > b.RunID
		}
		return a.Attempt > b.Attempt
	})

	for _, size := range []int{1, 4, 7, 23, 50} {
		t.Run(fmt.Sprintf("page size %d", size), func(t *testing.T) {
			var got []store.RunKey
			q := store.RunQuery{RepositoryID: repo.ID, Limit: size}
			for pages := 0; ; pages++ {
				if pages > 30 {
					t.Fatal("pagination does not end")
				}
				page, err := s.ListRuns(ctx, q)
				must(t, err)
				if len(page.Runs) > size {
					t.Fatalf("page of %d runs, limit %d", len(page.Runs), size)
				}
				for _, r := range page.Runs {
					got = append(got, r.Key())
				}
				if page.Next == nil {
					break
				}
				// The cursor survives a trip through its text form.
				c, err := store.ParseRunCursor(page.Next.String())
				must(t, err)
				equal(t, "cursor round trip", c, *page.Next)
				q.After = &c
			}
			equal(t, "run history", got, want)
		})
	}

	testRunFilters(t, s, repo.ID)
	if _, err := store.ParseRunCursor("not a cursor"); err == nil {
		t.Error("ParseRunCursor accepted garbage")
	}
}

// testRunFilters checks the filters of ListRuns on the runs that
// testRunHistoryPagination stored.
func testRunFilters(t *testing.T, s store.Store, repo int64) {
	ctx := ctxFor(t)
	tests := []struct {
		name  string
		query store.RunQuery
		want  int
	}{
		{"all repositories", store.RunQuery{Limit: 500}, 23 + 6},
		{"other repository", store.RunQuery{RepositoryID: 202}, 6},
		{"workflow", store.RunQuery{RepositoryID: repo, WorkflowID: 7, Limit: 100}, 23},
		{"unknown workflow", store.RunQuery{RepositoryID: repo, WorkflowID: 8}, 0},
		{"branch", store.RunQuery{Branch: "main", Limit: 100}, 29},
		{"conclusion", store.RunQuery{Conclusion: "success"}, 0},
	}
	for _, tc := range tests {
		page, err := s.ListRuns(ctx, tc.query)
		must(t, err)
		if len(page.Runs) != tc.want {
			t.Errorf("%s: %d runs, want %d", tc.name, len(page.Runs), tc.want)
		}
	}
}

func testJobs(t *testing.T, s store.Store) {
	ctx := ctxFor(t)
	repo := seedRepo(t, s)
	run := seedRun(t, s, repo.ID, 6001, 1, base)
	jobs := []store.WorkflowJob{
		{ID: 31, Name: "build", Status: "completed", Conclusion: "success", StartedAt: base.Add(time.Second),
			CompletedAt: base.Add(time.Minute), HTMLURL: "https://github.com/acme/widgets/actions/runs/6001/job/31",
			Steps: []store.JobStep{
				{Number: 1, Name: "Set up job", Status: "completed", Conclusion: "success", StartedAt: base, CompletedAt: base.Add(time.Second)},
				{Number: 2, Name: "Run make", Status: "completed", Conclusion: "success", StartedAt: base.Add(time.Second)},
			}},
		{ID: 30, Name: "lint", Status: "in_progress"},
	}
	must(t, s.PutJobs(ctx, run.Key(), jobs))
	got, err := s.ListJobs(ctx, run.Key())
	must(t, err)
	equal(t, "jobs", got, []store.WorkflowJob{jobs[1], jobs[0]})

	// PutJobs replaces the attempt's jobs.
	must(t, s.PutJobs(ctx, run.Key(), jobs[1:]))
	got, err = s.ListJobs(ctx, run.Key())
	must(t, err)
	equal(t, "jobs after replace", got, jobs[1:])

	missing := store.RunKey{RepositoryID: repo.ID, RunID: 6002, Attempt: 1}
	wantErr(t, s.PutJobs(ctx, missing, jobs), store.ErrNotFound)
	got, err = s.ListJobs(ctx, missing)
	must(t, err)
	if len(got) != 0 {
		t.Fatalf("jobs of a missing run: %+v", got)
	}
	// A job id belongs to one run attempt.
	other := seedRun(t, s, repo.ID, 6003, 1, base)
	wantErr(t, s.PutJobs(ctx, other.Key(), jobs[1:]), store.ErrConflict)
}

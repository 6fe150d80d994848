package sqlstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/polylane/polylane/store"
)

// maxDashboardRepos bounds the repositories one dashboard query covers.
const maxDashboardRepos = 1000

// secondsPerDay converts between Unix days and times.
const secondsPerDay = 86400

// addIn appends "col IN (…)" for ids to f.
func addIn(f *filter, col string, ids []int64) {
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ")
	values := make([]any, len(ids))
	for i, id := range ids {
		values[i] = id
	}
	f.add(col+" IN ("+marks+")", values...)
}

// checkRepos validates the repositories of a dashboard query.
func checkRepos(ids []int64) error {
	if len(ids) == 0 || len(ids) > maxDashboardRepos {
		return invalid("dashboard query over %d repositories: want 1 to %d", len(ids), maxDashboardRepos)
	}
	return nil
}

// unixDay is the number of the UTC day that holds t.
func unixDay(t time.Time) int64 {
	s := t.Unix()
	d := s / secondsPerDay
	if s%secondsPerDay < 0 {
		d--
	}
	return d
}

// dayBounds returns the first day starting at or after from and the first
// day starting at or after to (zero times: the widest range).
func dayBounds(from, to time.Time) (lo, hi int64) {
	lo, hi = -1<<40, 1<<40
	if !from.IsZero() {
		lo = unixDay(from)
		if from.After(dayTime(lo)) {
			lo++
		}
	}
	if !to.IsZero() {
		hi = unixDay(to)
		if to.After(dayTime(hi)) {
			hi++
		}
	}
	return lo, hi
}

// dayTime is midnight UTC of a Unix day.
func dayTime(day int64) time.Time { return time.Unix(day*secondsPerDay, 0).UTC() }

// dayWindow is the filter of a per-day read model for a query: its
// repositories, its days and its workflow; alias prefixes the columns ("" or
// "d.").
func dayWindow(q store.DayQuery, alias string) filter {
	var f filter
	addIn(&f, alias+"repository_id", q.RepositoryIDs)
	lo, hi := dayBounds(q.From, q.To)
	f.add(alias+"day >= ?", lo)
	f.add(alias+"day < ?", hi)
	if q.WorkflowID != 0 {
		f.add(alias+"workflow_id = ?", q.WorkflowID)
	}
	return f
}

// readAll runs query in a read transaction and returns its rows, each read
// by scan.
func readAll[T any](ctx context.Context, db DB, query string, args []any, scan func(Rows) (T, error)) ([]T, error) {
	var list []T
	err := db.Read(ctx, func(tx Tx) error {
		rows, err := tx.Query(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			v, err := scan(rows)
			if err != nil {
				return err
			}
			list = append(list, v)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return list, nil
}

// ListWorkflows lists the workflows seen in some repositories.
func (s *Records) ListWorkflows(ctx context.Context, repositoryIDs []int64) ([]store.WorkflowSummary, error) {
	if err := checkRepos(repositoryIDs); err != nil {
		return nil, err
	}
	var f filter
	addIn(&f, "repository_id", repositoryIDs)
	query := `SELECT repository_id, workflow_id, name, path, last_run_at FROM dashboard_workflows` + f.where() +
		` ORDER BY repository_id, name, workflow_id`
	list, err := readAll(ctx, s.db, query, f.args, func(rows Rows) (store.WorkflowSummary, error) {
		var w store.WorkflowSummary
		err := rows.Scan(&w.RepositoryID, &w.WorkflowID, &w.Name, &w.Path, at(&w.LastRunAt))
		return w, err
	})
	if err != nil {
		return nil, fmt.Errorf("list workflows of %d repositories: %w", len(repositoryIDs), err)
	}
	return list, nil
}

// RunDays counts run attempts per day, workflow and conclusion.
func (s *Records) RunDays(ctx context.Context, q store.DayQuery) ([]store.RunDay, error) {
	if err := checkRepos(q.RepositoryIDs); err != nil {
		return nil, err
	}
	f := dayWindow(q, "")
	query := `SELECT repository_id, workflow_id, day, conclusion, runs FROM dashboard_run_days` + f.where() +
		` ORDER BY repository_id, workflow_id, day, conclusion`
	list, err := readAll(ctx, s.db, query, f.args, func(rows Rows) (store.RunDay, error) {
		var d store.RunDay
		var day int64
		err := rows.Scan(&d.RepositoryID, &d.WorkflowID, &day, &d.Conclusion, &d.Runs)
		d.Day = dayTime(day)
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("count runs per day: %w", err)
	}
	return list, nil
}

// occurrenceWindow is the filter of occurrences joined with their runs.
func occurrenceWindow(q store.DayQuery) filter {
	var f filter
	addIn(&f, "o.repository_id", q.RepositoryIDs)
	if !q.From.IsZero() {
		f.add("o.occurred_at >= ?", norm(q.From))
	}
	if !q.To.IsZero() {
		f.add("o.occurred_at < ?", norm(q.To))
	}
	if q.WorkflowID != 0 {
		f.add("r.workflow_id = ?", q.WorkflowID)
	}
	return f
}

const occurrenceJoin = ` FROM failure_occurrences o JOIN workflow_runs r
    ON r.repository_id = o.repository_id AND r.run_id = o.run_id AND r.attempt = o.attempt`

// ClassDays counts failed run attempts per day, workflow and class.
func (s *Records) ClassDays(ctx context.Context, q store.DayQuery) ([]store.ClassDay, error) {
	if err := checkRepos(q.RepositoryIDs); err != nil {
		return nil, err
	}
	if q.ClassID != "" {
		return s.classDaysOf(ctx, q)
	}
	f := occurrenceWindow(q)
	query := `SELECT o.repository_id, r.workflow_id, r.created_at, o.run_id, o.attempt, o.class_id` + occurrenceJoin +
		f.where() + ` ORDER BY o.repository_id, o.run_id, o.attempt, o.job_id, o.step_number`
	type key struct {
		repo, workflow, day int64
		class               string
	}
	counts := map[key]int{}
	var order []key
	err := s.db.Read(ctx, func(tx Tx) error {
		rows, err := tx.Query(ctx, query, f.args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		var lastRepo, lastRun int64
		lastAttempt := -1
		for rows.Next() {
			var repo, workflow, run int64
			var attempt int
			var created time.Time
			var class string
			if err := rows.Scan(&repo, &workflow, at(&created), &run, &attempt, &class); err != nil {
				return err
			}
			if repo == lastRepo && run == lastRun && attempt == lastAttempt {
				continue // the attempt counts for its first failing step only
			}
			lastRepo, lastRun, lastAttempt = repo, run, attempt
			k := key{repo, workflow, unixDay(created), class}
			if counts[k] == 0 {
				order = append(order, k)
			}
			counts[k]++
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("count failure classes per day: %w", err)
	}
	list := make([]store.ClassDay, len(order))
	for i, k := range order {
		list[i] = store.ClassDay{RepositoryID: k.repo, WorkflowID: k.workflow, Day: dayTime(k.day), ClassID: k.class, Runs: counts[k]}
	}
	sortClassDays(list)
	return list, nil
}

// sortClassDays orders per-day class counts by repository, workflow, day
// and class.
func sortClassDays(list []store.ClassDay) {
	less := func(a, b store.ClassDay) int {
		switch {
		case a.RepositoryID != b.RepositoryID:
			return cmp.Compare(a.RepositoryID, b.RepositoryID)
		case a.WorkflowID != b.WorkflowID:
			return cmp.Compare(a.WorkflowID, b.WorkflowID)
		case !a.Day.Equal(b.Day):
			return a.Day.Compare(b.Day)
		}
		return strings.Compare(a.ClassID, b.ClassID)
	}
	slices.SortFunc(list, less)
}

// classDayWindow is the filter of dashboard_class_days for a query.
func classDayWindow(q store.DayQuery) filter {
	f := dayWindow(q, "d.")
	if q.ClassID != "" {
		f.add("d.class_id = ?", q.ClassID)
	}
	return f
}

// classDaysOf reads the per-day counts of one class.
func (s *Records) classDaysOf(ctx context.Context, q store.DayQuery) ([]store.ClassDay, error) {
	f := classDayWindow(q)
	query := `SELECT d.repository_id, d.workflow_id, d.day, d.class_id, d.runs FROM dashboard_class_days d` + f.where() +
		` ORDER BY d.repository_id, d.workflow_id, d.day, d.class_id`
	list, err := readAll(ctx, s.db, query, f.args, func(rows Rows) (store.ClassDay, error) {
		var c store.ClassDay
		var day int64
		err := rows.Scan(&c.RepositoryID, &c.WorkflowID, &day, &c.ClassID, &c.Runs)
		c.Day = dayTime(day)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("count runs of class %s per day: %w", q.ClassID, err)
	}
	return list, nil
}

// scanClassRunCount reads a row of repository, workflow, class, runs, last
// day, step, signature and verdict.
func scanClassRunCount(rows Rows) (store.ClassRunCount, error) {
	var c store.ClassRunCount
	var day int64
	err := rows.Scan(&c.RepositoryID, &c.WorkflowID, &c.ClassID, &c.Runs, &day, &c.Step, &c.Signature, &c.Verdict)
	c.LastDay = dayTime(day)
	return c, err
}

// ClassRunCounts counts the run attempts in which each class occurred.
func (s *Records) ClassRunCounts(ctx context.Context, q store.DayQuery) ([]store.ClassRunCount, error) {
	if err := checkRepos(q.RepositoryIDs); err != nil {
		return nil, err
	}
	f := classDayWindow(q)
	query := `SELECT d.repository_id, d.workflow_id, d.class_id, sum(d.runs), max(d.day),
    coalesce(max(c.step), ''), coalesce(max(c.signature), ''), coalesce(max(c.verdict), '')
FROM dashboard_class_days d LEFT JOIN failure_classes c ON c.repository_id = d.repository_id AND c.id = d.class_id` +
		f.where() + `
GROUP BY d.repository_id, d.workflow_id, d.class_id ORDER BY d.repository_id, d.workflow_id, sum(d.runs) DESC, d.class_id`
	list, err := readAll(ctx, s.db, query, f.args, scanClassRunCount)
	if err != nil {
		return nil, fmt.Errorf("count runs per failure class: %w", err)
	}
	return list, nil
}

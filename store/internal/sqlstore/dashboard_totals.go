package sqlstore

import (
	"context"
	"fmt"

	"github.com/polylane/polylane/store"
)

// OutcomeDays reads the per-day sums of runs, succeeded and failed runs.
func (s *Records) OutcomeDays(ctx context.Context, q store.DayQuery) ([]store.OutcomeDay, error) {
	if err := checkRepos(q.RepositoryIDs); err != nil {
		return nil, err
	}
	f := dayWindow(q, "")
	query := `SELECT repository_id, workflow_id, day, runs, succeeded, failed FROM dashboard_outcome_days` + f.where() +
		` ORDER BY repository_id, workflow_id, day`
	list, err := readAll(ctx, s.db, query, f.args, func(rows Rows) (store.OutcomeDay, error) {
		var d store.OutcomeDay
		var day int64
		err := rows.Scan(&d.RepositoryID, &d.WorkflowID, &day, &d.Runs, &d.Succeeded, &d.Failed)
		d.Day = dayTime(day)
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("sum run outcomes per day: %w", err)
	}
	return list, nil
}

// TopClasses returns each workflow's most frequent class in the window.
func (s *Records) TopClasses(ctx context.Context, q store.DayQuery) ([]store.ClassRunCount, error) {
	if err := checkRepos(q.RepositoryIDs); err != nil {
		return nil, err
	}
	f := classDayWindow(q)
	f.add("d.class_id <> ?", "")
	query := `SELECT t.repository_id, t.workflow_id, t.class_id, t.runs, t.last_day,
    coalesce(c.step, ''), coalesce(c.signature, ''), coalesce(c.verdict, '')
FROM (
    SELECT repository_id, workflow_id, class_id, runs, last_day,
        row_number() OVER (PARTITION BY repository_id, workflow_id ORDER BY runs DESC, class_id) AS rank
    FROM (
        SELECT d.repository_id, d.workflow_id, d.class_id, sum(d.runs) AS runs, max(d.day) AS last_day
        FROM dashboard_class_days d` + f.where() + `
        GROUP BY d.repository_id, d.workflow_id, d.class_id
    ) per_class
) t LEFT JOIN failure_classes c ON c.repository_id = t.repository_id AND c.id = t.class_id
WHERE t.rank = 1 ORDER BY t.repository_id, t.workflow_id`
	list, err := readAll(ctx, s.db, query, f.args, scanClassRunCount)
	if err != nil {
		return nil, fmt.Errorf("top failure classes: %w", err)
	}
	return list, nil
}

package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/polylane/polylane/store"
)

func validKey(k store.RunKey) error {
	if k.RepositoryID <= 0 || k.RunID <= 0 || k.Attempt < 1 {
		return invalid("run %d attempt %d of repository %d: ids must be positive", k.RunID, k.Attempt, k.RepositoryID)
	}
	return nil
}

// UpsertRun inserts a run attempt or updates everything but its created_at.
func (s *Records) UpsertRun(ctx context.Context, r store.WorkflowRun) error {
	if err := validKey(r.Key()); err != nil {
		return err
	}
	if r.CreatedAt.IsZero() {
		return invalid("run %d: created_at is required", r.RunID)
	}
	detail, err := jsonText(r.Detail, "", fmt.Sprintf("detail of run %d", r.RunID))
	if err != nil {
		return err
	}
	err = s.db.Write(ctx, func(tx Tx) error { return upsertRun(ctx, tx, r, detail, s.clock()) })
	if err != nil {
		return fmt.Errorf("upsert run %d attempt %d of repository %d: %w", r.RunID, r.Attempt, r.RepositoryID, err)
	}
	return nil
}

// UpsertRuns upserts several run attempts in one transaction.
func (s *Records) UpsertRuns(ctx context.Context, runs []store.WorkflowRun) error {
	details := make([]string, len(runs))
	for i, r := range runs {
		if err := validKey(r.Key()); err != nil {
			return err
		}
		if r.CreatedAt.IsZero() {
			return invalid("run %d: created_at is required", r.RunID)
		}
		var err error
		if details[i], err = jsonText(r.Detail, "", fmt.Sprintf("detail of run %d", r.RunID)); err != nil {
			return err
		}
	}
	if len(runs) == 0 {
		return nil
	}
	now := s.clock()
	err := s.db.Write(ctx, func(tx Tx) error {
		for i, r := range runs {
			if err := upsertRun(ctx, tx, r, details[i], now); err != nil {
				return fmt.Errorf("run %d attempt %d: %w", r.RunID, r.Attempt, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("upsert %d runs: %w", len(runs), err)
	}
	return nil
}

// upsertRun writes one run attempt; an empty detail keeps the stored one.
func upsertRun(ctx context.Context, tx Tx, r store.WorkflowRun, detail string, now time.Time) error {
	_, err := tx.Exec(ctx, `
INSERT INTO workflow_runs (repository_id, run_id, attempt, workflow_id, workflow_path, workflow_name,
    run_number, head_sha, branch, event, status, conclusion, created_at, html_url, updated_at, detail)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
ON CONFLICT (repository_id, run_id, attempt) DO UPDATE SET
    workflow_id = excluded.workflow_id, workflow_path = excluded.workflow_path,
    workflow_name = excluded.workflow_name, run_number = excluded.run_number,
    head_sha = excluded.head_sha, branch = excluded.branch, event = excluded.event,
    status = excluded.status, conclusion = excluded.conclusion, html_url = excluded.html_url,
    updated_at = excluded.updated_at,
    detail = CASE WHEN excluded.detail = '' THEN workflow_runs.detail ELSE excluded.detail END`,
		r.RepositoryID, r.RunID, r.Attempt, r.WorkflowID, r.WorkflowPath, r.WorkflowName,
		r.RunNumber, r.HeadSHA, r.Branch, r.Event, r.Status, r.Conclusion, norm(r.CreatedAt), r.HTMLURL, now, detail)
	return err
}

const runColumns = `repository_id, run_id, attempt, workflow_id, workflow_path, workflow_name, run_number,
    head_sha, branch, event, status, conclusion, created_at, html_url, updated_at, detail`

func scanRun(row Row) (store.WorkflowRun, error) {
	var r store.WorkflowRun
	var detail string
	err := row.Scan(&r.RepositoryID, &r.RunID, &r.Attempt, &r.WorkflowID, &r.WorkflowPath, &r.WorkflowName,
		&r.RunNumber, &r.HeadSHA, &r.Branch, &r.Event, &r.Status, &r.Conclusion, at(&r.CreatedAt),
		&r.HTMLURL, at(&r.UpdatedAt), &detail)
	if detail != "" {
		r.Detail = json.RawMessage(detail)
	}
	return r, err
}

// GetRun reads one run attempt.
func (s *Records) GetRun(ctx context.Context, key store.RunKey) (store.WorkflowRun, error) {
	var r store.WorkflowRun
	err := s.db.Read(ctx, func(tx Tx) error {
		var err error
		r, err = scanRun(tx.QueryRow(ctx, `SELECT `+runColumns+` FROM workflow_runs
WHERE repository_id = $1 AND run_id = $2 AND attempt = $3`, key.RepositoryID, key.RunID, key.Attempt))
		return err
	})
	if err != nil {
		return store.WorkflowRun{}, fmt.Errorf("get run %d attempt %d of repository %d: %w", key.RunID, key.Attempt, key.RepositoryID, err)
	}
	return r, nil
}

// filter accumulates WHERE conditions with numbered placeholders.
type filter struct {
	conds []string
	args  []any
}

// add appends a condition; each "?" in cond becomes the next placeholder,
// bound to the matching value.
func (f *filter) add(cond string, values ...any) {
	var b strings.Builder
	for _, r := range cond {
		if r == '?' {
			f.args = append(f.args, values[0])
			values = values[1:]
			b.WriteString("$" + strconv.Itoa(len(f.args)))
			continue
		}
		b.WriteRune(r)
	}
	f.conds = append(f.conds, b.String())
}

// where renders the conditions ("" when there are none).
func (f *filter) where() string {
	if len(f.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(f.conds, " AND ")
}

// limit appends a LIMIT placeholder for n.
func (f *filter) limit(n int) string {
	f.args = append(f.args, n)
	return " LIMIT $" + strconv.Itoa(len(f.args))
}

func clampLimit(n, def, maxN int) int {
	if n <= 0 {
		return def
	}
	return min(n, maxN)
}

// ListRuns lists run attempts newest first, one page at a time.
func (s *Records) ListRuns(ctx context.Context, q store.RunQuery) (store.RunPage, error) {
	limit := clampLimit(q.Limit, 50, 500)
	var f filter
	if q.RepositoryID != 0 {
		f.add("repository_id = ?", q.RepositoryID)
	}
	if q.WorkflowID != 0 {
		f.add("workflow_id = ?", q.WorkflowID)
	}
	if q.Branch != "" {
		f.add("branch = ?", q.Branch)
	}
	if q.Conclusion != "" {
		f.add("conclusion = ?", q.Conclusion)
	}
	if c := q.After; c != nil {
		f.add("(created_at, run_id, attempt) < (?, ?, ?)", norm(c.CreatedAt), c.RunID, c.Attempt)
	}
	query := `SELECT ` + runColumns + ` FROM workflow_runs` + f.where() +
		` ORDER BY created_at DESC, run_id DESC, attempt DESC` + f.limit(limit+1)
	var page store.RunPage
	err := s.db.Read(ctx, func(tx Tx) error {
		rows, err := tx.Query(ctx, query, f.args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			r, err := scanRun(rows)
			if err != nil {
				return err
			}
			page.Runs = append(page.Runs, r)
		}
		return rows.Err()
	})
	if err != nil {
		return store.RunPage{}, fmt.Errorf("list runs: %w", err)
	}
	if len(page.Runs) > limit {
		page.Runs = page.Runs[:limit]
		last := page.Runs[limit-1]
		page.Next = &store.RunCursor{CreatedAt: last.CreatedAt, RunID: last.RunID, Attempt: last.Attempt}
	}
	return page, nil
}

// runExists returns store.ErrNotFound when the run attempt is not stored.
func runExists(ctx context.Context, tx Tx, key store.RunKey) error {
	var one int
	err := tx.QueryRow(ctx, `SELECT 1 FROM workflow_runs WHERE repository_id = $1 AND run_id = $2 AND attempt = $3`,
		key.RepositoryID, key.RunID, key.Attempt).Scan(&one)
	if err != nil {
		return fmt.Errorf("run %d attempt %d: %w", key.RunID, key.Attempt, err)
	}
	return nil
}

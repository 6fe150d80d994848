package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/polylane/polylane/store"
)

// ListDiagnosisSummaries lists a repository's diagnoses newest first.
func (s *Records) ListDiagnosisSummaries(ctx context.Context, q store.DiagnosisQuery) (store.DiagnosisPage, error) {
	limit := clampLimit(q.Limit, 20, 200)
	var f filter
	f.add("d.repository_id = ?", q.RepositoryID)
	if q.ClassID != "" {
		f.add("d.class_id = ?", q.ClassID)
	}
	if c := q.After; c != nil {
		f.add("(d.created_at, d.id) < (?, ?)", norm(c.CreatedAt), c.ID)
	}
	query := `SELECT d.id, d.repository_id, d.run_id, d.attempt, d.verdict, d.class_id, d.created_at, d.stale,
    r.workflow_id, r.workflow_name, r.run_number, r.branch, r.created_at
FROM diagnoses d JOIN workflow_runs r
    ON r.repository_id = d.repository_id AND r.run_id = d.run_id AND r.attempt = d.attempt` + f.where() +
		` ORDER BY d.created_at DESC, d.id DESC` + f.limit(limit+1)
	list, err := readAll(ctx, s.db, query, f.args, func(rows Rows) (store.DiagnosisSummary, error) {
		var d store.DiagnosisSummary
		err := rows.Scan(&d.ID, &d.RepositoryID, &d.RunID, &d.Attempt, &d.Verdict, &d.ClassID, at(&d.CreatedAt),
			&d.Stale, &d.WorkflowID, &d.WorkflowName, &d.RunNumber, &d.Branch, at(&d.RunCreatedAt))
		return d, err
	})
	if err != nil {
		return store.DiagnosisPage{}, fmt.Errorf("list diagnoses of repository %d: %w", q.RepositoryID, err)
	}
	page := store.DiagnosisPage{Diagnoses: list}
	if len(page.Diagnoses) > limit {
		page.Diagnoses = page.Diagnoses[:limit]
		last := page.Diagnoses[limit-1]
		page.Next = &store.DiagnosisCursor{CreatedAt: last.CreatedAt, ID: last.ID}
	}
	return page, nil
}

// ListOccurrencePage lists a repository's occurrences newest first.
func (s *Records) ListOccurrencePage(ctx context.Context, q store.OccurrencePageQuery) (store.OccurrencePage, error) {
	limit := clampLimit(q.Limit, 50, 500)
	var f filter
	f.add("repository_id = ?", q.RepositoryID)
	if q.ClassID != "" {
		f.add("class_id = ?", q.ClassID)
	}
	if c := q.After; c != nil {
		f.add("(occurred_at, run_id, attempt, job_id, step_number) < (?, ?, ?, ?, ?)",
			norm(c.OccurredAt), c.RunID, c.Attempt, c.JobID, c.StepNumber)
	}
	query := `SELECT repository_id, run_id, attempt, job_id, job_name, step_number, step_name, signature,
    signature_id, cause_lines, exit_code, unknown, class_id, occurred_at FROM failure_occurrences` + f.where() +
		` ORDER BY occurred_at DESC, run_id DESC, attempt DESC, job_id DESC, step_number DESC` + f.limit(limit+1)
	list, err := readAll(ctx, s.db, query, f.args, func(rows Rows) (store.Occurrence, error) {
		var o store.Occurrence
		var lines string
		err := rows.Scan(&o.RepositoryID, &o.RunID, &o.Attempt, &o.JobID, &o.JobName, &o.StepNumber, &o.StepName,
			&o.Signature, &o.SignatureID, &lines, &o.ExitCode, &o.Unknown, &o.ClassID, at(&o.OccurredAt))
		o.CauseLines = json.RawMessage(lines)
		return o, err
	})
	if err != nil {
		return store.OccurrencePage{}, fmt.Errorf("list occurrences of repository %d: %w", q.RepositoryID, err)
	}
	page := store.OccurrencePage{Occurrences: list}
	if len(page.Occurrences) > limit {
		page.Occurrences = page.Occurrences[:limit]
		o := page.Occurrences[limit-1]
		page.Next = &store.OccurrenceCursor{OccurredAt: o.OccurredAt, RunID: o.RunID, Attempt: o.Attempt,
			JobID: o.JobID, StepNumber: o.StepNumber}
	}
	return page, nil
}

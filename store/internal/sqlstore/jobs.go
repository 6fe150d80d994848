package sqlstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/polylane/polylane/store"
)

// PutJobs replaces the jobs and steps of a run attempt. Two diagnoses on
// different replicas may cache the same attempt at once: a job the other
// committed meanwhile for the same attempt is kept rather than failing
// this one; a job id of another attempt is still a conflict.
func (s *Records) PutJobs(ctx context.Context, key store.RunKey, jobs []store.WorkflowJob) error {
	if err := validKey(key); err != nil {
		return err
	}
	for _, j := range jobs {
		if j.ID <= 0 {
			return invalid("job %q of run %d: id must be positive", j.Name, key.RunID)
		}
	}
	err := s.db.Write(ctx, func(tx Tx) error {
		if err := runExists(ctx, tx, key); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM workflow_jobs WHERE repository_id = $1 AND run_id = $2 AND attempt = $3`,
			key.RepositoryID, key.RunID, key.Attempt); err != nil {
			return err
		}
		for _, j := range jobs {
			if err := insertJob(ctx, tx, key, j); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("put jobs of run %d attempt %d: %w", key.RunID, key.Attempt, err)
	}
	return nil
}

func insertJob(ctx context.Context, tx Tx, key store.RunKey, j store.WorkflowJob) error {
	var id int64
	err := tx.QueryRow(ctx, `
INSERT INTO workflow_jobs (id, repository_id, run_id, attempt, name, status, conclusion, started_at, completed_at, html_url)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (id) DO NOTHING RETURNING id`,
		j.ID, key.RepositoryID, key.RunID, key.Attempt, j.Name, j.Status, j.Conclusion,
		optTime(j.StartedAt), optTime(j.CompletedAt), j.HTMLURL).Scan(&id)
	if errors.Is(err, store.ErrNotFound) {
		// Another writer has the job: the same attempt (a concurrent
		// PutJobs; its steps are there too) or, wrongly, another one.
		var owner store.RunKey
		if err := tx.QueryRow(ctx, `SELECT repository_id, run_id, attempt FROM workflow_jobs WHERE id = $1`, j.ID).
			Scan(&owner.RepositoryID, &owner.RunID, &owner.Attempt); err != nil {
			return fmt.Errorf("insert job %d: %w", j.ID, err)
		}
		if owner != key {
			return fmt.Errorf("insert job %d: it belongs to run %d attempt %d: %w", j.ID, owner.RunID, owner.Attempt, store.ErrConflict)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("insert job %d: %w", j.ID, err)
	}
	for _, st := range j.Steps {
		_, err := tx.Exec(ctx, `
INSERT INTO job_steps (job_id, number, name, status, conclusion, started_at, completed_at)
VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			j.ID, st.Number, st.Name, st.Status, st.Conclusion, optTime(st.StartedAt), optTime(st.CompletedAt))
		if err != nil {
			return fmt.Errorf("insert step %d of job %d: %w", st.Number, j.ID, err)
		}
	}
	return nil
}

// ListJobs returns the jobs of a run attempt by id, with steps by number.
func (s *Records) ListJobs(ctx context.Context, key store.RunKey) ([]store.WorkflowJob, error) {
	var jobs []store.WorkflowJob
	err := s.db.Read(ctx, func(tx Tx) error {
		var err error
		if jobs, err = readJobs(ctx, tx, key); err != nil {
			return err
		}
		return readSteps(ctx, tx, key, jobs)
	})
	if err != nil {
		return nil, fmt.Errorf("list jobs of run %d attempt %d: %w", key.RunID, key.Attempt, err)
	}
	return jobs, nil
}

func readJobs(ctx context.Context, tx Tx, key store.RunKey) ([]store.WorkflowJob, error) {
	rows, err := tx.Query(ctx, `
SELECT id, name, status, conclusion, started_at, completed_at, html_url FROM workflow_jobs
WHERE repository_id = $1 AND run_id = $2 AND attempt = $3 ORDER BY id`, key.RepositoryID, key.RunID, key.Attempt)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var jobs []store.WorkflowJob
	for rows.Next() {
		var j store.WorkflowJob
		if err := rows.Scan(&j.ID, &j.Name, &j.Status, &j.Conclusion, at(&j.StartedAt), at(&j.CompletedAt), &j.HTMLURL); err != nil {
			return nil, err
		}
		jobs = append(jobs, j)
	}
	return jobs, rows.Err()
}

func readSteps(ctx context.Context, tx Tx, key store.RunKey, jobs []store.WorkflowJob) error {
	if len(jobs) == 0 {
		return nil
	}
	index := make(map[int64]int, len(jobs))
	for i, j := range jobs {
		index[j.ID] = i
	}
	rows, err := tx.Query(ctx, `
SELECT s.job_id, s.number, s.name, s.status, s.conclusion, s.started_at, s.completed_at
FROM job_steps s JOIN workflow_jobs j ON j.id = s.job_id
WHERE j.repository_id = $1 AND j.run_id = $2 AND j.attempt = $3 ORDER BY s.job_id, s.number`,
		key.RepositoryID, key.RunID, key.Attempt)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var jobID int64
		var st store.JobStep
		if err := rows.Scan(&jobID, &st.Number, &st.Name, &st.Status, &st.Conclusion, at(&st.StartedAt), at(&st.CompletedAt)); err != nil {
			return err
		}
		if i, ok := index[jobID]; ok {
			jobs[i].Steps = append(jobs[i].Steps, st)
		}
	}
	return rows.Err()
}

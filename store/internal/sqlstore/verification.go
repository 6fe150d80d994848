package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/polylane/polylane/store"
)

const verificationRunColumns = `repository_id, class_id, run_id, attempt, workflow_id, workflow_name, head_sha,
    conclusion, failed_job, cause, failure_class, in_class, completed_at, updated_at`

func scanVerificationRun(row Row) (store.FixVerificationRun, error) {
	var r store.FixVerificationRun
	err := row.Scan(&r.RepositoryID, &r.ClassID, &r.RunID, &r.Attempt, &r.WorkflowID, &r.WorkflowName, &r.HeadSHA,
		&r.Conclusion, &r.FailedJob, &r.Cause, &r.FailureClass, &r.InClass, at(&r.CompletedAt), at(&r.UpdatedAt))
	return r, err
}

// sameVerificationRun compares what a delivery says of a run, not when it
// was stored.
func sameVerificationRun(a, b store.FixVerificationRun) bool {
	same := a.CompletedAt.Equal(b.CompletedAt)
	a.UpdatedAt, b.UpdatedAt, a.CompletedAt, b.CompletedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	return same && a == b
}

// PutFixVerificationRun records a run attempt on a fix branch; it writes
// nothing when the stored row says the same.
func (s *Records) PutFixVerificationRun(ctx context.Context, r store.FixVerificationRun) (bool, error) {
	if r.RepositoryID <= 0 || r.ClassID == "" || r.RunID <= 0 || r.Attempt < 1 || r.Conclusion == "" || r.CompletedAt.IsZero() {
		return false, invalid("fix verification run %d: repository, class, run, attempt, conclusion and completion are required", r.RunID)
	}
	r.CompletedAt = norm(r.CompletedAt)
	changed := false
	err := s.db.Write(ctx, func(tx Tx) error {
		old, err := scanVerificationRun(tx.QueryRow(ctx, `SELECT `+verificationRunColumns+` FROM fix_verification_runs
WHERE repository_id = $1 AND run_id = $2 AND attempt = $3`, r.RepositoryID, r.RunID, r.Attempt))
		switch {
		case err == nil && sameVerificationRun(old, r):
			return nil
		case err != nil && !errors.Is(err, store.ErrNotFound):
			return err
		}
		changed = true
		_, err = tx.Exec(ctx, `
INSERT INTO fix_verification_runs (`+verificationRunColumns+`)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
ON CONFLICT (repository_id, run_id, attempt) DO UPDATE SET
    class_id = excluded.class_id, workflow_id = excluded.workflow_id, workflow_name = excluded.workflow_name,
    head_sha = excluded.head_sha, conclusion = excluded.conclusion, failed_job = excluded.failed_job,
    cause = excluded.cause, failure_class = excluded.failure_class, in_class = excluded.in_class,
    completed_at = excluded.completed_at, updated_at = excluded.updated_at`,
			r.RepositoryID, r.ClassID, r.RunID, r.Attempt, r.WorkflowID, r.WorkflowName, r.HeadSHA,
			r.Conclusion, r.FailedJob, r.Cause, r.FailureClass, r.InClass, r.CompletedAt, s.clock())
		return err
	})
	if err != nil {
		return false, fmt.Errorf("put fix verification run %d attempt %d: %w", r.RunID, r.Attempt, err)
	}
	return changed, nil
}

// ListFixVerificationRuns lists the runs recorded for a class's fix, oldest
// run first.
func (s *Records) ListFixVerificationRuns(ctx context.Context, repositoryID int64, classID string) ([]store.FixVerificationRun, error) {
	var list []store.FixVerificationRun
	err := s.db.Read(ctx, func(tx Tx) error {
		rows, err := tx.Query(ctx, `SELECT `+verificationRunColumns+` FROM fix_verification_runs
WHERE repository_id = $1 AND class_id = $2 ORDER BY run_id, attempt`, repositoryID, classID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			r, err := scanVerificationRun(rows)
			if err != nil {
				return err
			}
			list = append(list, r)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("list fix verification runs of class %s: %w", classID, err)
	}
	return list, nil
}

// GetFixVerification reads a fix's verification state; none reads as zero.
func (s *Records) GetFixVerification(ctx context.Context, repositoryID int64, classID string) (store.FixVerification, error) {
	v := store.FixVerification{RepositoryID: repositoryID, ClassID: classID}
	err := s.db.Read(ctx, func(tx Tx) error {
		err := tx.QueryRow(ctx, `SELECT reruns, refused, last_rerun_at, updated_at FROM fix_verifications
WHERE repository_id = $1 AND class_id = $2`, repositoryID, classID).Scan(&v.Reruns, &v.Refused, at(&v.LastRerunAt), at(&v.UpdatedAt))
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		return err
	})
	if err != nil {
		return store.FixVerification{}, fmt.Errorf("get fix verification of class %s: %w", classID, err)
	}
	return v, nil
}

// PutFixVerification records a fix's verification state.
func (s *Records) PutFixVerification(ctx context.Context, v store.FixVerification) error {
	if v.RepositoryID <= 0 || v.ClassID == "" || v.Reruns < 0 {
		return invalid("fix verification of class %q: repository and class are required, reruns not negative", v.ClassID)
	}
	err := s.db.Write(ctx, func(tx Tx) error {
		_, err := tx.Exec(ctx, `
INSERT INTO fix_verifications (repository_id, class_id, reruns, refused, last_rerun_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (repository_id, class_id) DO UPDATE SET
    reruns = excluded.reruns, refused = excluded.refused, last_rerun_at = excluded.last_rerun_at,
    updated_at = excluded.updated_at`,
			v.RepositoryID, v.ClassID, v.Reruns, v.Refused, optTime(v.LastRerunAt), s.clock())
		return err
	})
	if err != nil {
		return fmt.Errorf("put fix verification of class %s: %w", v.ClassID, err)
	}
	return nil
}

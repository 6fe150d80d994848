package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/polylane/polylane/store"
)

// PutDiagnosis stores the diagnosis of a run attempt and enqueues jobs in the
// same transaction.
func (s *Records) PutDiagnosis(ctx context.Context, d store.Diagnosis, jobs ...store.Job) (int64, error) {
	if err := validKey(d.Key()); err != nil {
		return 0, err
	}
	if len(d.Document) == 0 {
		return 0, invalid("diagnosis of run %d: document is required", d.RunID)
	}
	doc, err := jsonText(d.Document, "", fmt.Sprintf("diagnosis of run %d", d.RunID))
	if err != nil {
		return 0, err
	}
	if d.CreatedAt.IsZero() {
		d.CreatedAt = s.clock()
	}
	var id int64
	err = s.db.Write(ctx, func(tx Tx) error {
		err := tx.QueryRow(ctx, `
INSERT INTO diagnoses (repository_id, run_id, attempt, document, verdict, class_id, created_at, stale)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
ON CONFLICT (repository_id, run_id, attempt) DO UPDATE SET
    document = excluded.document, verdict = excluded.verdict, class_id = excluded.class_id,
    created_at = excluded.created_at, stale = excluded.stale
RETURNING id`, d.RepositoryID, d.RunID, d.Attempt, doc, d.Verdict, d.ClassID, norm(d.CreatedAt), d.Stale).Scan(&id)
		if err != nil {
			return err
		}
		return enqueueAll(ctx, tx, jobs)
	})
	if err != nil {
		return 0, fmt.Errorf("put diagnosis of run %d attempt %d: %w", d.RunID, d.Attempt, err)
	}
	return id, nil
}

const diagnosisColumns = `id, repository_id, run_id, attempt, document, verdict, class_id, created_at, stale`

func scanDiagnosis(row Row) (store.Diagnosis, error) {
	var d store.Diagnosis
	var doc string
	err := row.Scan(&d.ID, &d.RepositoryID, &d.RunID, &d.Attempt, &doc, &d.Verdict, &d.ClassID, at(&d.CreatedAt), &d.Stale)
	d.Document = json.RawMessage(doc)
	return d, err
}

// GetDiagnosis reads the diagnosis of a run attempt.
func (s *Records) GetDiagnosis(ctx context.Context, key store.RunKey) (store.Diagnosis, error) {
	var d store.Diagnosis
	err := s.db.Read(ctx, func(tx Tx) error {
		var err error
		d, err = scanDiagnosis(tx.QueryRow(ctx, `SELECT `+diagnosisColumns+` FROM diagnoses
WHERE repository_id = $1 AND run_id = $2 AND attempt = $3`, key.RepositoryID, key.RunID, key.Attempt))
		return err
	})
	if err != nil {
		return store.Diagnosis{}, fmt.Errorf("get diagnosis of run %d attempt %d: %w", key.RunID, key.Attempt, err)
	}
	return d, nil
}

// GetDiagnosisByID reads a diagnosis by id.
func (s *Records) GetDiagnosisByID(ctx context.Context, id int64) (store.Diagnosis, error) {
	var d store.Diagnosis
	err := s.db.Read(ctx, func(tx Tx) error {
		var err error
		d, err = scanDiagnosis(tx.QueryRow(ctx, `SELECT `+diagnosisColumns+` FROM diagnoses WHERE id = $1`, id))
		return err
	})
	if err != nil {
		return store.Diagnosis{}, fmt.Errorf("get diagnosis %d: %w", id, err)
	}
	return d, nil
}

// MarkDiagnosesStale flags the diagnoses of a class as stale.
func (s *Records) MarkDiagnosesStale(ctx context.Context, repositoryID int64, classID string) (int64, error) {
	var n int64
	err := s.db.Write(ctx, func(tx Tx) error {
		var err error
		n, err = tx.Exec(ctx, `UPDATE diagnoses SET stale = $3 WHERE repository_id = $1 AND class_id = $2 AND stale = $4`,
			repositoryID, classID, true, false)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("mark diagnoses of class %s stale: %w", classID, err)
	}
	return n, nil
}

// UpsertComment records a published comment, replacing the one of the same
// (repository, number, kind).
func (s *Records) UpsertComment(ctx context.Context, c store.PublishedComment) error {
	if c.RepositoryID <= 0 || c.Number <= 0 || c.Kind == "" || c.CommentID <= 0 {
		return invalid("comment on #%d of repository %d: repository, number, kind and comment id are required", c.Number, c.RepositoryID)
	}
	var diagnosisID any
	if c.DiagnosisID > 0 {
		diagnosisID = c.DiagnosisID
	}
	now := s.clock()
	err := s.db.Write(ctx, func(tx Tx) error {
		_, err := tx.Exec(ctx, `
INSERT INTO published_comments (repository_id, number, kind, comment_id, diagnosis_id, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $6)
ON CONFLICT (repository_id, number, kind) DO UPDATE SET
    comment_id = excluded.comment_id, diagnosis_id = excluded.diagnosis_id, updated_at = excluded.updated_at`,
			c.RepositoryID, c.Number, c.Kind, c.CommentID, diagnosisID, now)
		return err
	})
	if err != nil {
		return fmt.Errorf("upsert %s comment on #%d: %w", c.Kind, c.Number, err)
	}
	return nil
}

// GetComment reads the comment of a kind on an issue or pull request.
func (s *Records) GetComment(ctx context.Context, repositoryID int64, number int, kind string) (store.PublishedComment, error) {
	var c store.PublishedComment
	err := s.db.Read(ctx, func(tx Tx) error {
		var diagnosisID *int64
		err := tx.QueryRow(ctx, `
SELECT repository_id, number, kind, comment_id, diagnosis_id, created_at, updated_at
FROM published_comments WHERE repository_id = $1 AND number = $2 AND kind = $3`, repositoryID, number, kind).Scan(
			&c.RepositoryID, &c.Number, &c.Kind, &c.CommentID, &diagnosisID, at(&c.CreatedAt), at(&c.UpdatedAt))
		if diagnosisID != nil {
			c.DiagnosisID = *diagnosisID
		}
		return err
	})
	if err != nil {
		return store.PublishedComment{}, fmt.Errorf("get %s comment on #%d: %w", kind, number, err)
	}
	return c, nil
}

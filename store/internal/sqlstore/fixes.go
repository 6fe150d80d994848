package sqlstore

import (
	"context"
	"fmt"

	"github.com/polylane/polylane/store"
)

// UpsertFixPullRequest records the fix pull request of a failure class.
func (s *Records) UpsertFixPullRequest(ctx context.Context, p store.FixPullRequest) error {
	if p.RepositoryID <= 0 || p.ClassID == "" || p.Number <= 0 || p.Branch == "" {
		return invalid("fix pull request #%d: repository, class, number and branch are required", p.Number)
	}
	switch p.State {
	case store.FixOpen, store.FixClosed, store.FixMerged:
	default:
		return invalid("fix pull request #%d: unknown state %q", p.Number, p.State)
	}
	now := s.clock()
	if p.CreatedAt.IsZero() {
		p.CreatedAt = now
	}
	err := s.db.Write(ctx, func(tx Tx) error {
		_, err := tx.Exec(ctx, `
INSERT INTO fix_pull_requests (repository_id, class_id, number, branch, state, head_sha, created_at, updated_at, closed_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
ON CONFLICT (repository_id, class_id) DO UPDATE SET
    number = excluded.number, branch = excluded.branch, state = excluded.state, head_sha = excluded.head_sha,
    updated_at = excluded.updated_at, closed_at = excluded.closed_at`,
			p.RepositoryID, p.ClassID, p.Number, p.Branch, p.State, p.HeadSHA, norm(p.CreatedAt), now, optTime(p.ClosedAt))
		return err
	})
	if err != nil {
		return fmt.Errorf("upsert fix pull request #%d: %w", p.Number, err)
	}
	return nil
}

const fixColumns = `repository_id, class_id, number, branch, state, head_sha, created_at, updated_at, closed_at`

func scanFix(row Row) (store.FixPullRequest, error) {
	var p store.FixPullRequest
	err := row.Scan(&p.RepositoryID, &p.ClassID, &p.Number, &p.Branch, &p.State, &p.HeadSHA,
		at(&p.CreatedAt), at(&p.UpdatedAt), at(&p.ClosedAt))
	return p, err
}

// GetFixPullRequest reads the fix pull request of a class.
func (s *Records) GetFixPullRequest(ctx context.Context, repositoryID int64, classID string) (store.FixPullRequest, error) {
	var p store.FixPullRequest
	err := s.db.Read(ctx, func(tx Tx) error {
		var err error
		p, err = scanFix(tx.QueryRow(ctx, `SELECT `+fixColumns+` FROM fix_pull_requests
WHERE repository_id = $1 AND class_id = $2`, repositoryID, classID))
		return err
	})
	if err != nil {
		return store.FixPullRequest{}, fmt.Errorf("get fix pull request of class %s: %w", classID, err)
	}
	return p, nil
}

// ListFixPullRequests lists a repository's fix pull requests, newest first.
func (s *Records) ListFixPullRequests(ctx context.Context, repositoryID int64) ([]store.FixPullRequest, error) {
	var list []store.FixPullRequest
	err := s.db.Read(ctx, func(tx Tx) error {
		rows, err := tx.Query(ctx, `SELECT `+fixColumns+` FROM fix_pull_requests
WHERE repository_id = $1 ORDER BY created_at DESC, number DESC`, repositoryID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			p, err := scanFix(rows)
			if err != nil {
				return err
			}
			list = append(list, p)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("list fix pull requests of repository %d: %w", repositoryID, err)
	}
	return list, nil
}

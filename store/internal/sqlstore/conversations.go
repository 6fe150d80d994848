package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/polylane/polylane/store"
)

// SetDiagnosisStale flags one diagnosis as stale, or clears the flag.
func (s *Records) SetDiagnosisStale(ctx context.Context, id int64, stale bool) error {
	err := s.db.Write(ctx, func(tx Tx) error {
		n, err := tx.Exec(ctx, `UPDATE diagnoses SET stale = $2 WHERE id = $1`, id, stale)
		if err == nil && n == 0 {
			err = store.ErrNotFound
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("set diagnosis %d stale=%v: %w", id, stale, err)
	}
	return nil
}

// maxMentionCommand bounds the stored command line; the parser keeps
// commands far shorter.
const maxMentionCommand = 2000

// PutMention stores the record of one command of one comment.
func (s *Records) PutMention(ctx context.Context, m store.Mention) error {
	switch {
	case m.RepositoryID <= 0 || m.CommentID <= 0 || m.Command == "":
		return invalid("mention: repository, comment and command are required")
	case len(m.Command) > maxMentionCommand:
		return invalid("mention of comment %d: command of %d bytes", m.CommentID, len(m.Command))
	case m.State != store.MentionActing && m.State != store.MentionDone:
		return invalid("mention of comment %d: unknown state %q", m.CommentID, m.State)
	}
	now := s.clock()
	if m.CreatedAt.IsZero() {
		m.CreatedAt = now
	}
	err := s.db.Write(ctx, func(tx Tx) error {
		_, err := tx.Exec(ctx, `
INSERT INTO mentions (repository_id, comment_id, command, number, author, state, reply_id, outcome, unprivileged, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
ON CONFLICT (repository_id, comment_id, command) DO UPDATE SET
    number = excluded.number, author = excluded.author, state = excluded.state, reply_id = excluded.reply_id,
    outcome = excluded.outcome, unprivileged = excluded.unprivileged, updated_at = excluded.updated_at`,
			m.RepositoryID, m.CommentID, m.Command, m.Number, m.Author, m.State, m.ReplyID, m.Outcome, m.Unprivileged, norm(m.CreatedAt), now)
		return err
	})
	if err != nil {
		return fmt.Errorf("put mention of comment %d: %w", m.CommentID, err)
	}
	return nil
}

// GetMention reads the record of one command of one comment.
func (s *Records) GetMention(ctx context.Context, repositoryID, commentID int64, command string) (store.Mention, error) {
	var m store.Mention
	err := s.db.Read(ctx, func(tx Tx) error {
		return tx.QueryRow(ctx, `
SELECT repository_id, comment_id, command, number, author, state, reply_id, outcome, unprivileged, created_at, updated_at
FROM mentions WHERE repository_id = $1 AND comment_id = $2 AND command = $3`, repositoryID, commentID, command).Scan(
			&m.RepositoryID, &m.CommentID, &m.Command, &m.Number, &m.Author, &m.State, &m.ReplyID, &m.Outcome,
			&m.Unprivileged, at(&m.CreatedAt), at(&m.UpdatedAt))
	})
	if err != nil {
		return store.Mention{}, fmt.Errorf("get mention of comment %d: %w", commentID, err)
	}
	return m, nil
}

// CountUnprivilegedReplies counts the replies posted since a time to the
// commands of an author without write access.
func (s *Records) CountUnprivilegedReplies(ctx context.Context, repositoryID int64, author string, since time.Time) (int, error) {
	var n int
	err := s.db.Read(ctx, func(tx Tx) error {
		return tx.QueryRow(ctx, `
SELECT COUNT(DISTINCT reply_id) FROM mentions
WHERE repository_id = $1 AND author = $2 AND updated_at >= $3 AND unprivileged = $4 AND reply_id <> 0`,
			repositoryID, author, norm(since), true).Scan(&n)
	})
	if err != nil {
		return 0, fmt.Errorf("count replies to %s: %w", author, err)
	}
	return n, nil
}

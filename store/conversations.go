package store

import (
	"context"
	"time"
)

// Conversations stores what Polylane's conversation features need beyond
// diagnoses and comments: the stale flag of one diagnosis, and the commands
// it was given in comments with what it did about them.
type Conversations interface {
	// SetDiagnosisStale flags one diagnosis as stale (a pull request's head
	// moved past it) or clears the flag. ErrNotFound when there is none.
	SetDiagnosisStale(ctx context.Context, id int64, stale bool) error
	// GetMention reads the record of one command of one comment;
	// ErrNotFound when the command was never seen.
	GetMention(ctx context.Context, repositoryID, commentID int64, command string) (Mention, error)
	// PutMention stores the record of one command, replacing the earlier
	// record of the same (repository, comment, command).
	PutMention(ctx context.Context, m Mention) error
	// CountUnprivilegedReplies counts the replies (distinct reply ids) that
	// Polylane posted since a time to commands an author without write
	// access gave in a repository: the records with Unprivileged set and a
	// reply, last updated at or after since.
	CountUnprivilegedReplies(ctx context.Context, repositoryID int64, author string, since time.Time) (int, error)
}

// Mention states: what Polylane has done about a command.
const (
	// MentionActing: the command's change is being made (a retried job
	// checks GitHub before acting again).
	MentionActing = "acting"
	// MentionDone: the command was carried out (or refused) and answered.
	MentionDone = "done"
)

// Mention is one "@polylane" command of one comment; there is at most one
// per (repository, comment, command).
type Mention struct {
	RepositoryID int64
	CommentID    int64  // GitHub's id of the comment that gave the command
	Command      string // the command line after the handle, as parsed
	Number       int    // the issue or pull request the comment is on
	Author       string // login of the comment's author
	State        string // MentionActing or MentionDone
	ReplyID      int64  // GitHub's id of Polylane's reply; 0 before it is posted
	Outcome      string // a short account of what was done, for people reading the store
	// Unprivileged is set when the author had no write access when the
	// command was answered: such replies count toward the reply limit.
	Unprivileged bool
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

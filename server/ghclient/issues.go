package ghclient

import (
	"context"
	"fmt"

	"github.com/google/go-github/v66/github"
)

// Comment is an issue, pull-request or commit comment.
type Comment struct {
	ID       int64
	Body     string
	User     string // login
	UserType string // "User" or "Bot"
}

func issueComment(c *github.IssueComment) Comment {
	return Comment{ID: c.GetID(), Body: c.GetBody(), User: c.GetUser().GetLogin(), UserType: c.GetUser().GetType()}
}

// maxCommentPages bounds a comment listing (100 per page).
const maxCommentPages = 30

// ListComments lists the comments of an issue or pull request, oldest
// first, every page.
func (r *Repo) ListComments(ctx context.Context, number int) ([]Comment, error) {
	var out []Comment
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	op := fmt.Sprintf("list comments of #%d of %s", number, r.FullName())
	for page := 1; page > 0 && page <= maxCommentPages; {
		opts.Page = page
		next := 0
		err := r.c.do(ctx, op, idempotent, func(ctx context.Context) (*github.Response, error) {
			list, resp, err := r.gh.Issues.ListComments(ctx, r.owner, r.name, number, opts)
			if err != nil {
				return resp, err
			}
			for _, c := range list {
				out = append(out, issueComment(c))
			}
			next = resp.NextPage
			return resp, nil
		})
		if err != nil {
			return nil, err
		}
		page = next
	}
	return out, nil
}

// GetComment reads one issue comment.
func (r *Repo) GetComment(ctx context.Context, id int64) (Comment, error) {
	var out Comment
	err := r.c.do(ctx, fmt.Sprintf("get comment %d of %s", id, r.FullName()), idempotent, func(ctx context.Context) (*github.Response, error) {
		c, resp, err := r.gh.Issues.GetComment(ctx, r.owner, r.name, id)
		if err != nil {
			return resp, err
		}
		out = issueComment(c)
		return resp, nil
	})
	return out, err
}

// CreateComment comments on an issue or pull request. It is not repeated
// after an unknown outcome (the comment may exist): the caller looks before
// writing again.
func (r *Repo) CreateComment(ctx context.Context, number int, body string) (Comment, error) {
	var out Comment
	err := r.c.do(ctx, fmt.Sprintf("comment on #%d of %s", number, r.FullName()), once, func(ctx context.Context) (*github.Response, error) {
		c, resp, err := r.gh.Issues.CreateComment(ctx, r.owner, r.name, number, &github.IssueComment{Body: github.String(body)})
		if err != nil {
			return resp, err
		}
		out = issueComment(c)
		return resp, nil
	})
	return out, err
}

// EditComment replaces a comment's body; writing the same body twice is
// harmless, so it is retried.
func (r *Repo) EditComment(ctx context.Context, id int64, body string) (Comment, error) {
	var out Comment
	err := r.c.do(ctx, fmt.Sprintf("edit comment %d of %s", id, r.FullName()), idempotent, func(ctx context.Context) (*github.Response, error) {
		c, resp, err := r.gh.Issues.EditComment(ctx, r.owner, r.name, id, &github.IssueComment{Body: github.String(body)})
		if err != nil {
			return resp, err
		}
		out = issueComment(c)
		return resp, nil
	})
	return out, err
}

// ListCommitComments lists the comments on a commit.
func (r *Repo) ListCommitComments(ctx context.Context, sha string) ([]Comment, error) {
	var out []Comment
	opts := &github.ListOptions{PerPage: 100}
	op := "list comments of commit " + short(sha) + " of " + r.FullName()
	for page := 1; page > 0 && page <= maxCommentPages; {
		opts.Page = page
		next := 0
		err := r.c.do(ctx, op, idempotent, func(ctx context.Context) (*github.Response, error) {
			list, resp, err := r.gh.Repositories.ListCommitComments(ctx, r.owner, r.name, sha, opts)
			if err != nil {
				return resp, err
			}
			for _, c := range list {
				out = append(out, Comment{ID: c.GetID(), Body: c.GetBody(), User: c.GetUser().GetLogin(), UserType: c.GetUser().GetType()})
			}
			next = resp.NextPage
			return resp, nil
		})
		if err != nil {
			return nil, err
		}
		page = next
	}
	return out, nil
}

// CreateCommitComment comments on a commit (not repeated after an unknown
// outcome).
func (r *Repo) CreateCommitComment(ctx context.Context, sha, body string) (Comment, error) {
	var out Comment
	err := r.c.do(ctx, "comment on commit "+short(sha)+" of "+r.FullName(), once, func(ctx context.Context) (*github.Response, error) {
		c, resp, err := r.gh.Repositories.CreateComment(ctx, r.owner, r.name, sha, &github.RepositoryComment{Body: github.String(body)})
		if err != nil {
			return resp, err
		}
		out = Comment{ID: c.GetID(), Body: c.GetBody(), User: c.GetUser().GetLogin(), UserType: c.GetUser().GetType()}
		return resp, nil
	})
	return out, err
}

package ghclient

import (
	"context"
	"fmt"
	"time"

	"github.com/google/go-github/v66/github"
)

// PullRequest is the part of a pull request Polylane uses.
type PullRequest struct {
	Number     int
	State      string // "open" or "closed"
	Title      string
	Body       string
	User       string
	HeadRef    string
	HeadSHA    string
	HeadRepoID int64
	BaseRef    string
	BaseRepoID int64
	Merged     bool
	HTMLURL    string
	MergedAt   time.Time // zero unless merged
	ClosedAt   time.Time // zero while open
}

func pullRequest(p *github.PullRequest) PullRequest {
	return PullRequest{Number: p.GetNumber(), State: p.GetState(), Title: p.GetTitle(), Body: p.GetBody(),
		User: p.GetUser().GetLogin(), HeadRef: p.GetHead().GetRef(), HeadSHA: p.GetHead().GetSHA(),
		HeadRepoID: p.GetHead().GetRepo().GetID(), BaseRef: p.GetBase().GetRef(), BaseRepoID: p.GetBase().GetRepo().GetID(),
		Merged: p.GetMerged() || p.MergedAt != nil, HTMLURL: p.GetHTMLURL(),
		MergedAt: p.GetMergedAt().Time.UTC(), ClosedAt: p.GetClosedAt().Time.UTC()}
}

// PullQuery selects pull requests.
type PullQuery struct {
	Head  string // "owner:branch"
	Base  string
	State string // open (default), closed or all
}

// maxPullPages bounds a pull-request listing (100 per page).
const maxPullPages = 10

// ListPulls lists pull requests.
func (r *Repo) ListPulls(ctx context.Context, q PullQuery) ([]PullRequest, error) {
	opts := &github.PullRequestListOptions{Head: q.Head, Base: q.Base, State: q.State, ListOptions: github.ListOptions{PerPage: 100}}
	var out []PullRequest
	op := "list pull requests of " + r.FullName()
	for page := 1; page > 0 && page <= maxPullPages; {
		opts.Page = page
		next := 0
		err := r.c.do(ctx, op, idempotent, func(ctx context.Context) (*github.Response, error) {
			list, resp, err := r.gh.PullRequests.List(ctx, r.owner, r.name, opts)
			if err != nil {
				return resp, err
			}
			for _, p := range list {
				out = append(out, pullRequest(p))
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

// PullsWithCommit lists the pull requests that contain a commit (merged
// ones included).
func (r *Repo) PullsWithCommit(ctx context.Context, sha string) ([]PullRequest, error) {
	var out []PullRequest
	err := r.c.do(ctx, "list pull requests of commit "+short(sha)+" of "+r.FullName(), idempotent, func(ctx context.Context) (*github.Response, error) {
		list, resp, err := r.gh.PullRequests.ListPullRequestsWithCommit(ctx, r.owner, r.name, sha, &github.ListOptions{PerPage: 100})
		if err != nil {
			return resp, err
		}
		for _, p := range list {
			out = append(out, pullRequest(p))
		}
		return resp, nil
	})
	return out, err
}

// GetPull reads one pull request.
func (r *Repo) GetPull(ctx context.Context, number int) (PullRequest, error) {
	var out PullRequest
	err := r.c.do(ctx, fmt.Sprintf("get pull request #%d of %s", number, r.FullName()), idempotent, func(ctx context.Context) (*github.Response, error) {
		p, resp, err := r.gh.PullRequests.Get(ctx, r.owner, r.name, number)
		if err != nil {
			return resp, err
		}
		out = pullRequest(p)
		return resp, nil
	})
	return out, err
}

// NewPull is a pull request to open.
type NewPull struct {
	Title, Body string
	Head, Base  string // branch names
}

// CreatePull opens a pull request from a branch of the same repository.
// One that exists already gives ErrUnprocessable; it is not repeated after
// an unknown outcome. maintainer_can_modify is not sent: it lets the base
// repository's maintainers push to a fork's head branch, and means nothing
// for a branch of the repository itself.
func (r *Repo) CreatePull(ctx context.Context, p NewPull) (PullRequest, error) {
	var out PullRequest
	np := &github.NewPullRequest{Title: github.String(p.Title), Body: github.String(p.Body), Head: github.String(p.Head),
		Base: github.String(p.Base)}
	err := r.c.do(ctx, "open pull request from "+p.Head+" in "+r.FullName(), once, func(ctx context.Context) (*github.Response, error) {
		pr, resp, err := r.gh.PullRequests.Create(ctx, r.owner, r.name, np)
		if err != nil {
			return resp, err
		}
		out = pullRequest(pr)
		return resp, nil
	})
	return out, err
}

// EditPull replaces a pull request's title and body (repeatable).
func (r *Repo) EditPull(ctx context.Context, number int, title, body string) (PullRequest, error) {
	var out PullRequest
	err := r.c.do(ctx, fmt.Sprintf("edit pull request #%d of %s", number, r.FullName()), idempotent, func(ctx context.Context) (*github.Response, error) {
		pr, resp, err := r.gh.PullRequests.Edit(ctx, r.owner, r.name, number, &github.PullRequest{Title: github.String(title), Body: github.String(body)})
		if err != nil {
			return resp, err
		}
		out = pullRequest(pr)
		return resp, nil
	})
	return out, err
}

package ghclient

import (
	"context"

	"github.com/google/go-github/v66/github"

	"github.com/polylane/polylane/analysis/gha"
)

// Comparison is what GET compare/{base}...{head} lists: the commits after
// their merge base up to head, oldest first, and the paths changed in all
// of them together.
type Comparison struct {
	Status       string       `json:"status"`
	TotalCommits int          `json:"total_commits"`
	Commits      []gha.Commit `json:"commits"`
	Files        []string     `json:"files"`
}

// Compare compares two commits in one call: the first page of up to 250
// commits and up to 300 changed files, as GitHub serves them unpaginated.
// A ref GitHub does not know, or two histories without a common ancestor,
// is ErrNotFound.
func (r *Repo) Compare(ctx context.Context, base, head string) (Comparison, error) {
	var out Comparison
	err := r.c.do(ctx, "compare "+short(base)+"..."+short(head)+" of "+r.FullName(), idempotent, func(ctx context.Context) (*github.Response, error) {
		cmp, resp, err := r.gh.Repositories.CompareCommits(ctx, r.owner, r.name, base, head, nil)
		if err != nil {
			return resp, err
		}
		out = Comparison{Status: cmp.GetStatus(), TotalCommits: cmp.GetTotalCommits()}
		for _, c := range cmp.Commits {
			out.Commits = append(out.Commits, commitOf(c))
		}
		for _, f := range cmp.Files {
			out.Files = append(out.Files, f.GetFilename())
		}
		return resp, nil
	})
	return out, err
}

// CommitFiles returns a commit with the paths it changed against its first
// parent (the first 100 that GitHub lists).
func (r *Repo) CommitFiles(ctx context.Context, sha string) (gha.Commit, error) {
	var out gha.Commit
	err := r.c.do(ctx, "get commit "+short(sha)+" of "+r.FullName(), idempotent, func(ctx context.Context) (*github.Response, error) {
		c, resp, err := r.gh.Repositories.GetCommit(ctx, r.owner, r.name, sha, &github.ListOptions{PerPage: 100})
		if err != nil {
			return resp, err
		}
		out = commitOf(c)
		out.Files = []string{}
		for _, f := range c.Files {
			out.Files = append(out.Files, f.GetFilename())
		}
		return resp, nil
	})
	return out, err
}

// commitOf is a listed commit without its files.
func commitOf(c *github.RepositoryCommit) gha.Commit {
	out := gha.Commit{SHA: c.GetSHA(), Message: c.GetCommit().GetMessage(), HTMLURL: c.GetHTMLURL()}
	for _, p := range c.Parents {
		out.Parents = append(out.Parents, p.GetSHA())
	}
	return out
}

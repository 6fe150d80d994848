package ghclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-github/v66/github"
)

// ReactToComment adds a reaction ("eyes", "+1", …) to an issue comment.
// Reacting twice with the same content is harmless (GitHub answers with the
// existing reaction), so it is retried.
func (r *Repo) ReactToComment(ctx context.Context, commentID int64, content string) error {
	op := fmt.Sprintf("react %s to comment %d of %s", content, commentID, r.FullName())
	return r.c.do(ctx, op, idempotent, func(ctx context.Context) (*github.Response, error) {
		_, resp, err := r.gh.Reactions.CreateIssueCommentReaction(ctx, r.owner, r.name, commentID, content)
		return resp, err
	})
}

// Permission levels, weakest first, as GitHub's collaborator permission
// endpoint names them (role_name); "maintain" and "triage" are only in
// role_name, the legacy field folds them into "write" and "read".
var permissionRank = map[string]int{"none": 0, "read": 1, "triage": 2, "write": 3, "maintain": 4, "admin": 5}

// Permission returns a user's permission on the repository: "admin",
// "maintain", "write", "triage", "read" or "none". A user GitHub does not
// know has "none".
func (r *Repo) Permission(ctx context.Context, login string) (string, error) {
	var level string
	op := fmt.Sprintf("get the permission of %s on %s", login, r.FullName())
	err := r.c.do(ctx, op, idempotent, func(ctx context.Context) (*github.Response, error) {
		p, resp, err := r.gh.Repositories.GetPermissionLevel(ctx, r.owner, r.name, login)
		if err != nil {
			return resp, err
		}
		level = strings.ToLower(p.GetRoleName())
		if _, ok := permissionRank[level]; !ok {
			level = strings.ToLower(p.GetPermission())
		}
		return resp, nil
	})
	if errors.Is(err, ErrNotFound) {
		return "none", nil
	}
	return level, err
}

// CanWrite reports whether a permission level allows pushing to the
// repository (write, maintain or admin).
func CanWrite(level string) bool {
	return permissionRank[strings.ToLower(level)] >= permissionRank["write"]
}

// RerunFailedJobs starts a new attempt of a run with only its failed jobs
// (and their dependents). Each call starts an attempt, so it is not
// repeated after an unknown outcome: the caller reads the run first.
func (r *Repo) RerunFailedJobs(ctx context.Context, runID int64) error {
	op := fmt.Sprintf("re-run the failed jobs of run %d of %s", runID, r.FullName())
	return r.c.do(ctx, op, once, func(ctx context.Context) (*github.Response, error) {
		return r.gh.Actions.RerunFailedJobsByID(ctx, r.owner, r.name, runID)
	})
}

// RunState is the part of a run a caller checks before acting on it.
type RunState struct {
	Status     string
	Conclusion string
	Attempt    int
}

// GetRunState reads a run's status, conclusion and current attempt.
func (r *Repo) GetRunState(ctx context.Context, runID int64) (RunState, error) {
	var out RunState
	err := r.c.do(ctx, fmt.Sprintf("get run %d of %s", runID, r.FullName()), idempotent, func(ctx context.Context) (*github.Response, error) {
		run, resp, err := r.gh.Actions.GetWorkflowRunByID(ctx, r.owner, r.name, runID)
		if err != nil {
			return resp, err
		}
		out = RunState{Status: run.GetStatus(), Conclusion: run.GetConclusion(), Attempt: run.GetRunAttempt()}
		return resp, nil
	})
	return out, err
}

// ClosePull closes a pull request without merging it (repeatable).
func (r *Repo) ClosePull(ctx context.Context, number int) (PullRequest, error) {
	var out PullRequest
	err := r.c.do(ctx, fmt.Sprintf("close pull request #%d of %s", number, r.FullName()), idempotent, func(ctx context.Context) (*github.Response, error) {
		pr, resp, err := r.gh.PullRequests.Edit(ctx, r.owner, r.name, number, &github.PullRequest{State: github.String("closed")})
		if err != nil {
			return resp, err
		}
		out = pullRequest(pr)
		return resp, nil
	})
	return out, err
}

// AddLabels adds labels to an issue or pull request; labels it has already
// stay (repeatable).
func (r *Repo) AddLabels(ctx context.Context, number int, labels []string) error {
	if len(labels) == 0 {
		return nil
	}
	op := fmt.Sprintf("label #%d of %s", number, r.FullName())
	return r.c.do(ctx, op, idempotent, func(ctx context.Context) (*github.Response, error) {
		_, resp, err := r.gh.Issues.AddLabelsToIssue(ctx, r.owner, r.name, number, labels)
		return resp, err
	})
}

// GetFile returns a file's content at ref (a branch, tag or commit). A
// missing file gives ErrNotFound; one larger than limit bytes an error.
func (r *Repo) GetFile(ctx context.Context, path, ref string, limit int64) ([]byte, error) {
	u := fmt.Sprintf("repos/%s/%s/contents/%s", url.PathEscape(r.owner), url.PathEscape(r.name), escapePath(path))
	if ref != "" {
		u += "?ref=" + url.QueryEscape(ref)
	}
	var data []byte
	op := fmt.Sprintf("read %s at %s of %s", path, short(ref), r.FullName())
	err := r.c.do(ctx, op, idempotent, func(ctx context.Context) (*github.Response, error) {
		req, err := r.gh.NewRequest(http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "application/vnd.github.raw")
		buf := &limitedBuffer{limit: limit}
		resp, err := r.gh.Do(ctx, req, buf)
		if err != nil {
			return resp, err
		}
		data = buf.data
		return resp, nil
	})
	return data, err
}

// ErrFileTooLarge: a file is larger than the bound its reader set.
var ErrFileTooLarge = errors.New("file larger than the read limit")

// limitedBuffer keeps at most limit bytes and fails the copy beyond them,
// so that a huge file is not read to its end.
type limitedBuffer struct {
	data  []byte
	limit int64
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if int64(len(b.data))+int64(len(p)) > b.limit {
		return 0, ErrFileTooLarge
	}
	b.data = append(b.data, p...)
	return len(p), nil
}

// escapePath escapes each segment of a slash-separated path.
func escapePath(p string) string {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	for i, part := range parts {
		parts[i] = url.PathEscape(part)
	}
	return strings.Join(parts, "/")
}

package ghclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/google/go-github/v66/github"
)

// RawPage is one page of a listing with its items exactly as GitHub sent
// them, for tools that keep GitHub's documents (polylane capture).
type RawPage struct {
	Items      []json.RawMessage
	TotalCount int
	// NextPage is the following page, 0 on the last.
	NextPage int
}

// GetJSON reads one REST document, relative to the API root (such as
// "repos/o/r/actions/workflows/ci.yml"), exactly as GitHub sent it.
func (r *Repo) GetJSON(ctx context.Context, path string) (json.RawMessage, error) {
	var out json.RawMessage
	err := r.c.do(ctx, "get "+path, idempotent, func(ctx context.Context) (*github.Response, error) {
		req, err := r.gh.NewRequest(http.MethodGet, path, nil)
		if err != nil {
			return nil, err
		}
		return r.gh.Do(ctx, req, &out)
	})
	return out, err
}

// RepoPath is the API path of the repository itself, "repos/{owner}/{name}",
// with each part escaped.
func (r *Repo) RepoPath() string {
	return "repos/" + url.PathEscape(r.owner) + "/" + url.PathEscape(r.name)
}

// ListRunsRaw lists one page of a workflow's runs (every branch and event),
// newest first. workflow is the workflow's id or its file name.
func (r *Repo) ListRunsRaw(ctx context.Context, workflow string, page, perPage int) (RawPage, error) {
	q := url.Values{}
	q.Set("per_page", strconv.Itoa(min(max(perPage, 1), 100)))
	q.Set("page", strconv.Itoa(max(page, 1)))
	path := fmt.Sprintf("%s/actions/workflows/%s/runs?%s", r.RepoPath(), url.PathEscape(workflow), q.Encode())
	return r.listRaw(ctx, path, "workflow_runs")
}

// ListJobsRaw lists one page of the jobs of a run's latest attempt.
func (r *Repo) ListJobsRaw(ctx context.Context, runID int64, page int) (RawPage, error) {
	path := fmt.Sprintf("%s/actions/runs/%d/jobs?per_page=100&page=%d", r.RepoPath(), runID, max(page, 1))
	return r.listRaw(ctx, path, "jobs")
}

// listRaw reads one page of a {"total_count", "<field>": [...]} listing.
func (r *Repo) listRaw(ctx context.Context, path, field string) (RawPage, error) {
	var out RawPage
	err := r.c.do(ctx, "list "+path, idempotent, func(ctx context.Context) (*github.Response, error) {
		req, err := r.gh.NewRequest(http.MethodGet, path, nil)
		if err != nil {
			return nil, err
		}
		var body map[string]json.RawMessage
		resp, err := r.gh.Do(ctx, req, &body)
		if err != nil {
			return resp, err
		}
		out = RawPage{NextPage: resp.NextPage}
		if err := json.Unmarshal(body[field], &out.Items); err != nil {
			return resp, fmt.Errorf("list %s: field %s: %w", path, field, err)
		}
		if tc, ok := body["total_count"]; ok {
			_ = json.Unmarshal(tc, &out.TotalCount)
		}
		return resp, nil
	})
	return out, err
}

// InstallationOf returns the id of the app's installation that has a
// repository ("owner/name"), asking as the app.
func (c *Client) InstallationOf(ctx context.Context, fullName string) (int64, error) {
	if c.byToken != nil {
		return 0, fmt.Errorf("find the installation of %s: a client with a token has no app", fullName)
	}
	owner, name, ok := strings.Cut(fullName, "/")
	if !ok || owner == "" || name == "" {
		return 0, fmt.Errorf("find the installation of %q: not owner/name", fullName)
	}
	var id int64
	err := c.do(ctx, "find the installation of "+fullName, idempotent, func(ctx context.Context) (*github.Response, error) {
		in, resp, err := c.app.Apps.FindRepositoryInstallation(ctx, owner, name)
		if err != nil {
			return resp, err
		}
		id = in.GetID()
		return resp, nil
	})
	return id, err
}

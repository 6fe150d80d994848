package ghclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/polylane/polylane/analysis/gha"

	"github.com/google/go-github/v66/github"
)

// RunsQuery selects one page of a workflow's runs.
type RunsQuery struct {
	WorkflowID int64
	Branch     string // optional
	Status     string // optional: "completed", a conclusion, …
	PerPage    int    // 1 to 100 (0: 100)
	Page       int    // 1-based (0: 1)
	// ETag is the validator of the same page from an earlier listing; when
	// GitHub answers 304 the page is NotModified and costs no rate limit.
	ETag string
}

// RunsPage is one page of runs, newest first.
type RunsPage struct {
	Runs       []gha.Run
	TotalCount int
	// NextPage is the following page, 0 on the last.
	NextPage int
	// ETag validates this page for a later conditional listing.
	ETag string
	// NotModified is set when the page is unchanged since ETag; Runs is
	// then empty.
	NotModified bool
}

// ListRuns lists one page of a workflow's runs, conditionally when q.ETag
// is set. Run objects decode into gha.Run, whose JSON names are
// GitHub's.
func (r *Repo) ListRuns(ctx context.Context, q RunsQuery) (RunsPage, error) {
	v := url.Values{}
	v.Set("per_page", strconv.Itoa(min(max(q.PerPage, 1), 100)))
	if q.PerPage == 0 {
		v.Set("per_page", "100")
	}
	if q.Page > 1 {
		v.Set("page", strconv.Itoa(q.Page))
	}
	if q.Branch != "" {
		v.Set("branch", q.Branch)
	}
	if q.Status != "" {
		v.Set("status", q.Status)
	}
	path := fmt.Sprintf("repos/%s/%s/actions/workflows/%d/runs?%s", url.PathEscape(r.owner), url.PathEscape(r.name), q.WorkflowID, v.Encode())
	var page RunsPage
	op := fmt.Sprintf("list runs of workflow %d of %s", q.WorkflowID, r.FullName())
	err := r.c.do(ctx, op, idempotent, func(ctx context.Context) (*github.Response, error) {
		req, err := r.gh.NewRequest(http.MethodGet, path, nil)
		if err != nil {
			return nil, err
		}
		if q.ETag != "" {
			req.Header.Set("If-None-Match", q.ETag)
		}
		var body struct {
			TotalCount int       `json:"total_count"`
			Runs       []gha.Run `json:"workflow_runs"`
		}
		resp, err := r.gh.Do(ctx, req, &body)
		var er *github.ErrorResponse
		if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotModified {
			page = RunsPage{NotModified: true, ETag: q.ETag}
			return resp, nil
		}
		if err != nil {
			return resp, err
		}
		page = RunsPage{Runs: body.Runs, TotalCount: body.TotalCount, NextPage: resp.NextPage, ETag: resp.Header.Get("ETag")}
		return resp, nil
	})
	return page, err
}

// ListJobs lists the jobs of one attempt of a run, every page.
func (r *Repo) ListJobs(ctx context.Context, runID int64, attempt int) ([]gha.Job, error) {
	var jobs []gha.Job
	op := fmt.Sprintf("list jobs of run %d attempt %d of %s", runID, attempt, r.FullName())
	for page := 1; page > 0 && page <= 50; {
		path := fmt.Sprintf("repos/%s/%s/actions/runs/%d/attempts/%d/jobs?per_page=100&page=%d",
			url.PathEscape(r.owner), url.PathEscape(r.name), runID, max(attempt, 1), page)
		next := 0
		err := r.c.do(ctx, op, idempotent, func(ctx context.Context) (*github.Response, error) {
			req, err := r.gh.NewRequest(http.MethodGet, path, nil)
			if err != nil {
				return nil, err
			}
			var body struct {
				Jobs []gha.Job `json:"jobs"`
			}
			resp, err := r.gh.Do(ctx, req, &body)
			if err != nil {
				return resp, err
			}
			jobs = append(jobs, body.Jobs...)
			next = resp.NextPage
			return resp, nil
		})
		if err != nil {
			return nil, err
		}
		page = next
	}
	return jobs, nil
}

// DownloadLog writes a job's raw log to w: it asks GitHub for the log's
// address (a 302 to blob storage) and downloads it with a plain client that
// sends no credentials, as blob storage requires. A log that is gone gives
// ErrLogsExpired; one above the client's LogLimit gives ErrLogTooLarge. It
// returns the number of bytes written; w must be able to start over (the
// download is retried from a fresh address when it fails midway), so it
// receives a Reset call through the optional interface{ Reset() error }.
func (r *Repo) DownloadLog(ctx context.Context, jobID int64, w io.Writer) (int64, error) {
	op := fmt.Sprintf("download log of job %d of %s", jobID, r.FullName())
	var n int64
	err := r.c.do(ctx, op, idempotent, func(ctx context.Context) (*github.Response, error) {
		loc, resp, err := r.gh.Actions.GetWorkflowJobLogs(ctx, r.owner, r.name, jobID, 2)
		if err != nil {
			return resp, logAddressError(resp, err)
		}
		if rs, ok := w.(interface{ Reset() error }); ok && n > 0 {
			if err := rs.Reset(); err != nil {
				return nil, err
			}
		}
		n, err = r.fetchBlob(ctx, loc.String(), w)
		return nil, err
	})
	if err != nil {
		return n, err
	}
	return n, nil
}

// logAddressError turns the log helper's plain error (go-github v66 returns
// fmt errors for statuses other than 302) into one the retry policy and the
// typed errors understand.
func logAddressError(resp *github.Response, err error) error {
	if resp == nil || resp.Response == nil {
		return err
	}
	switch resp.StatusCode {
	case http.StatusNotFound, http.StatusGone:
		return fmt.Errorf("logs endpoint answered %d: %w", resp.StatusCode, ErrLogsExpired)
	}
	return &github.ErrorResponse{Response: resp.Response, Message: err.Error()}
}

// fetchBlob downloads a log from blob storage without credentials.
func (r *Repo) fetchBlob(ctx context.Context, loc string, w io.Writer) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc, nil)
	if err != nil {
		return 0, fmt.Errorf("log address: %w", err)
	}
	resp, err := r.c.plain.Do(req)
	if err != nil {
		return 0, redactURL(err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		return 0, fmt.Errorf("log download answered %d: %w", resp.StatusCode, ErrLogsExpired)
	case resp.StatusCode != http.StatusOK:
		// An expired address (403) or a storage failure: ask for a new one.
		return 0, &github.ErrorResponse{Response: &http.Response{StatusCode: max(resp.StatusCode, 500), Header: resp.Header},
			Message: "log download answered " + resp.Status}
	}
	limit := r.c.cfg.LogLimit
	n, err := io.Copy(w, io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return n, redactURL(err)
	}
	if n > limit {
		return n, fmt.Errorf("log of %d bytes and more: %w", limit, ErrLogTooLarge)
	}
	return n, nil
}

// redactURL drops the query of the URL an error names: a log address is
// signed, and its signature is a credential while it lasts.
func redactURL(err error) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err
	}
	u, perr := url.Parse(ue.URL)
	if perr != nil {
		return &url.Error{Op: ue.Op, URL: "(log address)", Err: ue.Err}
	}
	u.RawQuery, u.Fragment = "", ""
	return &url.Error{Op: ue.Op, URL: u.String(), Err: ue.Err}
}

package githubtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v66/github"
)

func TestListRunsFilters(t *testing.T) {
	s := startTiny(t, Options{})
	c := installClient(t, s)
	tests := []struct {
		name string
		wf   string // "" lists the repository's runs
		opts github.ListWorkflowRunsOptions
		want []int64
	}{
		{"repository runs newest first", "", github.ListWorkflowRunsOptions{}, []int64{9007, 9005, 9006, 9004, 9003, 9002, 9001}},
		{"workflow by file name", "ci.yml", github.ListWorkflowRunsOptions{}, []int64{9007, 9005, 9006, 9003, 9002, 9001}},
		{"other workflow", "release.yml", github.ListWorkflowRunsOptions{}, []int64{9004}},
		{"branch", "ci.yml", github.ListWorkflowRunsOptions{Branch: "feat/retry"}, []int64{9003}},
		{"event", "", github.ListWorkflowRunsOptions{Event: "workflow_dispatch"}, []int64{9006}},
		{"status as conclusion", "ci.yml", github.ListWorkflowRunsOptions{Status: "failure"}, []int64{9005, 9003, 9002}},
		{"status as status", "", github.ListWorkflowRunsOptions{Status: "in_progress"}, []int64{9007}},
		{"created range", "", github.ListWorkflowRunsOptions{Created: "2026-03-02..2026-03-03"}, []int64{9003, 9002}},
		{"created before", "", github.ListWorkflowRunsOptions{Created: "<2026-03-02"}, []int64{9001}},
		{"created on or after", "", github.ListWorkflowRunsOptions{Created: ">=2026-03-05T10:00:00Z"}, []int64{9007, 9005}},
		{"head sha", "", github.ListWorkflowRunsOptions{HeadSHA: "0000000000000000000000000000000000abe32d"}, []int64{9005}},
		{"branch and status", "ci.yml", github.ListWorkflowRunsOptions{Branch: "main", Status: "completed"}, []int64{9005, 9006, 9002, 9001}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var runs *github.WorkflowRuns
			var err error
			if tc.wf == "" {
				runs, _, err = c.Actions.ListRepositoryWorkflowRuns(ctx(t), tinyOwner, tinyName, &tc.opts)
			} else {
				runs, _, err = c.Actions.ListWorkflowRunsByFileName(ctx(t), tinyOwner, tinyName, tc.wf, &tc.opts)
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, r := range runs.WorkflowRuns {
				got = append(got, r.GetID())
			}
			if !equalIDs(got, tc.want) || runs.GetTotalCount() != len(tc.want) {
				t.Errorf("runs = %v (total %d), want %v", got, runs.GetTotalCount(), tc.want)
			}
		})
	}
}

func equalIDs(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestListRunsPaginationAndLink(t *testing.T) {
	s := startTiny(t, Options{})
	c := installClient(t, s)
	opts := &github.ListWorkflowRunsOptions{ListOptions: github.ListOptions{PerPage: 3}}
	var got []int64
	pages := 0
	for {
		runs, resp, err := c.Actions.ListWorkflowRunsByID(ctx(t), tinyOwner, tinyName, 500, opts)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if runs.GetTotalCount() != 6 {
			t.Errorf("total_count = %d, want 6", runs.GetTotalCount())
		}
		if pages == 1 && (resp.NextPage != 2 || resp.LastPage != 2) {
			t.Errorf("first page: NextPage=%d LastPage=%d, want 2 and 2", resp.NextPage, resp.LastPage)
		}
		if pages == 1 && !strings.Contains(resp.Header.Get("Link"), "/api/v3/repos/acme/widget/actions/workflows/500/runs?") {
			t.Errorf("Link %q does not keep the /api/v3 prefix and path", resp.Header.Get("Link"))
		}
		for _, r := range runs.WorkflowRuns {
			got = append(got, r.GetID())
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if want := []int64{9007, 9005, 9006, 9003, 9002, 9001}; pages != 2 || !equalIDs(got, want) {
		t.Errorf("pages=%d runs=%v, want 2 pages of %v", pages, got, want)
	}
}

func TestRunObjectsServedVerbatim(t *testing.T) {
	s := startTiny(t, Options{})
	tok, err := s.InstallationToken(tinyInst)
	if err != nil {
		t.Fatal(err)
	}
	resp := plainGet(t, s.APIURL()+"repos/acme/widget/actions/runs/9005", http.Header{"Authorization": {"token " + tok}})
	got, _ := io.ReadAll(resp.Body)
	var file struct {
		Runs []json.RawMessage `json:"workflow_runs"`
	}
	data, _ := os.ReadFile(filepath.Join("testdata", "tiny", "runs.json"))
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	for _, raw := range file.Runs {
		if bytes.Contains(raw, []byte(`"id": 9005,`)) {
			if !bytes.Equal(got, raw) {
				t.Errorf("run 9005 is not served byte for byte:\n got %.200s\nwant %.200s", got, raw)
			}
			return
		}
	}
	t.Fatal("run 9005 not found in runs.json")
}

func TestExcludePullRequestsAndETag(t *testing.T) {
	s := startTiny(t, Options{})
	c := installClient(t, s)
	runs, resp, err := c.Actions.ListWorkflowRunsByID(ctx(t), tinyOwner, tinyName, 500,
		&github.ListWorkflowRunsOptions{Branch: "feat/retry", ExcludePullRequests: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(runs.WorkflowRuns[0].PullRequests); n != 0 {
		t.Errorf("exclude_pull_requests kept %d pull requests", n)
	}
	etag := resp.Header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag on a list response")
	}
	before := resp.Rate.Remaining
	req, _ := c.NewRequest(http.MethodGet, "repos/acme/widget/actions/workflows/500/runs?branch=feat%2Fretry&exclude_pull_requests=true", nil)
	req.Header.Set("If-None-Match", etag)
	resp2, err := c.Do(ctx(t), req, nil)
	if statusOf(err) != http.StatusNotModified {
		t.Fatalf("conditional request: err=%v, want *ErrorResponse with 304", err)
	}
	if resp2.Rate.Remaining != before {
		t.Errorf("304 counted against the rate limit: remaining %d -> %d", before, resp2.Rate.Remaining)
	}
	req.Header.Set("If-None-Match", `W/"other"`)
	if _, err := c.Do(ctx(t), req, &github.WorkflowRuns{}); err != nil {
		t.Errorf("a stale ETag must get 200, got %v", err)
	}
}

func TestJobsAndAttempts(t *testing.T) {
	s := startTiny(t, Options{})
	c := installClient(t, s)
	jobs, _, err := c.Actions.ListWorkflowJobs(ctx(t), tinyOwner, tinyName, tinyTrigger, &github.ListWorkflowJobsOptions{Filter: "latest"})
	if err != nil || jobs.GetTotalCount() != 3 || jobs.Jobs[0].GetID() != tinyFailJob || len(jobs.Jobs[0].Steps) != 4 {
		t.Fatalf("jobs of the trigger: %v, %+v", err, jobs)
	}
	jobs, resp, err := c.Actions.ListWorkflowJobs(ctx(t), tinyOwner, tinyName, tinyTrigger, &github.ListWorkflowJobsOptions{ListOptions: github.ListOptions{PerPage: 2}})
	if err != nil || len(jobs.Jobs) != 2 || resp.NextPage != 2 {
		t.Errorf("paged jobs: %v, %d jobs, next %d", err, len(jobs.Jobs), resp.NextPage)
	}
	job, _, err := c.Actions.GetWorkflowJobByID(ctx(t), tinyOwner, tinyName, tinyFailJob)
	if err != nil || job.GetConclusion() != "failure" || job.GetRunID() != tinyTrigger {
		t.Errorf("job: %v %+v", err, job)
	}
	attempt, err := s.AddRunAttempt(tinyRepo, tinyTrigger, "success")
	if err != nil || attempt != 2 {
		t.Fatalf("AddRunAttempt = %d, %v", attempt, err)
	}
	run, _, err := c.Actions.GetWorkflowRunByID(ctx(t), tinyOwner, tinyName, tinyTrigger)
	if err != nil || run.GetRunAttempt() != 2 || run.GetConclusion() != "success" || run.PreviousAttemptURL == nil {
		t.Errorf("run after a new attempt: %v %+v", err, run)
	}
	first, _, err := c.Actions.GetWorkflowRunAttempt(ctx(t), tinyOwner, tinyName, tinyTrigger, 1, nil)
	if err != nil || first.GetConclusion() != "failure" {
		t.Errorf("attempt 1: %v conclusion %q", err, first.GetConclusion())
	}
	counts := map[string]int{}
	for _, filter := range []string{"latest", "all"} {
		jobs, _, err := c.Actions.ListWorkflowJobs(ctx(t), tinyOwner, tinyName, tinyTrigger, &github.ListWorkflowJobsOptions{Filter: filter})
		if err != nil {
			t.Fatal(err)
		}
		counts[filter] = jobs.GetTotalCount()
	}
	a1, _, err := c.Actions.ListWorkflowJobsAttempt(ctx(t), tinyOwner, tinyName, tinyTrigger, 1, nil)
	if err != nil || counts["latest"] != 3 || counts["all"] != 6 || a1.GetTotalCount() != 3 || a1.Jobs[0].GetID() != tinyFailJob {
		t.Errorf("jobs by attempt: latest=%d all=%d attempt1=%v (%v)", counts["latest"], counts["all"], a1, err)
	}
	if _, _, err := c.Actions.GetWorkflowRunAttempt(ctx(t), tinyOwner, tinyName, tinyTrigger, 7, nil); statusOf(err) != 404 {
		t.Errorf("unknown attempt: %v, want 404", err)
	}
}

func TestJobLogRedirectAndBlob(t *testing.T) {
	now := time.Date(2026, 3, 6, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	s := startTiny(t, Options{Now: clock})
	c := installClient(t, s)
	loc, resp, err := c.Actions.GetWorkflowJobLogs(ctx(t), tinyOwner, tinyName, tinyFailJob, 2)
	if err != nil || resp.StatusCode != http.StatusFound {
		t.Fatalf("job logs: %v", err)
	}
	want, _ := os.ReadFile(filepath.Join("testdata", "tiny", "logs", "19005.txt"))
	got := plainGet(t, loc.String(), nil)
	body, _ := io.ReadAll(got.Body)
	if got.StatusCode != 200 || !bytes.Equal(body, want) || !bytes.HasPrefix(body, []byte("\ufeff")) {
		t.Errorf("blob: status %d, %d bytes (want %d, BOM kept)", got.StatusCode, len(body), len(want))
	}
	// The installation transport adds Authorization to every request, which
	// the blob store rejects, as Azure does behind GitHub's log URLs.
	authed, err := c.Client().Get(loc.String())
	if err != nil {
		t.Fatal(err)
	}
	xml, _ := io.ReadAll(authed.Body)
	_ = authed.Body.Close()
	if authed.StatusCode != http.StatusForbidden || !bytes.Contains(xml, []byte("<Code>AuthenticationFailed</Code>")) {
		t.Errorf("blob with Authorization: %d %s", authed.StatusCode, xml)
	}
	now = now.Add(2 * time.Minute)
	if expired := plainGet(t, loc.String(), nil); expired.StatusCode != http.StatusForbidden {
		t.Errorf("expired blob URL answered %d, want 403", expired.StatusCode)
	}
	for _, tc := range []struct {
		job  int64
		want int
	}{{29005, 404}, {424242, 404}} {
		if _, resp, err := c.Actions.GetWorkflowJobLogs(ctx(t), tinyOwner, tinyName, tc.job, 2); err == nil || resp == nil || resp.StatusCode != tc.want {
			t.Errorf("logs of job %d: %v, want status %d", tc.job, err, tc.want)
		}
	}
	if err := s.ExpireJobLogs(tinyRepo, tinyFailJob); err != nil {
		t.Fatal(err)
	}
	if _, resp, err := c.Actions.GetWorkflowJobLogs(ctx(t), tinyOwner, tinyName, tinyFailJob, 2); err == nil || resp.StatusCode != http.StatusGone {
		t.Errorf("expired logs: %v, want 410", err)
	}
}

func TestRerunRecordsWrite(t *testing.T) {
	for _, create := range []bool{false, true} {
		s := startTiny(t, Options{RerunCreatesAttempt: create})
		c := installClient(t, s)
		if _, err := c.Actions.RerunFailedJobsByID(ctx(t), tinyOwner, tinyName, tinyTrigger); err != nil {
			t.Fatal(err)
		}
		writes := s.Writes()
		if len(writes) != 1 || writes[0].Path != "/repos/acme/widget/actions/runs/9005/rerun-failed-jobs" || writes[0].Status != 201 {
			t.Errorf("writes = %+v", writes)
		}
		run, _, err := c.Actions.GetWorkflowRunByID(ctx(t), tinyOwner, tinyName, tinyTrigger)
		if err != nil {
			t.Fatal(err)
		}
		wantAttempt, wantStatus := 1, "completed"
		if create {
			wantAttempt, wantStatus = 2, "queued"
		}
		if run.GetRunAttempt() != wantAttempt || run.GetStatus() != wantStatus {
			t.Errorf("RerunCreatesAttempt=%v: attempt %d status %s", create, run.GetRunAttempt(), run.GetStatus())
		}
	}
}

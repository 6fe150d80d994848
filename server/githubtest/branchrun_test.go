package githubtest

import (
	"io"
	"strings"
	"testing"

	"github.com/google/go-github/v66/github"
)

// TestRunOnBranch: a run on a branch is served like any run, at the
// branch's head, with the jobs of the run it copies: all green for a
// success; for a failure with a log of its own, the failed job renamed and
// serving that log. Its workflow_run delivery can be built.
func TestRunOnBranch(t *testing.T) {
	s := startTiny(t, Options{})
	c := installClient(t, s)
	head := s.Refs(tinyRepo)["refs/heads/main"]
	green, err := s.RunOnBranch(tinyRepo, BranchRun{Branch: "main", Like: tinyTrigger, Conclusion: "success"})
	if err != nil {
		t.Fatal(err)
	}
	run, _, err := c.Actions.GetWorkflowRunByID(ctx(t), tinyOwner, tinyName, green)
	if err != nil || run.GetHeadBranch() != "main" || run.GetHeadSHA() != head || run.GetConclusion() != "success" ||
		run.GetStatus() != "completed" || run.GetRunAttempt() != 1 || run.GetEvent() != "pull_request" {
		t.Fatalf("run on the branch: %v %+v", err, run)
	}
	jobs, _, err := c.Actions.ListWorkflowJobs(ctx(t), tinyOwner, tinyName, green, nil)
	if err != nil || jobs.GetTotalCount() == 0 {
		t.Fatalf("jobs of the run: %v %+v", err, jobs)
	}
	for _, j := range jobs.Jobs {
		if j.GetConclusion() != "success" || j.GetRunID() != green {
			t.Errorf("job %s of a green run: %s, run %d", j.GetName(), j.GetConclusion(), j.GetRunID())
		}
	}
	if _, err := s.WorkflowRunEvent(tinyRepo, green); err != nil {
		t.Fatalf("delivery of the run: %v", err)
	}

	red, err := s.RunOnBranch(tinyRepo, BranchRun{Branch: "main", Like: tinyTrigger, Conclusion: "failure", FailedJob: "lint", Log: "lint says no\n"})
	if err != nil {
		t.Fatal(err)
	}
	jobs, _, err = c.Actions.ListWorkflowJobs(ctx(t), tinyOwner, tinyName, red, nil)
	if err != nil {
		t.Fatal(err)
	}
	var failed *github.WorkflowJob
	for _, j := range jobs.Jobs {
		if j.GetConclusion() == "failure" {
			failed = j
		}
	}
	if failed == nil || failed.GetName() != "lint" {
		t.Fatalf("failed job of the red run: %+v", failed)
	}
	loc, _, err := c.Actions.GetWorkflowJobLogs(ctx(t), tinyOwner, tinyName, failed.GetID(), 2)
	if err != nil {
		t.Fatal(err)
	}
	resp := plainGet(t, loc.String(), nil)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "lint says no\n" {
		t.Fatalf("log of the failed job: %q", body)
	}

	if _, err := c.Actions.RerunJobByID(ctx(t), tinyOwner, tinyName, failed.GetID()); err != nil {
		t.Errorf("re-run of a completed run's job: %v", err)
	}
	if _, err := c.Actions.RerunJobByID(ctx(t), tinyOwner, tinyName, 1); statusOf(err) != 404 {
		t.Errorf("re-run of an unknown job: %v, want 404", err)
	}
	if _, err := s.RunOnBranch(tinyRepo, BranchRun{Branch: "nope", Like: tinyTrigger, Conclusion: "success"}); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("a run on a missing branch: %v", err)
	}
	if _, err := s.RunOnBranch(tinyRepo, BranchRun{Branch: "main", Like: 1, Conclusion: "success"}); err == nil {
		t.Error("a run like an unknown run was made")
	}
}

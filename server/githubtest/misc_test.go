package githubtest

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v66/github"
)

func TestWorkflowsIssuesAndCommits(t *testing.T) {
	s := startTiny(t, Options{})
	c := installClient(t, s)
	wfs, _, err := c.Actions.ListWorkflows(ctx(t), tinyOwner, tinyName, nil)
	if err != nil || wfs.GetTotalCount() != 2 || wfs.Workflows[0].GetID() != 500 || wfs.Workflows[1].GetPath() != ".github/workflows/release.yml" {
		t.Errorf("workflows: %v %+v", err, wfs)
	}
	wf, _, err := c.Actions.GetWorkflowByFileName(ctx(t), tinyOwner, tinyName, "ci.yml")
	if err != nil || wf.GetID() != 500 || wf.GetName() != "CI" {
		t.Errorf("workflow by file name: %v %+v", err, wf)
	}
	if _, _, err := c.Actions.GetWorkflowByID(ctx(t), tinyOwner, tinyName, 1); statusOf(err) != 404 {
		t.Errorf("unknown workflow: %v", err)
	}
	if _, _, err := c.Actions.ListWorkflowRunsByFileName(ctx(t), tinyOwner, tinyName, "nope.yml", nil); statusOf(err) != 404 {
		t.Errorf("runs of an unknown workflow: %v", err)
	}
	n, err := s.AddIssue(tinyRepo, "flaky e2e", "dana")
	if err != nil || n != tinyPR+1 {
		t.Fatalf("AddIssue = %d, %v", n, err)
	}
	is, _, err := c.Issues.Get(ctx(t), tinyOwner, tinyName, n)
	if err != nil || is.IsPullRequest() || is.GetTitle() != "flaky e2e" || is.GetUser().GetLogin() != "dana" {
		t.Errorf("issue: %v %+v", err, is)
	}
	pr, _, err := c.Issues.Get(ctx(t), tinyOwner, tinyName, tinyPR)
	if err != nil || !pr.IsPullRequest() {
		t.Errorf("pull request as an issue: %v", err)
	}
	if _, _, err := c.Issues.Get(ctx(t), tinyOwner, tinyName, 404); statusOf(err) != 404 {
		t.Errorf("missing issue: %v", err)
	}
	commit, _, err := c.Repositories.GetCommit(ctx(t), tinyOwner, tinyName, "main", nil)
	if err != nil || commit.GetSHA() != tinyHead || !strings.HasPrefix(commit.GetCommit().GetMessage(), "change 105") {
		t.Errorf("commit of main: %v %+v", err, commit)
	}
	if _, _, err := c.Repositories.GetCommit(ctx(t), tinyOwner, tinyName, "nope", nil); statusOf(err) != 422 {
		t.Errorf("unknown commit: %v", err)
	}
	if _, _, err := c.Repositories.CreateComment(ctx(t), tinyOwner, tinyName, tinyHead, &github.RepositoryComment{Body: github.String("x")}); err != nil {
		t.Fatal(err)
	}
	list, _, err := c.Repositories.ListCommitComments(ctx(t), tinyOwner, tinyName, tinyHead, nil)
	if err != nil || len(list) != 1 {
		t.Errorf("commit comments: %v %d", err, len(list))
	}
}

func TestGetInstallationAndRecordingReset(t *testing.T) {
	s := startTiny(t, Options{})
	app, err := s.NewAppClient()
	if err != nil {
		t.Fatal(err)
	}
	inst, _, err := app.Apps.GetInstallation(ctx(t), tinyInst)
	if err != nil || inst.GetAppSlug() != s.AppSlug() || inst.GetAccount().GetType() != "Organization" {
		t.Errorf("installation: %v %+v", err, inst)
	}
	if _, _, err := app.Apps.GetInstallation(ctx(t), 1); statusOf(err) != 404 {
		t.Errorf("unknown installation: %v", err)
	}
	if len(s.Calls()) != 2 {
		t.Errorf("calls = %d", len(s.Calls()))
	}
	s.ResetRecording()
	if _, _, err := app.Apps.Get(ctx(t), ""); err != nil {
		t.Fatal(err)
	}
	if calls := s.APICalls(); len(calls) != 1 || calls[0].Index != 1 || calls[0].APIIndex != 1 || calls[0].Path != "/app" {
		t.Errorf("calls after reset = %+v", calls)
	}
}

func TestCommitAuthorAndJSONTokenExchange(t *testing.T) {
	s := startTiny(t, Options{})
	c := installClient(t, s)
	base, _, _ := c.Git.GetCommit(ctx(t), tinyOwner, tinyName, tinyHead)
	cm, _, err := c.Git.CreateCommit(ctx(t), tinyOwner, tinyName, &github.Commit{Message: github.String("m"), Tree: base.Tree,
		Author: &github.CommitAuthor{Name: github.String("Ann")}}, nil)
	if err != nil || cm.GetAuthor().GetName() != "Ann" || !strings.HasSuffix(cm.GetAuthor().GetEmail(), "+polylane[bot]@users.noreply.github.com") ||
		cm.GetCommitter().GetName() != "Ann" {
		t.Errorf("commit author: %v %+v", err, cm.GetAuthor())
	}
	// OAuth token exchange with a JSON body, answered form-encoded when the
	// client does not ask for JSON.
	req, _ := http.NewRequest(http.MethodPost, s.URL()+"/login/oauth/access_token",
		strings.NewReader(`{"client_id":"`+s.ClientID()+`","client_secret":"`+s.ClientSecret()+`","code":"bad"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := new(strings.Builder)
	_, _ = io.Copy(buf, resp.Body)
	if !strings.Contains(buf.String(), "error=bad_verification_code") {
		t.Errorf("form-encoded error = %q", buf.String())
	}
}

func TestTreeAtRunHeads(t *testing.T) {
	prHead := "0000000000000000000000000000000000abe32b" // head of run 9003 (PR #12)
	for _, on := range []bool{false, true} {
		s := startTiny(t, Options{TreeAtRunHeads: on})
		_, err := s.FileAt(tinyRepo, prHead, "Taskfile.yaml")
		if (err == nil) != on {
			t.Errorf("TreeAtRunHeads=%v: Taskfile at the PR head: %v", on, err)
		}
		if _, ok := s.Refs(tinyRepo)["refs/heads/feat/retry"]; ok != on {
			t.Errorf("TreeAtRunHeads=%v: PR branch ref present = %v", on, ok)
		}
		if !on {
			if err := s.AddCommitAlias(tinyRepo, prHead, "main"); err != nil {
				t.Fatal(err)
			}
			c := installClient(t, s)
			commit, _, err := c.Git.GetCommit(ctx(t), tinyOwner, tinyName, prHead)
			if err != nil || !strings.HasPrefix(commit.GetMessage(), "change 103") {
				t.Errorf("aliased commit: %v %+v", err, commit)
			}
		}
	}
}

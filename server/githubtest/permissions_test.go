package githubtest

import (
	"errors"
	"maps"
	"net/http"
	"testing"

	"github.com/google/go-github/v66/github"
)

// manifestPerms are the permissions `polylane setup` asks for without
// --workflows.
var manifestPerms = map[string]string{
	"actions": "write", "contents": "write", "issues": "write", "metadata": "read", "pull_requests": "write",
}

// refusal checks a go-github error is GitHub's 403 for a missing
// permission, naming accepted in X-Accepted-GitHub-Permissions.
func refusal(t *testing.T, what string, err error, accepted string) {
	t.Helper()
	var er *github.ErrorResponse
	if statusOf(err) != http.StatusForbidden || !errors.As(err, &er) || er.Message != errNoIntegrationAccess {
		t.Errorf("%s: %v, want 403 %q", what, err, errNoIntegrationAccess)
		return
	}
	if got := er.Response.Header.Get("X-Accepted-GitHub-Permissions"); got != accepted {
		t.Errorf("%s: X-Accepted-GitHub-Permissions %q, want %q", what, got, accepted)
	}
}

// commitChanging makes a commit on the trigger head that sets one file.
func commitChanging(t *testing.T, c *github.Client, path, content string) string {
	t.Helper()
	base, _, err := c.Git.GetCommit(ctx(t), tinyOwner, tinyName, tinyHead)
	if err != nil {
		t.Fatal(err)
	}
	tree, _, err := c.Git.CreateTree(ctx(t), tinyOwner, tinyName, base.GetTree().GetSHA(), []*github.TreeEntry{
		{Path: github.String(path), Mode: github.String(modeFile), Type: github.String("blob"), Content: github.String(content)}})
	if err != nil {
		t.Fatal(err)
	}
	commit, _, err := c.Git.CreateCommit(ctx(t), tinyOwner, tinyName, &github.Commit{Message: github.String("change " + path),
		Tree: &github.Tree{SHA: tree.SHA}, Parents: []*github.Commit{{SHA: github.String(tinyHead)}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return commit.GetSHA()
}

// TestWorkflowWriteNeedsWorkflowsPermission: without workflows: write a
// ref may not be created or moved onto a commit that changes
// .github/workflows/, while other commits go through.
func TestWorkflowWriteNeedsWorkflowsPermission(t *testing.T) {
	s := startTiny(t, Options{Permissions: manifestPerms})
	c := installClient(t, s)
	wf := commitChanging(t, c, ".github/workflows/ci.yml", "on: push\n")
	other := commitChanging(t, c, "Taskfile.yaml", "version: '3'\n")
	_, _, err := c.Git.CreateRef(ctx(t), tinyOwner, tinyName, &github.Reference{Ref: github.String("refs/heads/fix-wf"), Object: &github.GitObject{SHA: github.String(wf)}})
	refusal(t, "create a ref onto a workflow change", err, "contents=write; contents=write,workflows=write")
	if _, _, err := c.Git.CreateRef(ctx(t), tinyOwner, tinyName, &github.Reference{Ref: github.String("refs/heads/fix-other"), Object: &github.GitObject{SHA: github.String(other)}}); err != nil {
		t.Fatalf("create a ref onto another change: %v", err)
	}
	_, _, err = c.Git.UpdateRef(ctx(t), tinyOwner, tinyName, &github.Reference{Ref: github.String("refs/heads/fix-other"), Object: &github.GitObject{SHA: github.String(wf)}}, true)
	refusal(t, "move a ref onto a workflow change", err, "contents=write; contents=write,workflows=write")
	if files, _ := s.FilesAt(tinyRepo, "fix-other"); string(files["Taskfile.yaml"]) != "version: '3'\n" {
		t.Error("the refused move changed the branch")
	}

	// With the permission (the default), the same write is accepted.
	s2 := startTiny(t, Options{})
	c2 := installClient(t, s2)
	wf2 := commitChanging(t, c2, ".github/workflows/ci.yml", "on: push\n")
	if _, _, err := c2.Git.CreateRef(ctx(t), tinyOwner, tinyName, &github.Reference{Ref: github.String("refs/heads/fix-wf"), Object: &github.GitObject{SHA: github.String(wf2)}}); err != nil {
		t.Errorf("with workflows: write: %v", err)
	}
}

// TestEndpointsEnforcePermissions: each endpoint refuses an installation
// whose token lacks its permission, with GitHub's 403.
func TestEndpointsEnforcePermissions(t *testing.T) {
	perms := maps.Clone(manifestPerms)
	perms["actions"] = "read"
	delete(perms, "issues")
	perms["pull_requests"] = "read"
	perms["contents"] = "read"
	s := startTiny(t, Options{Permissions: perms})
	c := installClient(t, s)
	_, err := c.Actions.RerunFailedJobsByID(ctx(t), tinyOwner, tinyName, tinyTrigger)
	refusal(t, "rerun with actions: read", err, "actions=write")
	_, _, err = c.Git.CreateBlob(ctx(t), tinyOwner, tinyName, &github.Blob{Content: github.String("x"), Encoding: github.String("utf-8")})
	refusal(t, "blob with contents: read", err, "contents=write")
	_, _, err = c.PullRequests.Create(ctx(t), tinyOwner, tinyName, &github.NewPullRequest{Title: github.String("t"), Head: github.String("main"), Base: github.String("main")})
	refusal(t, "pull request with pull_requests: read", err, "pull_requests=write")
	// pull_requests: read still reads a pull request's conversation.
	if _, _, err := c.Issues.ListComments(ctx(t), tinyOwner, tinyName, tinyPR, nil); err != nil {
		t.Errorf("comments with pull_requests: read: %v", err)
	}
	_, _, err = c.Issues.CreateComment(ctx(t), tinyOwner, tinyName, tinyPR, &github.IssueComment{Body: github.String("hi")})
	refusal(t, "comment without issues or pull_requests write", err, "issues=write; pull_requests=write")
	for _, w := range s.Writes() {
		if w.Status < 300 {
			t.Errorf("refused write applied: %s %s %d", w.Method, w.Path, w.Status)
		}
	}

	// Reads the token holds still work; a token cannot ask for more than
	// the installation holds.
	if _, _, err := c.Actions.GetWorkflowRunByID(ctx(t), tinyOwner, tinyName, tinyTrigger); err != nil {
		t.Errorf("read a run: %v", err)
	}
	app, err := s.NewAppClient()
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = app.Apps.CreateInstallationToken(ctx(t), tinyInst, &github.InstallationTokenOptions{Permissions: &github.InstallationPermissions{Actions: github.String("write")}})
	if statusOf(err) != http.StatusUnprocessableEntity {
		t.Errorf("token asking for actions: write on an installation with read: %v, want 422", err)
	}
}

// TestTokensKeepTheirPermissions: an admin's new grant reaches new tokens,
// not the ones issued before.
func TestTokensKeepTheirPermissions(t *testing.T) {
	perms := maps.Clone(manifestPerms)
	perms["actions"] = "read"
	s := startTiny(t, Options{Permissions: perms})
	old := installClient(t, s)
	if _, _, err := old.Actions.GetWorkflowRunByID(ctx(t), tinyOwner, tinyName, tinyTrigger); err != nil {
		t.Fatal(err) // the token is minted on first use
	}
	perms["actions"] = "write"
	s.SetInstallationPermissions(tinyInst, perms)
	_, err := old.Actions.RerunFailedJobsByID(ctx(t), tinyOwner, tinyName, tinyTrigger)
	refusal(t, "rerun with a token issued before the grant", err, "actions=write")
	if _, err := installClient(t, s).Actions.RerunFailedJobsByID(ctx(t), tinyOwner, tinyName, tinyTrigger); err != nil {
		t.Errorf("rerun with a new token: %v", err)
	}
}

// TestContentCreationLimit: past Options.ContentPerMinute writes in a
// minute an installation gets GitHub's secondary limit, without
// Retry-After; its reads go on.
func TestContentCreationLimit(t *testing.T) {
	s := startTiny(t, Options{ContentPerMinute: 2})
	c := installClient(t, s)
	for i := range 3 {
		_, _, err := c.Issues.CreateComment(ctx(t), tinyOwner, tinyName, tinyPR, &github.IssueComment{Body: github.String("hi")})
		if i < 2 && err != nil {
			t.Fatalf("write %d: %v", i+1, err)
		}
		if i == 2 {
			var abuse *github.AbuseRateLimitError
			if !errors.As(err, &abuse) || abuse.Response.Header.Get("Retry-After") != "" {
				t.Fatalf("third write: %v, want a secondary limit without Retry-After", err)
			}
		}
	}
	// A fresh client: go-github holds back every call of this one until
	// the primary window's reset it read from x-ratelimit-reset.
	if _, _, err := installClient(t, s).PullRequests.Get(ctx(t), tinyOwner, tinyName, tinyPR); err != nil {
		t.Errorf("a read after the limit: %v", err)
	}
}

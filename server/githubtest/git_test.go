package githubtest

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v66/github"
)

const tinyHead = "0000000000000000000000000000000000abe32d" // head_sha of the trigger run

func TestContents(t *testing.T) {
	s := startTiny(t, Options{})
	c := installClient(t, s)
	want, _ := os.ReadFile(filepath.Join("testdata", "tiny", "repo", "Taskfile.yaml"))
	for _, ref := range []string{"", "main", tinyHead, tinyHead[:10], "heads/main"} {
		file, _, _, err := c.Repositories.GetContents(ctx(t), tinyOwner, tinyName, "Taskfile.yaml", &github.RepositoryContentGetOptions{Ref: ref})
		if err != nil {
			t.Fatalf("ref %q: %v", ref, err)
		}
		got, err := file.GetContent()
		if err != nil || got != string(want) || file.GetSize() != len(want) || file.GetType() != "file" {
			t.Errorf("ref %q: %q (%v)", ref, got, err)
		}
	}
	_, dir, _, err := c.Repositories.GetContents(ctx(t), tinyOwner, tinyName, "scripts", nil)
	if err != nil || len(dir) != 1 || dir[0].GetPath() != "scripts/e2e.sh" || dir[0].GetDownloadURL() == "" {
		t.Errorf("directory: %v %+v", err, dir)
	}
	_, root, _, err := c.Repositories.GetContents(ctx(t), tinyOwner, tinyName, "", nil)
	if err != nil || len(root) != 5 {
		t.Errorf("root listing: %v, %d entries", err, len(root))
	}
	rc, _, err := c.Repositories.DownloadContents(ctx(t), tinyOwner, tinyName, "Taskfile.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	_ = rc.Close()
	if string(got) != string(want) {
		t.Errorf("DownloadContents = %q", got)
	}
	for _, tc := range []struct{ path, ref string }{{"Makefile", ""}, {"Taskfile.yaml", "nope"}, {"Taskfile.yaml", "0000000000000000000000000000000000abe339"}} {
		_, _, _, err := c.Repositories.GetContents(ctx(t), tinyOwner, tinyName, tc.path, &github.RepositoryContentGetOptions{Ref: tc.ref})
		if statusOf(err) != http.StatusNotFound {
			t.Errorf("%s at %q: %v, want 404", tc.path, tc.ref, err)
		}
	}
	req, _ := c.NewRequest(http.MethodGet, "repos/acme/widget/contents/Taskfile.yaml", nil)
	req.Header.Set("Accept", "application/vnd.github.raw+json")
	var raw strings.Builder
	if _, err := c.Do(ctx(t), req, &raw); err != nil || raw.String() != string(want) {
		t.Errorf("raw media type: %v %q", err, raw.String())
	}
}

func TestTreesAndBlobs(t *testing.T) {
	s := startTiny(t, Options{})
	c := installClient(t, s)
	tree, _, err := c.Git.GetTree(ctx(t), tinyOwner, tinyName, tinyHead, true)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	modes := map[string]string{}
	for _, e := range tree.Entries {
		paths = append(paths, e.GetPath())
		modes[e.GetPath()] = e.GetMode()
	}
	want := ".github .github/workflows .github/workflows/ci.yml README.md Taskfile.yaml deploy deploy/chart deploy/chart/values.yaml scripts scripts/e2e.sh"
	// git write-tree over testdata/tiny/repo names the root tree the same.
	if strings.Join(paths, " ") != want || tree.GetTruncated() || tree.GetSHA() != "04efed4f9f900cbc0660145c3f5f59856886e351" {
		t.Errorf("recursive tree = %v", paths)
	}
	if modes["scripts/e2e.sh"] != modeExec || modes["scripts"] != modeTree {
		t.Errorf("modes = %v", modes)
	}
	flat, _, err := c.Git.GetTree(ctx(t), tinyOwner, tinyName, "main", false)
	if err != nil || len(flat.Entries) != 5 {
		t.Errorf("flat tree: %v, %d entries", err, len(flat.Entries))
	}
	var readme *github.TreeEntry
	for _, e := range tree.Entries {
		if e.GetPath() == "README.md" {
			readme = e
		}
	}
	// git's own name for the blob "# widget\n".
	if readme.GetSHA() != "a9a0c95fdd1951961a250abb9f8d572520c2c167" {
		t.Errorf("blob sha = %s, want git's hash", readme.GetSHA())
	}
	raw, _, err := c.Git.GetBlobRaw(ctx(t), tinyOwner, tinyName, readme.GetSHA())
	if err != nil || string(raw) != "# widget\n" {
		t.Errorf("raw blob: %v %q", err, raw)
	}
	blob, _, err := c.Git.GetBlob(ctx(t), tinyOwner, tinyName, readme.GetSHA())
	if err != nil || blob.GetEncoding() != "base64" || blob.GetSize() != 9 {
		t.Errorf("blob: %v %+v", err, blob)
	}
}

// TestGitWriteFlow follows what a fix PR takes: blob, tree over the base
// tree, commit, branch, pull request; each write visible to later reads.
func TestGitWriteFlow(t *testing.T) {
	s := startTiny(t, Options{})
	c := installClient(t, s)
	head, _, err := c.Git.GetRef(ctx(t), tinyOwner, tinyName, "heads/main")
	if err != nil || head.GetObject().GetSHA() != tinyHead {
		t.Fatalf("main: %v %+v", err, head)
	}
	base, _, err := c.Git.GetCommit(ctx(t), tinyOwner, tinyName, tinyHead)
	if err != nil {
		t.Fatal(err)
	}
	blob, _, err := c.Git.CreateBlob(ctx(t), tinyOwner, tinyName, &github.Blob{Content: github.String("version: '3'\n# patched\n"), Encoding: github.String("utf-8")})
	if err != nil {
		t.Fatal(err)
	}
	entries := []*github.TreeEntry{
		{Path: github.String("Taskfile.yaml"), Mode: github.String(modeFile), Type: github.String("blob"), SHA: blob.SHA},
		{Path: github.String("scripts/retry.sh"), Mode: github.String(modeExec), Type: github.String("blob"), Content: github.String("#!/bin/sh\n")},
		{Path: github.String("README.md"), Mode: github.String(modeFile), Type: github.String("blob")}, // sha:null deletes
	}
	tree, _, err := c.Git.CreateTree(ctx(t), tinyOwner, tinyName, base.GetTree().GetSHA(), entries)
	if err != nil {
		t.Fatal(err)
	}
	commit, _, err := c.Git.CreateCommit(ctx(t), tinyOwner, tinyName, &github.Commit{Message: github.String("fix: retry"),
		Tree: &github.Tree{SHA: tree.SHA}, Parents: []*github.Commit{{SHA: github.String(tinyHead)}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ref := &github.Reference{Ref: github.String("refs/heads/polylane/fix-abc"), Object: &github.GitObject{SHA: commit.SHA}}
	if _, _, err := c.Git.CreateRef(ctx(t), tinyOwner, tinyName, ref); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Git.CreateRef(ctx(t), tinyOwner, tinyName, ref); statusOf(err) != 422 || !strings.Contains(err.Error(), "Reference already exists") {
		t.Errorf("second CreateRef: %v, want 422 Reference already exists", err)
	}
	files, err := s.FilesAt(tinyRepo, "polylane/fix-abc")
	if err != nil {
		t.Fatal(err)
	}
	if string(files["Taskfile.yaml"]) != "version: '3'\n# patched\n" || string(files["scripts/retry.sh"]) != "#!/bin/sh\n" ||
		files["README.md"] != nil || files["scripts/e2e.sh"] == nil {
		t.Errorf("files on the branch: %v", keys(files))
	}
	file, _, _, err := c.Repositories.GetContents(ctx(t), tinyOwner, tinyName, "Taskfile.yaml", &github.RepositoryContentGetOptions{Ref: "polylane/fix-abc"})
	if got, _ := file.GetContent(); err != nil || !strings.Contains(got, "patched") {
		t.Errorf("contents on the branch: %v %q", err, got)
	}
	branch, _, err := c.Repositories.GetBranch(ctx(t), tinyOwner, tinyName, "polylane/fix-abc", 1)
	if err != nil || branch.GetCommit().GetSHA() != commit.GetSHA() || branch.GetCommit().GetCommit().GetMessage() != "fix: retry" {
		t.Errorf("branch: %v %+v", err, branch)
	}
	if got, _ := s.FileAt(tinyRepo, "main", "README.md"); string(got) != "# widget\n" {
		t.Errorf("main changed: README %q", got)
	}
	openPullAndCheck(t, s, c, commit.GetSHA())
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// openPullAndCheck opens a pull request from polylane/fix-abc and checks
// it can be found and updated, and that a second one is refused.
func openPullAndCheck(t *testing.T, s *Server, c *github.Client, headSHA string) {
	t.Helper()
	np := &github.NewPullRequest{Title: github.String("Retry the flaky step"), Head: github.String("polylane/fix-abc"),
		Base: github.String("main"), Body: github.String("body")}
	pr, _, err := c.PullRequests.Create(ctx(t), tinyOwner, tinyName, np)
	if err != nil {
		t.Fatal(err)
	}
	if pr.GetNumber() != tinyPR+1 || pr.GetHead().GetSHA() != headSHA || pr.GetUser().GetLogin() != "polylane[bot]" || pr.GetState() != "open" {
		t.Errorf("created PR: #%d head %s by %s", pr.GetNumber(), pr.GetHead().GetSHA(), pr.GetUser().GetLogin())
	}
	if _, _, err := c.PullRequests.Create(ctx(t), tinyOwner, tinyName, np); statusOf(err) != 422 || !strings.Contains(err.Error(), "A pull request already exists") {
		t.Errorf("duplicate PR: %v", err)
	}
	list, _, err := c.PullRequests.List(ctx(t), tinyOwner, tinyName, &github.PullRequestListOptions{Head: "acme:polylane/fix-abc", State: "open"})
	if err != nil || len(list) != 1 || list[0].GetNumber() != pr.GetNumber() {
		t.Errorf("list by head: %v %d", err, len(list))
	}
	byCommit, _, err := c.PullRequests.ListPullRequestsWithCommit(ctx(t), tinyOwner, tinyName, headSHA, nil)
	if err != nil || len(byCommit) != 1 || byCommit[0].GetNumber() != pr.GetNumber() {
		t.Errorf("list by commit: %v %d", err, len(byCommit))
	}
	upd, _, err := c.PullRequests.Edit(ctx(t), tinyOwner, tinyName, pr.GetNumber(), &github.PullRequest{Body: github.String("new body"), State: github.String("closed")})
	if err != nil || upd.GetBody() != "new body" || upd.GetState() != "closed" || upd.ClosedAt == nil {
		t.Errorf("edit: %v %+v", err, upd)
	}
	if got := s.PullRequests(tinyRepo); len(got) != 2 || got[1].State != "closed" || got[0].Number != tinyPR {
		t.Errorf("PullRequests() = %+v", got)
	}
}

func TestRefsUpdateDeleteAndPullRules(t *testing.T) {
	s := startTiny(t, Options{})
	c := installClient(t, s)
	mk := func(parent, msg string) string {
		base, _, _ := c.Git.GetCommit(ctx(t), tinyOwner, tinyName, parent)
		cm, _, err := c.Git.CreateCommit(ctx(t), tinyOwner, tinyName, &github.Commit{Message: github.String(msg),
			Tree: base.Tree, Parents: []*github.Commit{{SHA: github.String(parent)}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return cm.GetSHA()
	}
	a := mk(tinyHead, "a")
	b := mk(tinyHead, "b")
	if _, _, err := c.Git.CreateRef(ctx(t), tinyOwner, tinyName, &github.Reference{Ref: github.String("refs/heads/x"), Object: &github.GitObject{SHA: github.String(tinyHead)}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.PullRequests.Create(ctx(t), tinyOwner, tinyName, &github.NewPullRequest{Title: github.String("t"), Head: github.String("x"), Base: github.String("main")}); statusOf(err) != 422 {
		t.Errorf("PR with no commits: %v, want 422", err)
	}
	steps := []struct {
		sha   string
		force bool
		want  int
	}{{a, false, 200}, {b, false, 422}, {b, true, 200}, {"0123456789012345678901234567890123456789", true, 422}}
	for _, st := range steps {
		_, _, err := c.Git.UpdateRef(ctx(t), tinyOwner, tinyName, &github.Reference{Ref: github.String("heads/x"), Object: &github.GitObject{SHA: github.String(st.sha)}}, st.force)
		if got := statusOf(err); (err == nil && st.want != 200) || (err != nil && got != st.want) {
			t.Errorf("update to %s force=%v: %v, want %d", st.sha[:7], st.force, err, st.want)
		}
	}
	if refs := s.Refs(tinyRepo); refs["refs/heads/x"] != b {
		t.Errorf("refs = %v", refs)
	}
	matching, _, err := c.Git.ListMatchingRefs(ctx(t), tinyOwner, tinyName, &github.ReferenceListOptions{Ref: "heads/"})
	if err != nil || len(matching) != 2 {
		t.Errorf("matching refs: %v %d", err, len(matching))
	}
	if _, err := c.Git.DeleteRef(ctx(t), tinyOwner, tinyName, "heads/x"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Git.GetRef(ctx(t), tinyOwner, tinyName, "heads/x"); statusOf(err) != 404 {
		t.Errorf("deleted ref: %v", err)
	}
	if _, err := c.Git.DeleteRef(ctx(t), tinyOwner, tinyName, "heads/x"); statusOf(err) != 422 {
		t.Errorf("deleting twice: %v", err)
	}
}

func TestScenarioPullsAndMerged(t *testing.T) {
	s := startTiny(t, Options{})
	c := installClient(t, s)
	pr, _, err := c.PullRequests.Get(ctx(t), tinyOwner, tinyName, tinyPR)
	if err != nil || pr.GetHead().GetRef() != "feat/retry" || pr.GetBase().GetRef() != "main" || pr.GetState() != "open" {
		t.Fatalf("scenario PR: %v %+v", err, pr)
	}
	prHead := pr.GetHead().GetSHA()
	byCommit, _, err := c.PullRequests.ListPullRequestsWithCommit(ctx(t), tinyOwner, tinyName, prHead, nil)
	if err != nil || len(byCommit) != 1 {
		t.Errorf("PRs with the PR run's head: %v %d", err, len(byCommit))
	}
	merge := "0000000000000000000000000000000000abe329" // head of run 9001 on main
	if err := s.MarkMerged(tinyRepo, tinyPR, merge); err != nil {
		t.Fatal(err)
	}
	byCommit, _, err = c.PullRequests.ListPullRequestsWithCommit(ctx(t), tinyOwner, tinyName, merge, nil)
	if err != nil || len(byCommit) != 1 || !byCommit[0].GetMerged() || byCommit[0].GetMergeCommitSHA() != merge {
		t.Errorf("merged PR by merge commit: %v %+v", err, byCommit)
	}
	cc, _, err := c.Repositories.CreateComment(ctx(t), tinyOwner, tinyName, merge, &github.RepositoryComment{Body: github.String("regressed here")})
	if err != nil || cc.GetCommitID() != merge {
		t.Errorf("commit comment: %v", err)
	}
	if got := s.CommitComments(tinyRepo); len(got) != 1 || got[0].User != "polylane[bot]" {
		t.Errorf("CommitComments = %+v", got)
	}
	if _, _, err := c.Repositories.CreateComment(ctx(t), tinyOwner, tinyName, "ffffffffffffffffffffffffffffffffffffffff", &github.RepositoryComment{Body: github.String("x")}); statusOf(err) != 422 {
		t.Errorf("comment on an unknown commit: %v", err)
	}
}

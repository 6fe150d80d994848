package ghclient_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/server/githubtest"
)

// TestConversationCalls drives the calls of the conversation features
// against the simulator: reactions, permissions, re-runs, closing pull
// requests and reading files.
func TestConversationCalls(t *testing.T) {
	sim := startSim(t)
	r := tinyRepoHandle(t, newClient(t, sim, nil))
	ctx := testCtx(t)

	cid, err := sim.AddIssueComment(tinyRepo, tinyPR, "octocat", "@polylane help")
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := r.ReactToComment(ctx, cid, "eyes"); err != nil {
			t.Fatal(err)
		}
	}
	if got := sim.Comments(tinyRepo, tinyPR); len(got) != 1 || len(got[0].Reactions) != 1 || got[0].Reactions[0].Content != "eyes" {
		t.Fatalf("reactions after reacting twice: %+v", got)
	}

	for _, tc := range []struct {
		set, want string
		write     bool
	}{{"admin", "admin", true}, {"maintain", "maintain", true}, {"write", "write", true}, {"triage", "triage", false}, {"read", "read", false}} {
		if err := sim.SetPermission(tinyRepo, "user-"+tc.set, tc.set); err != nil {
			t.Fatal(err)
		}
		got, err := r.Permission(ctx, "user-"+tc.set)
		if err != nil || got != tc.want || ghclient.CanWrite(got) != tc.write {
			t.Errorf("permission %s: got %q (%v), can write %v", tc.set, got, err, ghclient.CanWrite(got))
		}
	}
	if got, err := r.Permission(ctx, "stranger"); err != nil || ghclient.CanWrite(got) {
		t.Errorf("a stranger's permission: %q %v", got, err)
	}

	if err := r.RerunFailedJobs(ctx, tinyTrigger); err != nil {
		t.Fatal(err)
	}
	if !wrote(sim, http.MethodPost, "/rerun-failed-jobs") {
		t.Error("no re-run request recorded")
	}
	state, err := r.GetRunState(ctx, tinyTrigger)
	if err != nil || state.Status != "completed" || state.Conclusion != "failure" || state.Attempt < 1 {
		t.Errorf("run state %+v %v", state, err)
	}

	pr, err := r.ClosePull(ctx, tinyPR)
	if err != nil || pr.State != "closed" {
		t.Fatalf("close: %+v %v", pr, err)
	}

	want, err := os.ReadFile(filepath.Join("..", "githubtest", "testdata", "tiny", "repo", "Taskfile.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.GetFile(ctx, "Taskfile.yaml", "main", 1<<20)
	if err != nil || string(got) != string(want) {
		t.Fatalf("GetFile: %v %q", err, got)
	}
	if _, err := r.GetFile(ctx, "Taskfile.yaml", "main", 10); !errors.Is(err, ghclient.ErrFileTooLarge) {
		t.Errorf("a file over the limit: %v", err)
	}
	if _, err := r.GetFile(ctx, ".github/polylane.yml", "main", 1<<20); !errors.Is(err, ghclient.ErrNotFound) {
		t.Errorf("a missing file: %v", err)
	}
}

// wrote reports a recorded write whose path ends with suffix.
func wrote(sim *githubtest.Server, method, suffix string) bool {
	for _, w := range sim.Writes() {
		if w.Method == method && strings.HasSuffix(w.Path, suffix) {
			return true
		}
	}
	return false
}

// TestTokenClientRaw reads raw documents with a user token, as polylane
// capture does, and refuses app-only calls.
func TestTokenClientRaw(t *testing.T) {
	sim := startSim(t)
	c, err := ghclient.New(ghclient.Config{Token: sim.UserToken("octocat"), BaseURL: sim.APIURL()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.BotLogin(testCtx(t)); err == nil {
		t.Error("a token client answered BotLogin")
	}
	r, err := c.Repo(0, tinyRepo)
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	var ids []int64
	for page := 1; page > 0; {
		p, err := r.ListRunsRaw(ctx, "ci.yml", page, 3)
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range p.Items {
			var run struct {
				ID int64 `json:"id"`
			}
			if err := json.Unmarshal(item, &run); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, run.ID)
		}
		page = p.NextPage
	}
	if len(ids) != 6 || ids[0] != 9007 || ids[5] != 9001 { // 9004 is another workflow's run
		t.Fatalf("runs by page of 3: %v", ids)
	}
	jobs, err := r.ListJobsRaw(ctx, tinyTrigger, 1)
	if err != nil || len(jobs.Items) == 0 || jobs.TotalCount != len(jobs.Items) {
		t.Fatalf("jobs: %+v %v", jobs, err)
	}
	doc, err := r.GetJSON(ctx, r.RepoPath())
	if err != nil || !strings.Contains(string(doc), `"full_name":"acme/widget"`) {
		t.Fatalf("repository document: %v %s", err, doc)
	}
}

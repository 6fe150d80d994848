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

	"github.com/google/go-github/v66/github"
)

// karmadaFacts are read from the shared scenario itself, so the test does
// not depend on its particular numbers.
type karmadaFacts struct {
	Owner, Name string
	Inst        int64
	Trigger     int64
	WorkflowID  int64
	Runs        int
}

func readFacts(t testing.TB, dir string) karmadaFacts {
	t.Helper()
	var sc scenarioFile
	src := scenarioSource{fsys: os.DirFS(dir), dir: dir}
	if _, err := readJSON(src, "scenario.json", &sc); err != nil {
		t.Fatal(err)
	}
	var runs struct {
		Runs []json.RawMessage `json:"workflow_runs"`
	}
	if _, err := readJSON(src, "runs.json", &runs); err != nil {
		t.Fatal(err)
	}
	return karmadaFacts{Owner: sc.Repository.Owner.Login, Name: sc.Repository.Name, Inst: sc.InstallationID,
		Trigger: sc.TriggerRunID, WorkflowID: sc.Workflow.ID, Runs: len(runs.Runs)}
}

func TestServesSharedScenario(t *testing.T) {
	dir := sharedScenario(t, "karmada-rollout")
	f := readFacts(t, dir)
	s, err := Start(Options{Scenarios: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := s.NewInstallationClient(f.Inst)
	if err != nil {
		t.Fatal(err)
	}
	total, pages := 0, 0
	opts := &github.ListWorkflowRunsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		runs, resp, err := c.Actions.ListWorkflowRunsByID(ctx(t), f.Owner, f.Name, f.WorkflowID, opts)
		if err != nil {
			t.Fatal(err)
		}
		total += len(runs.WorkflowRuns)
		pages++
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if total != f.Runs || pages != (f.Runs+99)/100 {
		t.Errorf("listed %d runs in %d pages, want %d", total, pages, f.Runs)
	}
	run, _, err := c.Actions.GetWorkflowRunByID(ctx(t), f.Owner, f.Name, f.Trigger)
	if err != nil {
		t.Fatal(err)
	}
	jobs, _, err := c.Actions.ListWorkflowJobs(ctx(t), f.Owner, f.Name, f.Trigger, &github.ListWorkflowJobsOptions{Filter: "latest"})
	if err != nil || len(jobs.Jobs) == 0 {
		t.Fatalf("jobs of the trigger: %v", err)
	}
	checkFailedLogs(t, c, dir, f, jobs.Jobs)
	checkRepoTree(t, c, dir, f, run.GetHeadSHA())
}

// checkFailedLogs downloads the log of every failed job of the trigger run
// and compares it with the scenario file.
func checkFailedLogs(t *testing.T, c *github.Client, dir string, f karmadaFacts, jobs []*github.WorkflowJob) {
	t.Helper()
	for _, j := range jobs {
		if j.GetConclusion() != "failure" {
			continue
		}
		loc, _, err := c.Actions.GetWorkflowJobLogs(ctx(t), f.Owner, f.Name, j.GetID(), 2)
		if err != nil {
			t.Fatal(err)
		}
		resp := plainGet(t, loc.String(), nil)
		got, _ := io.ReadAll(resp.Body)
		want, _ := os.ReadFile(filepath.Join(dir, "logs", itoa(j.GetID())+".txt"))
		if !bytes.Equal(got, want) || len(want) == 0 {
			t.Errorf("log of job %d: %d bytes, want %d", j.GetID(), len(got), len(want))
		}
	}
}

// checkRepoTree checks every repo/ file is served at the trigger's head SHA
// and at the default branch.
func checkRepoTree(t *testing.T, c *github.Client, dir string, f karmadaFacts, head string) {
	t.Helper()
	tree, _, err := c.Git.GetTree(ctx(t), f.Owner, f.Name, head, true)
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	for _, e := range tree.Entries {
		if e.GetType() != "blob" {
			continue
		}
		files++
		want, err := os.ReadFile(filepath.Join(dir, "repo", filepath.FromSlash(e.GetPath())))
		if err != nil {
			t.Fatalf("tree lists %s: %v", e.GetPath(), err)
		}
		if files > 3 {
			continue // contents of a few files are enough; the tree covers the rest
		}
		for _, ref := range []string{head, ""} {
			fc, _, _, err := c.Repositories.GetContents(ctx(t), f.Owner, f.Name, e.GetPath(), &github.RepositoryContentGetOptions{Ref: ref})
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := fc.GetContent(); got != string(want) {
				t.Errorf("%s at %q differs from repo/", e.GetPath(), ref)
			}
		}
	}
	var onDisk int
	_ = filepath.WalkDir(filepath.Join(dir, "repo"), func(_ string, d os.DirEntry, _ error) error {
		if d != nil && !d.IsDir() {
			onDisk++
		}
		return nil
	})
	if files != onDisk {
		t.Errorf("tree has %d files, repo/ has %d", files, onDisk)
	}
}

func TestLoadErrors(t *testing.T) {
	tmp := t.TempDir()
	write := func(dir, name, body string) {
		_ = os.MkdirAll(filepath.Join(tmp, dir), 0o755)
		if err := os.WriteFile(filepath.Join(tmp, dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("badjson", "scenario.json", "{")
	write("noowner", "scenario.json", `{"repository":{}}`)
	write("notrigger", "scenario.json", `{"repository":{"name":"r","owner":{"login":"o"}},"trigger_run_id":5}`)
	write("notrigger", "runs.json", `{"workflow_runs":[{"id":4,"created_at":"2026-01-01T00:00:00Z"}]}`)
	tests := []struct{ dir, want string }{
		{"missing", "no such file"},
		{"badjson", "parse"},
		{"noowner", "no owner/name"},
		{"notrigger", "trigger run 5"},
	}
	for _, tc := range tests {
		_, err := New(Options{Scenarios: []string{filepath.Join(tmp, tc.dir)}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.dir, err, tc.want)
		}
	}
}

func TestTwoScenariosTwoInstallations(t *testing.T) {
	dir := sharedScenario(t, "karmada-rollout")
	f := readFacts(t, dir)
	s := startTiny(t, Options{Scenarios: []string{filepath.Join("testdata", "tiny"), dir}})
	if got := s.Repositories(); len(got) != 2 {
		t.Fatalf("repositories = %v", got)
	}
	tok, _ := s.InstallationToken(tinyInst)
	resp := plainGet(t, s.APIURL()+"repos/"+f.Owner+"/"+f.Name, http.Header{"Authorization": {"token " + tok}})
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("a token of one installation reached the other's repository: %d", resp.StatusCode)
	}
}

package demoscenario_test

import (
	"context"
	"io"
	"io/fs"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-github/v66/github"

	"github.com/polylane/polylane/analysis/scenario"
	"github.com/polylane/polylane/server/githubtest"
	"github.com/polylane/polylane/server/githubtest/demoscenario"
)

// TestServedBySimulator serves the embedded scenario the way the demo does
// and reads it back through go-github: every run, the trigger's jobs and
// failed log (through the 302), and the harness files at the head commit.
func TestServedBySimulator(t *testing.T) {
	s, err := scenario.Load(demoscenario.FS())
	if err != nil {
		t.Fatal(err)
	}
	sim, err := githubtest.Start(githubtest.Options{ScenarioFS: []fs.FS{demoscenario.FS()}, TreeAtRunHeads: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	c, err := sim.NewInstallationClient(s.InstallationID)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	owner, name := s.Repository.Owner.Login, s.Repository.Name

	runs, _, err := c.Actions.ListWorkflowRunsByID(ctx, owner, name, s.Workflow.ID, &github.ListWorkflowRunsOptions{ListOptions: github.ListOptions{PerPage: 100}})
	if err != nil || runs.GetTotalCount() != len(s.Runs) || runs.WorkflowRuns[0].GetID() != s.TriggerRunID {
		t.Fatalf("list runs: %v; %d runs, want %d with the trigger first", err, runs.GetTotalCount(), len(s.Runs))
	}
	jobs, _, err := c.Actions.ListWorkflowJobs(ctx, owner, name, s.TriggerRunID, nil)
	if err != nil || len(jobs.Jobs) != 3 {
		t.Fatalf("jobs of the trigger: %v (%d jobs)", err, len(jobs.Jobs))
	}
	failed := 0
	for _, j := range jobs.Jobs {
		if j.GetConclusion() != "failure" {
			continue
		}
		failed++
		loc, _, err := c.Actions.GetWorkflowJobLogs(ctx, owner, name, j.GetID(), 2)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.Get(loc.String())
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want, _ := fs.ReadFile(demoscenario.FS(), "logs/"+strconv.FormatInt(j.GetID(), 10)+".txt")
		if len(want) == 0 || string(got) != string(want) {
			t.Errorf("log of job %d: %d bytes served, %d in the scenario", j.GetID(), len(got), len(want))
		}
	}
	if failed != 1 {
		t.Errorf("%d failed jobs in the trigger, want 1", failed)
	}
	head := runs.WorkflowRuns[0].GetHeadSHA()
	for _, path := range []string{".github/workflows/ci.yml", "Makefile", "scripts/migrate.sh", "Dockerfile", "deploy/chart/tally/Chart.yaml"} {
		want, _ := fs.ReadFile(demoscenario.FS(), "repo/"+path)
		got, err := sim.FileAt(s.Repository.FullName, head, path)
		if err != nil || string(got) != string(want) {
			t.Errorf("%s at the trigger's head: %v (%d bytes, want %d)", path, err, len(got), len(want))
		}
	}
}

package worker

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/polylane/polylane/causal/diagnosis"
	"github.com/polylane/polylane/server/githubtest"
	"github.com/polylane/polylane/server/webhook"
	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/store/storetest"
)

// forkRepoID and forkRepoName name the fork of the conversation scenario's
// repository that the tests of this file open pull requests from.
const (
	forkRepoID   = 987654321
	forkRepoName = "mallory/cronkeeper"
)

// addedRun is a run a test adds to a copy of a scenario: a copy of the
// run from (its jobs and logs too, under new ids, when copyJobs is set),
// made after the scenario's last run.
type addedRun struct {
	from       int64
	event      string
	conclusion string
	fork       bool   // the head repository is the fork
	headSHA    string // empty keeps the copied run's
	prNumber   int    // when not 0, the run lists this pull request
	copyJobs   bool
}

// scenarioWith copies the scenario at src to a temporary directory and
// adds runs, each a minute after the one before, starting a minute after
// the scenario's newest run. It returns the directory and the added runs'
// ids, in order.
func scenarioWith(t *testing.T, src string, added []addedRun) (string, []int64) {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	var runs struct {
		Runs []map[string]any `json:"workflow_runs"`
	}
	readJSON(t, filepath.Join(src, "runs.json"), &runs)
	byID := map[int64]map[string]any{}
	newest := time.Time{}
	for _, r := range runs.Runs {
		byID[int64(r["id"].(float64))] = r
		if ts, err := time.Parse(time.RFC3339, r["created_at"].(string)); err == nil && ts.After(newest) {
			newest = ts
		}
	}
	base := byID[int64(runs.Runs[0]["id"].(float64))]["repository"].(map[string]any)
	var ids []int64
	for i, a := range added {
		orig := byID[a.from]
		if orig == nil {
			t.Fatalf("run %d is not in %s", a.from, src)
		}
		id := int64(8_000_000_000 + i)
		r := map[string]any{}
		for k, v := range orig {
			r[k] = v
		}
		at := newest.Add(time.Duration(i+1) * time.Minute).Format(time.RFC3339)
		r["id"], r["run_number"], r["run_attempt"] = id, 5000+i, 1
		r["created_at"], r["updated_at"], r["run_started_at"] = at, at, at
		r["event"], r["conclusion"], r["status"] = a.event, a.conclusion, "completed"
		r["html_url"] = "https://github.com/orbit-works/cronkeeper/actions/runs/" + strconv.FormatInt(id, 10)
		r["head_repository"], r["pull_requests"] = base, []any{}
		if a.fork {
			r["head_repository"] = map[string]any{"id": forkRepoID, "full_name": forkRepoName, "name": "cronkeeper",
				"owner": map[string]any{"login": "mallory"}}
		}
		if a.headSHA != "" {
			r["head_sha"] = a.headSHA
			r["head_commit"] = map[string]any{"id": a.headSHA, "message": "fork commit", "timestamp": at}
		}
		if a.prNumber != 0 {
			r["pull_requests"] = []any{map[string]any{"id": 70000 + a.prNumber, "number": a.prNumber,
				"head": map[string]any{"ref": r["head_branch"], "sha": r["head_sha"], "repo": map[string]any{"id": forkRepoID, "name": "cronkeeper"}},
				"base": map[string]any{"ref": "main", "sha": orig["head_sha"], "repo": map[string]any{"id": base["id"], "name": base["name"]}}}}
		}
		if a.copyJobs {
			copyJobsAs(t, src, dst, a.from, id, int64(9_100_000_000+100*i))
		}
		runs.Runs = append(runs.Runs, r)
		ids = append(ids, id)
	}
	writeJSON(t, filepath.Join(dst, "runs.json"), map[string]any{"total_count": len(runs.Runs), "workflow_runs": runs.Runs})
	return dst, ids
}

// copyJobsAs copies the jobs and logs of run from as those of run to, with
// job ids from firstJob on.
func copyJobsAs(t *testing.T, src, dst string, from, to, firstJob int64) {
	t.Helper()
	var jobs struct {
		Jobs []map[string]any `json:"jobs"`
	}
	readJSON(t, filepath.Join(src, "jobs", jsonName(from)), &jobs)
	for i, j := range jobs.Jobs {
		old := int64(j["id"].(float64))
		id := firstJob + int64(i)
		j["id"], j["run_id"], j["run_attempt"] = id, to, 1
		logName := func(id int64) string { return filepath.Join("logs", strconv.FormatInt(id, 10)+".txt") }
		if _, err := os.Stat(filepath.Join(src, logName(old))); err == nil {
			copyFile(t, filepath.Join(src, logName(old)), filepath.Join(dst, logName(id)))
		}
	}
	writeJSON(t, filepath.Join(dst, "jobs", jsonName(to)), map[string]any{"total_count": len(jobs.Jobs), "jobs": jobs.Jobs})
}

// lastRunOf returns the newest run of the scenario at src with the event
// and conclusion on the default branch.
func lastRunOf(t *testing.T, src, event, conclusion string) int64 {
	t.Helper()
	var runs struct {
		Runs []struct {
			ID         int64  `json:"id"`
			Event      string `json:"event"`
			Branch     string `json:"head_branch"`
			Conclusion string `json:"conclusion"`
			CreatedAt  string `json:"created_at"`
		} `json:"workflow_runs"`
	}
	readJSON(t, filepath.Join(src, "runs.json"), &runs)
	var id int64
	newest := ""
	for _, r := range runs.Runs {
		if r.Event == event && r.Conclusion == conclusion && r.Branch == "main" && r.CreatedAt > newest {
			id, newest = r.ID, r.CreatedAt
		}
	}
	if id == 0 {
		t.Fatalf("no %s %s run on main in %s", conclusion, event, src)
	}
	return id
}

// TestForkRunsFromMainAreNotDefaultBranchRuns: green runs of a fork's pull
// request from a branch named "main" neither start the fix pull request
// check nor count as clean runs of the default branch, so 30 of them do
// not make Polylane close its fix pull request as "fixed another way";
// green pushes to main still do.
func TestForkRunsFromMainAreNotDefaultBranchRuns(t *testing.T) {
	green := lastRunOf(t, conversationScenario, "push", "success")
	var added []addedRun
	for range 30 {
		added = append(added, addedRun{from: green, event: "pull_request", conclusion: "success", fork: true})
	}
	added = append(added, addedRun{from: green, event: "push", conclusion: "success"},
		addedRun{from: green, event: "push", conclusion: "success"})
	dir, ids := scenarioWith(t, conversationScenario, added)
	forkRuns, pushRuns := ids[:30], ids[30:]
	for _, b := range storetest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			r := newRig(t, b, dir)
			ctx := testCtx(t)
			a, doc := r.fixTrigger(t)
			r.commit(t, r.sc.Repository.DefaultBranch, map[string]string{configPath: "fix_pull_requests:\n  close_after_runs: 3\n"})
			open := func() bool {
				t.Helper()
				f, err := r.st.GetFixPullRequest(ctx, a.RepositoryID, doc.TriggerClass)
				if err != nil {
					t.Fatal(err)
				}
				return f.State == store.FixOpen && r.botPulls()[0].State == "open"
			}
			if !open() {
				t.Fatal("no open fix pull request to start with")
			}

			// The fork's green runs: answered 202, nothing stored or queued.
			for _, id := range forkRuns[:3] {
				guid := "fork-" + strconv.FormatInt(id, 10)
				r.post(t, r.runEvent(t, id), guid)
				if _, err := r.st.GetDelivery(ctx, guid); !isNotFound(err) {
					t.Fatalf("the green fork run %d was stored for a fix pull request check (err %v)", id, err)
				}
			}
			// A green push to main: checked. The history now holds the
			// fork's 30 runs and 2 pushes since the class was last seen.
			r.post(t, r.runEvent(t, pushRuns[0]), "push-1")
			la := webhook.LifecycleArgs{DeliveryGUID: "push-1", InstallationID: a.InstallationID, RepositoryID: a.RepositoryID,
				WorkflowID: r.sc.Workflow.ID, RunID: pushRuns[0], Attempt: 1}
			if err := r.w.lifecycleDone(ctx, la); err != nil {
				t.Fatal(err)
			}
			// A check queued for a fork's run (say, by an older version) does nothing either.
			forkCheck := la
			forkCheck.DeliveryGUID, forkCheck.RunID = "", forkRuns[29]
			if err := r.w.lifecycleDone(ctx, forkCheck); err != nil {
				t.Fatal(err)
			}
			if !open() {
				t.Fatal("the fix pull request was closed as fixed another way after green runs of a fork's main")
			}
			repo, _ := r.st.GetRepository(ctx, a.RepositoryID)
			class, _ := r.st.GetClass(ctx, a.RepositoryID, doc.TriggerClass)
			if n, err := r.w.runsSince(ctx, repo, r.sc.Workflow.ID, class.LastSeen, 1000); err != nil || n != 2 {
				t.Fatalf("clean default-branch runs since the class was last seen = %d (%v), want the 2 pushes", n, err)
			}

			// A third green push closes it.
			third := store.WorkflowRun{RepositoryID: repo.ID, RunID: 8_500_000_000, Attempt: 1, WorkflowID: r.sc.Workflow.ID,
				Branch: repo.DefaultBranch, Event: "push", Status: "completed", Conclusion: "success", CreatedAt: time.Now()}
			if err := r.st.UpsertRun(ctx, third); err != nil {
				t.Fatal(err)
			}
			if err := r.w.lifecycleDone(ctx, la); err != nil {
				t.Fatal(err)
			}
			if open() {
				t.Fatal("the fix pull request stayed open after 3 green pushes to main")
			}
		})
	}
}

// runEvent is the workflow_run delivery of a run of the simulator.
func (r *rig) runEvent(t *testing.T, runID int64) githubtest.Event {
	t.Helper()
	ev, err := r.sim.WorkflowRunEvent(r.repo, runID)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// fixTrigger diagnoses and publishes the scenario's trigger run and works
// the fix job of its class.
func (r *rig) fixTrigger(t *testing.T) (webhook.DiagnoseArgs, *diagnosis.Diagnosis) {
	t.Helper()
	trigger := r.sc.TriggerRunID
	a := r.diagnoseAndPublish(t, trigger)
	_, doc := r.storedDiagnosis(t, trigger, a.Attempt)
	if err := r.w.fix(testCtx(t), FixArgs{DeliveryGUID: a.DeliveryGUID, InstallationID: a.InstallationID, RepositoryID: a.RepositoryID,
		ClassID: doc.TriggerClass, RunID: trigger, Attempt: a.Attempt}); err != nil {
		t.Fatal(err)
	}
	return a, doc
}

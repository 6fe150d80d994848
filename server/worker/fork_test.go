package worker

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/polylane/polylane/server/jobs"

	"github.com/polylane/polylane/causal/diagnosis"
	"github.com/polylane/polylane/server/githubtest"
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

// lastGreenPush returns the newest green push run of the default branch
// of the scenario at src.
func lastGreenPush(t *testing.T, src string) int64 {
	t.Helper()
	runs := newestRuns(t, src, 1000)
	for i := len(runs) - 1; i >= 0; i-- {
		if runs[i].conclusion == "success" {
			return runs[i].id
		}
	}
	t.Fatalf("no green push run on main in %s", src)
	return 0
}

// TestForkRunsFromMainAreNotDefaultBranchRuns: green runs of a fork's pull
// request from a branch named "main" neither start the fix pull request
// check nor count as clean runs of the default branch, so 30 of them do
// not make Polylane close its fix pull request as "fixed another way";
// green pushes to main still do.
func TestForkRunsFromMainAreNotDefaultBranchRuns(t *testing.T) {
	green := lastGreenPush(t, conversationScenario)
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
			la := jobs.LifecycleArgs{DeliveryGUID: "push-1", InstallationID: a.InstallationID, RepositoryID: a.RepositoryID,
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
func (r *rig) fixTrigger(t *testing.T) (jobs.DiagnoseArgs, *diagnosis.Diagnosis) {
	t.Helper()
	trigger := r.sc.TriggerRunID
	a := r.diagnoseAndPublish(t, trigger)
	_, doc := r.storedDiagnosis(t, trigger, a.Attempt)
	if err := r.w.fix(testCtx(t), jobs.FixArgs{DeliveryGUID: a.DeliveryGUID, InstallationID: a.InstallationID, RepositoryID: a.RepositoryID,
		ClassID: doc.TriggerClass, RunID: trigger, Attempt: a.Attempt}); err != nil {
		t.Fatal(err)
	}
	return a, doc
}

// forkPRNumber is the pull request the fork's runs belong to.
const forkPRNumber = 4242

// forkHeadSHA is the head commit of the fork's pull request.
const forkHeadSHA = "f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0"

// TestForkFixBuiltFromDefaultBranch: "@polylane fix" on a fork's pull
// request, whose Taskfile differs from the base repository's, opens a fix
// pull request whose commit is the patch Polylane builds from the default
// branch's files, on the default branch's head; the fork's Taskfile never
// reaches the base repository, and the reply says so.
func TestForkFixBuiltFromDefaultBranch(t *testing.T) {
	var added []addedRun
	for _, id := range newestRuns(t, conversationScenario, 24) {
		added = append(added, addedRun{from: id.id, event: "pull_request", conclusion: id.conclusion, fork: true,
			headSHA: forkHeadSHA, prNumber: forkPRNumber, copyJobs: id.conclusion != "success"})
	}
	dir, ids := scenarioWith(t, conversationScenario, added)
	trigger := ids[len(ids)-1]
	for _, b := range storetest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			r := newRig(t, b, dir)
			ctx := testCtx(t)
			main := r.sc.Repository.DefaultBranch
			base, err := r.sim.FileAt(r.repo, main, "Taskfile.yml")
			if err != nil {
				t.Fatal(err)
			}
			const forkLine = "gotestsum --format pkgname-and-test-fails --junitfile junit.xml -- -race -count=1 ./internal/... ./fork-only/..."
			forked := strings.Replace(string(base), "gotestsum --format pkgname-and-test-fails --junitfile junit.xml -- -race -count=1 ./...", forkLine, 1)
			if forked == string(base) {
				t.Fatal("the scenario's Taskfile changed; the fork's edit does not apply")
			}
			r.forkHead(t, map[string]string{"Taskfile.yml": forked})
			r.diagnoseAndPublish(t, trigger)
			_, forkDoc := r.storedDiagnosis(t, trigger, 1)
			if forkDoc.Patch == nil || !strings.Contains(forkDoc.Patch.Diff, "fork-only") {
				t.Fatalf("the fork's diagnosis does not patch the fork's Taskfile: %+v", forkDoc.Patch)
			}
			if err := r.sim.SetPermission(r.repo, "maintainer", "write"); err != nil {
				t.Fatal(err)
			}
			mainHead := r.sim.Refs(r.repo)["refs/heads/"+main]
			if err := r.w.mention(ctx, r.say(t, forkPRNumber, "maintainer", "@polylane fix")); err != nil {
				t.Fatal(err)
			}
			reply := r.replies(forkPRNumber)[0].Body
			for _, want := range []string{"Opened the fix pull request #", "fork", "default branch's files"} {
				if !strings.Contains(reply, want) {
					t.Errorf("the reply lacks %q:\n%s", want, reply)
				}
			}
			pulls := r.botPulls()
			if len(pulls) != 1 {
				t.Fatalf("%d fix pull requests, want 1", len(pulls))
			}
			fixed, err := r.sim.FileAt(r.repo, pulls[0].Head, "Taskfile.yml")
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(fixed), "fork-only") || !strings.Contains(string(fixed), `--rerun-fails=2 --packages="./..."`) {
				t.Fatalf("the fix branch's Taskfile is not the default branch's, patched:\n%s", fixed)
			}
			gh, err := r.gh.Repo(r.sc.InstallationID, r.repo)
			if err != nil {
				t.Fatal(err)
			}
			head, err := gh.GetCommit(ctx, r.sim.Refs(r.repo)["refs/heads/"+pulls[0].Head])
			if err != nil || len(head.Parents) != 1 || head.Parents[0] != mainHead {
				t.Fatalf("the fix commit's parents are %v (%v), want the default branch's head %s", head.Parents, err, mainHead)
			}
		})
	}
}

// forkHead makes forkHeadSHA a commit whose tree is the default branch's
// with files replaced, as a fork's pull request head would be.
func (r *rig) forkHead(t *testing.T, files map[string]string) {
	t.Helper()
	_, sha := r.commitOn(t, r.sc.Repository.DefaultBranch, files)
	if err := r.sim.AddCommitAlias(r.repo, forkHeadSHA, sha); err != nil {
		t.Fatal(err)
	}
}

// runRef is a run's id and conclusion.
type runRef struct {
	id         int64
	conclusion string
}

// newestRuns lists the newest n push runs of the default branch of the
// scenario at src, oldest first.
func newestRuns(t *testing.T, src string, n int) []runRef {
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
	sort.Slice(runs.Runs, func(i, j int) bool { return runs.Runs[i].CreatedAt < runs.Runs[j].CreatedAt })
	var out []runRef
	for _, r := range runs.Runs {
		if r.Event == "push" && r.Branch == "main" {
			out = append(out, runRef{r.ID, r.Conclusion})
		}
	}
	return out[max(len(out)-n, 0):]
}

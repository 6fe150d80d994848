package demoscenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/polylane/polylane/analysis/scenario/scenariotest"
)

// The generator of the embedded scenario. scenario/repo/ is written by
// hand; everything else under scenario/ (scenario.json, runs.json, jobs/,
// logs/, expect.json) is generated here from a fixed seed. Regenerate with
//
//	UPDATE=1 go test ./server/githubtest/demoscenario -run TestGenerated
//
// Without UPDATE the test fails when the checked-in files differ from what
// the generator writes.

// jobNames are the workflow's jobs in order.
var jobNames = [3]string{"Lint & unit tests", "Integration", "Container image"}

// generated is the output of generate: file contents by path under
// scenario/, and the facts the expectations are computed from.
type generated struct {
	files map[string][]byte
	runs  []plannedRun
}

// generate writes the scenario's history. repo is the hand-written
// scenario/repo/ tree (its Makefile gives make's line numbers).
func generate(repo fs.FS) (*generated, error) {
	makefile, err := fs.ReadFile(repo, "Makefile")
	if err != nil {
		return nil, fmt.Errorf("read the scenario's Makefile: %w", err)
	}
	mk := parseMakeLines(makefile)
	g := &generated{files: map[string][]byte{}, runs: plan()}
	var list []apiRun
	mainHead := ""
	for i := range g.runs {
		p := &g.runs[i]
		r := rand.New(rand.NewPCG(seed, 100+uint64(i)))
		jobs, conclusion, updated := g.writeJobs(p, r, mk)
		if err := g.putJSON(fmt.Sprintf("jobs/%d.json", p.id), map[string]any{"total_count": len(jobs), "jobs": jobs}); err != nil {
			return nil, err
		}
		list = append(list, runObject(p, r, conclusion, updated, mainHead))
		if p.pr == nil {
			mainHead = p.sha
		}
	}
	slices.Reverse(list) // newest first, as GitHub lists runs
	if err := g.putJSON("runs.json", map[string]any{"total_count": len(list), "workflow_runs": list}); err != nil {
		return nil, err
	}
	if err := g.putJSON("scenario.json", scenarioObject(g.trigger())); err != nil {
		return nil, err
	}
	if err := g.putJSON("expect.json", expectations(g.runs)); err != nil {
		return nil, err
	}
	return g, nil
}

// writeJobs writes the three jobs of a run and the logs of the failed ones;
// it returns the job objects, the run's conclusion and when it ended.
func (g *generated) writeJobs(p *plannedRun, r *rand.Rand, mk makeLines) ([]apiJob, string, time.Time) {
	key := cacheKey(goSumGeneration(g.runs, p.created))
	ids := p.jobIDs()
	conclusion, updated := "success", p.created
	var jobs []apiJob
	for j, name := range jobNames {
		w := newLogWriter(p.created.Add(time.Duration(2+r.IntN(8))*time.Second), r)
		switch j {
		case 0:
			testJob(w, p, key, mk)
		case 1:
			integrationJob(w, p, key, mk)
		default:
			imageJob(w, p)
		}
		job := jobObject(p, r, ids[j], name, w)
		if job.Conclusion != "success" {
			conclusion = "failure"
			g.files[fmt.Sprintf("logs/%d.txt", job.ID)] = []byte(w.b.String())
		}
		if end := w.steps[len(w.steps)-1].end; end.After(updated) {
			updated = end
		}
		jobs = append(jobs, job)
	}
	return jobs, conclusion, updated.Add(time.Duration(1+r.IntN(3)) * time.Second)
}

func (g *generated) putJSON(name string, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode %s: %w", name, err)
	}
	g.files[name] = b.Bytes()
	return nil
}

// trigger is the newest run on main: it failed on the not-ready database.
func (g *generated) trigger() *plannedRun {
	for i := len(g.runs) - 1; i >= 0; i-- {
		if g.runs[i].pr == nil {
			return &g.runs[i]
		}
	}
	panic("no run on main")
}

func scenarioObject(trigger *plannedRun) map[string]any {
	return map[string]any{
		"schema": "polylane.scenario/v1",
		"repository": map[string]any{"id": repoID, "name": repoName, "full_name": fullName, "owner": map[string]string{"login": owner},
			"default_branch": "main", "html_url": "https://github.com/" + fullName, "private": false},
		"installation_id": installID,
		"workflow":        map[string]any{"id": workflowID, "name": workflowName, "path": workflowPath},
		"trigger_run_id":  trigger.id,
	}
}

// expectations are the facts of expect.json (contracts.md §3), computed
// from the plan: the window is every run on main (fewer than 100).
func expectations(runs []plannedRun) map[string]any {
	total, failed, flakes := 0, 0, 0
	for _, p := range runs {
		if p.pr != nil {
			continue
		}
		total++
		if p.outcome != green {
			failed++
		}
		if p.outcome == dbNotReady {
			flakes++
		}
	}
	return map[string]any{
		"trigger_step":             "Migrate database",
		"window":                   map[string]int{"runs": total, "failed": failed},
		"trigger_cluster_count":    flakes,
		"clusters_in_trigger_step": 1,
		"verdict":                  "flaky",
		"first_bad_sha":            nil,
		"pattern":                  "intermittent",
		"mechanism":                "ordering",
		"cause_line_contains":      "connect: connection refused",
		// The postgres service of the integration job, which has no health
		// check (.github/workflows/ci.yml).
		"producer_file":       workflowPath,
		"producer_line_range": []int{37, 45},
		"patch_expected":      true,
		"patch_files":         []string{workflowPath},
		"ci_only":             true,
	}
}

// TestGenerated checks that the checked-in scenario is what the generator
// writes, or rewrites it with UPDATE=1.
func TestGenerated(t *testing.T) {
	g, err := generate(os.DirFS(filepath.Join(dataDir, "repo")))
	if err != nil {
		t.Fatal(err)
	}
	scenariotest.GoldenDir(t, dataDir, g.files, "repo")
}

// TestPlanShape checks the history has the shape the brief asks for: 60 to
// 120 runs over about four weeks on main, a few pull-request runs, two
// failure classes on main and the trigger as the newest main run.
func TestPlanShape(t *testing.T) {
	runs := plan()
	counts := map[string]int{}
	days := map[string]bool{}
	for _, p := range runs {
		switch {
		case p.pr != nil:
			counts["pr"]++
		default:
			counts["main"]++
			counts["main-"+strconv.Itoa(int(p.outcome))]++
			days[p.created.Format(time.DateOnly)] = true
		}
	}
	if n := counts["main"]; n < 60 || n > 120 {
		t.Errorf("%d runs on main, want 60 to 120", n)
	}
	if n := counts["pr"]; n < 3 {
		t.Errorf("%d pull-request runs, want a few", n)
	}
	if counts["main-1"] != flakeRuns || counts["main-2"] != regressionRuns {
		t.Errorf("main failures: %d database, %d unit tests; want %d and %d", counts["main-1"], counts["main-2"], flakeRuns, regressionRuns)
	}
	g := &generated{runs: runs}
	if tr := g.trigger(); tr.outcome != dbNotReady {
		t.Errorf("trigger %s has outcome %d, want the database failure", tr.describe(), tr.outcome)
	}
	if len(days) < 20 {
		t.Errorf("main runs on %d days, want about four weeks", len(days))
	}
	t.Logf("%d main runs on %d days, %d pull-request runs", counts["main"], len(days), counts["pr"])
}

package worker

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polylane/polylane/analysis"
	"github.com/polylane/polylane/analysis/gha"
	"github.com/polylane/polylane/analysis/scenario"
	"github.com/polylane/polylane/store/storetest"
)

// TestDiagnosisUsesLastPassingRunAsBaseline gives the scenario's last green
// run before the trigger a log for its job (the trigger's log without its
// ##[error] lines, in a copy of the scenario in a temporary directory) and
// diagnoses the trigger through the simulator: the worker downloads that log,
// the document's cause lines are those of the analysis with it as baseline
// and name the run, and a re-run of the trigger does not download it again.
func TestDiagnosisUsesLastPassingRunAsBaseline(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(sharedScenario(t, "karmada-rollout"))); err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Load(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	trig, _ := sc.Run(sc.TriggerRunID)
	var pass gha.Run
	for _, r := range sc.Runs {
		if r.Conclusion == "success" && r.HeadBranch == trig.HeadBranch && r.CreatedAt.Before(trig.CreatedAt) && r.CreatedAt.After(pass.CreatedAt) {
			pass = r
		}
	}
	trigJob := failedJob(t, dir, trig.ID)
	passJob := jobNamed(t, dir, pass.ID, trigJob.Name)
	failLog, err := os.ReadFile(filepath.Join(dir, "logs", fmt.Sprint(trigJob.ID)+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	var passLog bytes.Buffer
	for _, l := range bytes.SplitAfter(failLog, []byte("\n")) {
		if !bytes.Contains(l, []byte("##[error]")) {
			passLog.Write(l)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "logs", fmt.Sprint(passJob.ID)+".txt"), passLog.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	base := analysis.NewBaseline()
	if err := base.Add(bytes.NewReader(passLog.Bytes())); err != nil {
		t.Fatal(err)
	}
	want, err := analysis.Analyze(bytes.NewReader(failLog), analysis.Options{Steps: trigJob.Steps, Baseline: base})
	if err != nil {
		t.Fatal(err)
	}

	r := newRig(t, storetest.Backends()[0], dir)
	ctx := testCtx(t)
	passLogPath := fmt.Sprintf("/actions/jobs/%d/logs", passJob.ID)
	downloads := func() int {
		n := 0
		for _, c := range r.sim.Calls() {
			if strings.HasSuffix(c.Path, passLogPath) {
				n++
			}
		}
		return n
	}
	if err := r.w.diagnose(ctx, r.deliver(t, trig.ID)); err != nil {
		t.Fatal(err)
	}
	if n := downloads(); n != 1 {
		t.Fatalf("the passing job's log was asked for %d times, want 1", n)
	}
	_, doc := r.storedDiagnosis(t, trig.ID, 1)
	if doc.Failure.BaselineRun != pass.ID {
		t.Errorf("baseline run %d, want %d", doc.Failure.BaselineRun, pass.ID)
	}
	var wantLines []string
	for _, l := range want.Lines {
		if l.Role == analysis.RoleCause {
			wantLines = append(wantLines, fmt.Sprintf("%d %s", l.N, l.Text))
		}
	}
	var got []string
	for _, l := range doc.Failure.Lines {
		got = append(got, fmt.Sprintf("%d %s", l.N, l.Text))
	}
	if len(wantLines) == 0 || strings.Join(got, "\n") != strings.Join(wantLines, "\n") {
		t.Errorf("cause lines:\n%s\nwant those of the analysis with the passing log as baseline:\n%s", strings.Join(got, "\n"), strings.Join(wantLines, "\n"))
	}

	attempt, err := r.sim.AddRunAttempt(r.repo, trig.ID, "failure")
	if err != nil {
		t.Fatal(err)
	}
	r.sim.ResetRecording()
	if err := r.w.diagnose(ctx, r.deliver(t, trig.ID)); err != nil {
		t.Fatal(err)
	}
	if n := downloads(); n != 0 {
		t.Errorf("a re-run asked for the passing job's log %d times, want 0 (cached)", n)
	}
	if _, doc := r.storedDiagnosis(t, trig.ID, attempt); doc.Failure.BaselineRun != pass.ID {
		t.Errorf("re-run: baseline run %d, want %d", doc.Failure.BaselineRun, pass.ID)
	}
}

// scenarioJobs reads the jobs file of a run in a scenario directory.
func scenarioJobs(t *testing.T, dir string, runID int64) []gha.Job {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "jobs", fmt.Sprint(runID)+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Jobs []gha.Job }
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	return list.Jobs
}

func failedJob(t *testing.T, dir string, runID int64) gha.Job {
	t.Helper()
	for _, j := range scenarioJobs(t, dir, runID) {
		if j.Conclusion == "failure" {
			return j
		}
	}
	t.Fatalf("run %d has no failed job", runID)
	return gha.Job{}
}

func jobNamed(t *testing.T, dir string, runID int64, name string) gha.Job {
	t.Helper()
	for _, j := range scenarioJobs(t, dir, runID) {
		if j.Name == name && j.Conclusion == "success" {
			return j
		}
	}
	t.Fatalf("run %d has no successful job %q", runID, name)
	return gha.Job{}
}

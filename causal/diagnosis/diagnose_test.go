package diagnosis

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polylane/polylane/analysis/gha"

	"github.com/polylane/polylane/analysis/scenario"
)

func loadTestScenario(t *testing.T, name string) *scenario.Scenario {
	t.Helper()
	s, err := scenario.Load(os.DirFS(filepath.Join("testdata", "scenarios", name)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// countingSource records which runs and jobs were read.
// countingSource records which runs' jobs and which jobs' logs are read.
type countingSource struct {
	*scenario.Scenario
	jobs, logs []int64
}

func (c *countingSource) Jobs(id int64) ([]gha.Job, error) {
	c.jobs = append(c.jobs, id)
	return c.Scenario.Jobs(id)
}

func (c *countingSource) OpenLog(id int64) (io.ReadCloser, error) {
	c.logs = append(c.logs, id)
	return c.Scenario.OpenLog(id)
}

func TestDiagnoseTriggerErrors(t *testing.T) {
	s := loadTestScenario(t, "regression-unit-test")
	var green, last int64
	for _, r := range s.Runs {
		if r.Conclusion == "success" && green == 0 {
			green = r.ID
		}
	}
	last = s.TriggerRunID
	inProgress := FromScenario(s, Options{})
	inProgress.Runs = append([]gha.Run(nil), s.Runs...)
	inProgress.Runs[0].Status, inProgress.Runs[0].Conclusion = "in_progress", ""
	tests := []struct {
		name string
		in   Input
		want string
	}{
		{"success", FromScenario(s, Options{RunID: green}), "did not fail"},
		{"absent", FromScenario(s, Options{RunID: 12345}), "not among"},
		{"in progress", inProgress, "has not completed"},
		{"no source", func() Input { in := FromScenario(s, Options{RunID: last}); in.Source = nil; return in }(), "no source"},
	}
	for _, tt := range tests {
		_, err := Diagnose(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

func TestDiagnoseReusesKnownOccurrencesAndIDs(t *testing.T) {
	s := loadTestScenario(t, "missing-log")
	first, err := Diagnose(FromScenario(s, Options{}))
	if err != nil {
		t.Fatal(err)
	}
	src := &countingSource{Scenario: s}
	in := FromScenario(s, Options{Previous: first.Classes})
	in.Source, in.Known = src, first.Occurrences
	again, err := Diagnose(in)
	if err != nil {
		t.Fatal(err)
	}
	// Only the trigger's failing job is read again, by the causal stage,
	// with the jobs of the last passing run, where its baseline is.
	d := first.Diagnosis
	trigger, _ := triggerRun(in)
	pass, _ := passingRun(in.Runs, trigger, in.Repository.DefaultBranch)
	for _, id := range src.jobs {
		if id != d.Run.ID && id != pass.ID {
			t.Errorf("jobs of known run %d read again", id)
		}
	}
	for _, id := range src.logs {
		if id != d.Failure.Job.ID {
			t.Errorf("log of known job %d read again", id)
		}
	}
	a, _ := json.Marshal(first.Diagnosis)
	b, _ := json.Marshal(again.Diagnosis)
	if !bytes.Equal(a, b) {
		t.Errorf("diagnosis differs when fed its own occurrences and classes:\n%s\n%s", a, b)
	}
	// A smaller window drops old runs; the trigger's class keeps its id.
	slid, err := Diagnose(FromScenario(s, Options{Window: 4, Previous: first.Classes}))
	if err != nil {
		t.Fatal(err)
	}
	if slid.Diagnosis.TriggerClass != first.Diagnosis.TriggerClass {
		t.Errorf("trigger class id %s, want %s", slid.Diagnosis.TriggerClass, first.Diagnosis.TriggerClass)
	}
	if slid.Diagnosis.Window.Runs != 4 {
		t.Errorf("window = %+v", slid.Diagnosis.Window)
	}
}

func TestDiagnoseDeterministic(t *testing.T) {
	for _, name := range []string{"matrix", "rerun-attempt", "pr-same-branch"} {
		s := loadTestScenario(t, name)
		var docs [][]byte
		for range 3 {
			out, err := Diagnose(FromScenario(s, Options{}))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(out.Diagnosis)
			docs = append(docs, b)
		}
		if !bytes.Equal(docs[0], docs[1]) || !bytes.Equal(docs[1], docs[2]) {
			t.Errorf("%s: output not deterministic", name)
		}
	}
}

func TestDiagnoseUnknownAndCancelledRuns(t *testing.T) {
	out, err := Diagnose(FromScenario(loadTestScenario(t, "missing-log"), Options{}))
	if err != nil {
		t.Fatal(err)
	}
	d := out.Diagnosis
	if d.Window.Unknown != 2 || len(d.UnknownRuns) != 2 {
		t.Errorf("unknown = %d %v, want the run without log and the run without jobs", d.Window.Unknown, d.UnknownRuns)
	}
	// The run whose log is missing failed in the step too (jobs API): it counts
	// for the step's failure rate although its class cannot be told.
	if d.FailureRate.Failures != 4 || d.FailureRate.Runs != 15 {
		t.Errorf("failure rate = %+v, want 4 failures in 15 runs", d.FailureRate)
	}
	out, err = Diagnose(FromScenario(loadTestScenario(t, "pr-same-branch"), Options{}))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range out.Diagnosis.Clusters {
		if c.Signature == sigCancelled && c.Count == 1 && c.Step == "" {
			found = true
		}
	}
	if !found || out.Diagnosis.Window.Cancelled != 1 {
		t.Errorf("cancelled run not reported: %+v", out.Diagnosis.Clusters)
	}
}

func TestDiagnoseCadence(t *testing.T) {
	out, err := Diagnose(FromScenario(loadTestScenario(t, "regression-unit-test"), Options{}))
	if err != nil {
		t.Fatal(err)
	}
	if want := "5 unit test failures in the last 29 main CI runs (2026-09-01 to 2026-09-09)"; out.Diagnosis.Cadence != want {
		t.Errorf("cadence = %q, want %q", out.Diagnosis.Cadence, want)
	}
}

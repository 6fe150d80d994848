package diagnosis

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGateJobCountsOnce: an aggregate job that fails because the job it
// needs failed is no class of its own; every failed run is counted once,
// in the needed job's class.
func TestGateJobCountsOnce(t *testing.T) {
	out, _, err := DiagnoseScenario(os.DirFS(filepath.Join("testdata", "scenarios", "gate-job")), Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := out.Diagnosis
	counted := 0
	for _, c := range d.Clusters {
		if c.Job == "all-green" {
			t.Errorf("the gate job is a class of its own: %+v", c)
		}
		counted += c.Count
	}
	if counted != d.Window.Failed {
		t.Errorf("the classes count %d runs, the window has %d failed runs", counted, d.Window.Failed)
	}
	if d.Failure.Job.Name != "build" {
		t.Errorf("trigger job = %q, want build", d.Failure.Job.Name)
	}
}

package worker

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
)

// sweepSource is the in-repository scenario the sweep's is cut from: a
// default-branch failure with a harness patch (a test retry), and a
// pull-request failure.
var sweepSource = filepath.Join("..", "..", "causal", "diagnosis", "testdata", "scenarios", "rs-go-gotestsum-flake")

// sweepKeepRuns is how many of the newest runs the sweep's scenario keeps,
// besides every pull-request run. A longer history only repeats the calls
// of a failed run (its jobs, its log) at more call indexes, and each case
// pays for a diagnosis of the whole window.
const sweepKeepRuns = 16

// cutScenario writes to a temporary directory the scenario at src with its
// newest keep runs and every pull-request run (their jobs and logs, the
// repository tree, scenario.json), and returns the directory.
func cutScenario(t testing.TB, src string, keep int) string {
	t.Helper()
	var runs struct {
		Runs []json.RawMessage `json:"workflow_runs"`
	}
	readJSON(t, filepath.Join(src, "runs.json"), &runs)
	type head struct {
		ID        int64  `json:"id"`
		Event     string `json:"event"`
		CreatedAt string `json:"created_at"`
	}
	heads := make([]head, len(runs.Runs))
	for i, raw := range runs.Runs {
		if err := json.Unmarshal(raw, &heads[i]); err != nil {
			t.Fatal(err)
		}
	}
	order := make([]int, len(heads))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return heads[order[i]].CreatedAt > heads[order[j]].CreatedAt })
	kept := map[int]bool{}
	for n, i := range order {
		if n < keep || heads[i].Event == "pull_request" {
			kept[i] = true
		}
	}
	dst := t.TempDir()
	var out []json.RawMessage
	for i, raw := range runs.Runs {
		if !kept[i] {
			continue
		}
		out = append(out, raw)
		copyRunFiles(t, src, dst, heads[i].ID)
	}
	writeJSON(t, filepath.Join(dst, "runs.json"), map[string]any{"total_count": len(out), "workflow_runs": out})
	copyFile(t, filepath.Join(src, "scenario.json"), filepath.Join(dst, "scenario.json"))
	err := filepath.WalkDir(filepath.Join(src, "repo"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		copyFile(t, p, filepath.Join(dst, rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// copyRunFiles copies a run's jobs and their logs, when the scenario has
// them.
func copyRunFiles(t testing.TB, src, dst string, runID int64) {
	t.Helper()
	name := filepath.Join("jobs", jsonName(runID))
	if _, err := os.Stat(filepath.Join(src, name)); err != nil {
		return
	}
	copyFile(t, filepath.Join(src, name), filepath.Join(dst, name))
	var jobs struct {
		Jobs []struct {
			ID int64 `json:"id"`
		} `json:"jobs"`
	}
	readJSON(t, filepath.Join(src, name), &jobs)
	for _, j := range jobs.Jobs {
		log := filepath.Join("logs", strconv.FormatInt(j.ID, 10)+".txt")
		if _, err := os.Stat(filepath.Join(src, log)); err == nil {
			copyFile(t, filepath.Join(src, log), filepath.Join(dst, log))
		}
	}
}

func jsonName(id int64) string { return strconv.FormatInt(id, 10) + ".json" }

func readJSON(t testing.TB, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func writeJSON(t testing.TB, path string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, info.Mode().Perm()); err != nil {
		t.Fatal(err)
	}
}

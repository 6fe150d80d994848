package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/polylane/polylane/analysis/scenario"
	"github.com/polylane/polylane/causal/diagnosis"
	"github.com/polylane/polylane/server/githubtest"
)

// tinyCIScenario writes the simulator's tiny scenario into a temporary
// directory with the runs of its CI workflow only (the capture lists one
// workflow), and returns it.
func tinyCIScenario(t *testing.T) string {
	t.Helper()
	src := filepath.Join("..", "..", "server", "githubtest", "testdata", "tiny")
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if rel == "runs.json" {
			var doc struct {
				Runs []map[string]any `json:"workflow_runs"`
			}
			if err := json.Unmarshal(data, &doc); err != nil {
				return err
			}
			var keep []map[string]any
			for _, r := range doc.Runs {
				if r["workflow_id"].(float64) == 500 {
					keep = append(keep, r)
				}
			}
			data, _ = json.MarshalIndent(map[string]any{"total_count": len(keep), "workflow_runs": keep}, "", "  ")
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// runCaptureCmd runs polylane capture in-process.
func runCaptureCmd(ctx context.Context, env map[string]string, args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := runMain(ctx, append([]string{"capture"}, args...), nil, &stdout, &stderr, func(k string) string { return env[k] })
	return code, stdout.String(), stderr.String()
}

// appEnv are the app credentials of a simulator.
func appEnv(sim *githubtest.Server) map[string]string {
	return map[string]string{"POLYLANE_GITHUB_APP_ID": strconv.FormatInt(sim.AppID(), 10),
		"POLYLANE_GITHUB_PRIVATE_KEY": string(sim.PrivateKeyPEM()), "POLYLANE_GITHUB_API_URL": sim.APIURL()}
}

// required lists the files of a scenario that a capture must reproduce
// (contracts.md §1): scenario.json, runs.json, the jobs of every completed
// run that did not succeed and the logs of their failed jobs. A scenario
// may hold more (jobs of green runs); a capture need not.
func required(t *testing.T, dir string) []string {
	t.Helper()
	var runs struct {
		Runs []capturedRun `json:"workflow_runs"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "runs.json"))
	if err != nil || json.Unmarshal(data, &runs) != nil {
		t.Fatalf("runs.json of %s: %v", dir, err)
	}
	want := []string{"scenario.json", "runs.json"}
	for _, r := range runs.Runs {
		if r.Status != "completed" || r.Conclusion == "success" {
			continue
		}
		name := filepath.Join("jobs", strconv.FormatInt(r.ID, 10)+".json")
		want = append(want, name)
		var jobs struct {
			Jobs []capturedJob `json:"jobs"`
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || json.Unmarshal(data, &jobs) != nil {
			t.Fatalf("%s of %s: %v", name, dir, err)
		}
		for _, j := range jobs.Jobs {
			if j.Conclusion == "failure" {
				want = append(want, filepath.Join("logs", strconv.FormatInt(j.ID, 10)+".txt"))
			}
		}
	}
	return want
}

// compareScenarios checks that a capture reproduces the scenario served:
// the required files and every other captured file equal to the source's
// (JSON after normalising key order, the rest byte for byte), repository
// files included. It returns the captured repository files.
func compareScenarios(t *testing.T, src, got string) []string {
	t.Helper()
	want := required(t, src)
	for _, rel := range want {
		a, err := os.ReadFile(filepath.Join(src, rel))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(got, rel))
		if err != nil {
			t.Errorf("%s was not captured: %v", rel, err)
			continue
		}
		if strings.HasSuffix(rel, ".json") {
			var x, y any
			if err := json.Unmarshal(a, &x); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &y); err != nil {
				t.Fatalf("%s: %v", rel, err)
			}
			if !reflect.DeepEqual(x, y) {
				t.Errorf("%s differs from the scenario served", rel)
			}
		} else if !bytes.Equal(a, b) {
			t.Errorf("%s differs from the scenario served", rel)
		}
	}
	var captured []string
	_ = filepath.WalkDir(filepath.Join(got, "repo"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(filepath.Join(got, "repo"), p)
			captured = append(captured, filepath.ToSlash(rel))
			a, err := os.ReadFile(filepath.Join(src, "repo", rel))
			b, _ := os.ReadFile(p)
			if err != nil || !bytes.Equal(a, b) {
				t.Errorf("repo/%s is not byte-equal to the source (%v)", rel, err)
			}
		}
		return nil
	})
	var extra []string
	_ = filepath.WalkDir(got, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(got, p)
		if err == nil && !d.IsDir() && !strings.HasPrefix(rel, "repo") && !contains(want, rel) {
			extra = append(extra, rel)
		}
		return nil
	})
	if len(extra) > 0 {
		t.Errorf("files the contract does not ask for: %v", extra)
	}
	sort.Strings(captured)
	return captured
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// captureRig serves the tiny CI scenario (src) from a simulator and names
// an empty directory to capture into (out).
func captureRig(t *testing.T) (src string, sim *githubtest.Server, out string) {
	t.Helper()
	src = tinyCIScenario(t)
	sim, err := githubtest.Start(githubtest.Options{Scenarios: []string{src}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	return src, sim, filepath.Join(t.TempDir(), "captured")
}

// TestCaptureRoundTrip captures the scenario the simulator serves, with
// the app's credentials, and compares; then resumes an interrupted capture
// with a token: only the missing files are fetched, leftovers are removed.
func TestCaptureRoundTrip(t *testing.T) {
	src, sim, out := captureRig(t)
	ctx := context.Background()
	code, stdout, stderr := runCaptureCmd(ctx, appEnv(sim), "acme/widget", "--workflow", ".github/workflows/ci.yml", "-n", "100", "--out", out)
	if code != exitOK {
		t.Fatalf("capture exited %d:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "captured acme/widget: 6 runs, 3 job lists, 3 logs") || !strings.Contains(stderr, "capture: logs: 3/3 done") {
		t.Errorf("output:\n%s\n%s", stdout, stderr)
	}
	files := compareScenarios(t, src, out)
	for _, want := range []string{".github/workflows/ci.yml", "Taskfile.yaml", "scripts/e2e.sh"} {
		if !contains(files, want) {
			t.Errorf("repo/%s was not captured (captured %v)", want, files)
		}
	}
	if contains(files, "README.md") {
		t.Error("repo/README.md, which no harness reads, was captured")
	}

	// An interruption left one log and one job list missing and a partial file.
	if err := os.Remove(filepath.Join(out, "logs", "19005.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(out, "jobs", "9003.json")); err != nil {
		t.Fatal(err)
	}
	partial := filepath.Join(out, "logs", "19003.txt"+tempMark+"123")
	if err := os.WriteFile(partial, []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	sim.ResetRecording()
	env := map[string]string{"GITHUB_TOKEN": sim.UserToken("octocat"), "POLYLANE_GITHUB_API_URL": sim.APIURL()}
	code, _, stderr = runCaptureCmd(ctx, env, "--out", out, "acme/widget", "--workflow", "ci.yml", "--installation-id", "77")
	if code != exitOK {
		t.Fatalf("resumed capture exited %d:\n%s", code, stderr)
	}
	compareScenarios(t, src, out)
	if _, err := os.Stat(partial); !os.IsNotExist(err) {
		t.Error("the partial file of the interrupted capture is still there")
	}
	var jobLists, logs, listings int
	for _, c := range sim.Calls() {
		switch {
		case strings.HasSuffix(c.Path, "/jobs"):
			jobLists++
		case strings.HasSuffix(c.Path, "/logs"):
			logs++
		case strings.HasSuffix(c.Path, "/runs"):
			listings++
		}
	}
	if jobLists != 1 || logs != 1 || listings != 0 {
		t.Errorf("the resumed capture fetched %d job lists, %d logs and %d run listings, want 1, 1 and 0", jobLists, logs, listings)
	}
	if !strings.Contains(stderr, "already captured") {
		t.Errorf("stderr does not say what was kept:\n%s", stderr)
	}
}

// TestCaptureFailuresAndLimits: a server failing every log download stops
// the capture (exit 1, nothing half-written), which then resumes; a rate
// limit is waited out; bad flags and missing credentials exit 2.
func TestCaptureFailuresAndLimits(t *testing.T) {
	src, sim, out := captureRig(t)
	ctx := context.Background()
	sim.InjectFault(githubtest.Fault{Kind: githubtest.FaultServerError, Target: githubtest.KindBlob, Times: -1})
	code, _, stderr := runCaptureCmd(ctx, appEnv(sim), "acme/widget", "--workflow", "ci.yml", "--out", out)
	if code != exitFailure || !strings.Contains(stderr, "run the same command again to resume") {
		t.Fatalf("capture with failing downloads exited %d:\n%s", code, stderr)
	}
	if entries, _ := os.ReadDir(filepath.Join(out, "logs")); len(entries) != 0 {
		t.Fatalf("%d files in logs/ after failed downloads", len(entries))
	}
	sim.ResetFaults()
	sim.InjectFault(githubtest.Fault{Kind: githubtest.FaultTooManyRequests, Path: "/repos/*/*/actions/jobs/*/logs", RetryAfter: time.Second})
	start := time.Now()
	code, _, stderr = runCaptureCmd(ctx, appEnv(sim), "acme/widget", "--workflow", "ci.yml", "--out", out)
	if code != exitOK {
		t.Fatalf("resumed capture exited %d:\n%s", code, stderr)
	}
	if took := time.Since(start); took < time.Second {
		t.Errorf("the 429's Retry-After of 1s was not waited out (%s)", took)
	}
	compareScenarios(t, src, out)

	for _, tc := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{appEnv(sim), []string{"--workflow", "ci.yml", "--out", out}, "exactly one OWNER/REPO"},
		{appEnv(sim), []string{"acme", "--workflow", "ci.yml", "--out", out}, "not OWNER/REPO"},
		{appEnv(sim), []string{"acme/widget", "--out", out}, "--workflow is required"},
		{appEnv(sim), []string{"acme/widget", "--workflow", "ci.yml", "-n", "0", "--out", out}, "-n 0"},
		{map[string]string{}, []string{"acme/widget", "--workflow", "ci.yml", "--out", out}, "no credentials"},
	} {
		code, _, stderr := runCaptureCmd(ctx, tc.env, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q", tc.args, code, stderr)
		}
	}
}

// TestCaptureSharedScenario captures real-sized scenarios (read in place
// from ../shared/scenarios), compares, and diagnoses the capture offline:
// it gives the diagnosis the original gives.
func TestCaptureSharedScenario(t *testing.T) {
	for _, name := range []string{"karmada-rollout", "npm-registry-flake"} {
		t.Run(name, func(t *testing.T) { captureShared(t, name) })
	}
}

func captureShared(t *testing.T, name string) {
	src := sharedScenarioDir(t, name)
	sim, err := githubtest.Start(githubtest.Options{Scenarios: []string{src}})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	sc, err := scenario.Load(os.DirFS(src))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "captured")
	start := time.Now()
	code, stdout, stderr := runCaptureCmd(context.Background(), appEnv(sim), sc.Repository.FullName, "--workflow", sc.Workflow.Path, "-n", "500", "--out", out)
	if code != exitOK {
		t.Fatalf("capture exited %d:\n%s", code, stderr)
	}
	t.Logf("%s in %s", strings.TrimSpace(stdout), time.Since(start).Round(time.Millisecond))
	files := compareScenarios(t, src, out)
	if !contains(files, sc.Workflow.Path) {
		t.Errorf("the workflow file was not captured (captured %v)", files)
	}
	t.Logf("repository files: %v", files)
	// Offline, the capture gives the diagnosis the original gives.
	a, _, err := diagnosis.DiagnoseScenario(os.DirFS(src), diagnosis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := diagnosis.DiagnoseScenario(os.DirFS(out), diagnosis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []struct {
		name string
		x, y any
	}{{"verdict", a.Diagnosis.Verdict, b.Diagnosis.Verdict}, {"chain", a.Diagnosis.Chain, b.Diagnosis.Chain},
		{"patch", a.Diagnosis.Patch, b.Diagnosis.Patch}, {"impact", a.Diagnosis.Impact, b.Diagnosis.Impact}} {
		if !reflect.DeepEqual(part.x, part.y) {
			x, _ := json.Marshal(part.x)
			y, _ := json.Marshal(part.y)
			t.Errorf("the capture's %s differs:\n original %s\n captured %s", part.name, x, y)
		}
	}
}

// TestProgressPlainLines: without a terminal, progress is a few plain
// lines, not a redrawn bar.
func TestProgressPlainLines(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf)
	p.start("logs", 1000)
	for range 1000 {
		p.step()
	}
	p.finish("3 already captured")
	out := buf.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if strings.Contains(out, "\r") || len(lines) < 3 || len(lines) > 12 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	if last := lines[len(lines)-1]; last != "capture: logs: 1000/1000 done (3 already captured)" {
		t.Fatalf("last line %q", last)
	}
}

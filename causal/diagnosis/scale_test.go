package diagnosis

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// BenchmarkDiagnoseScale diagnoses generated histories of 100, 1,000 and
// 10,000 runs (20% failed, failure logs of 400 to 700 lines, window = the
// whole history) through the CLI's code path, and reports the time, the peak
// heap in use (sampled) and the process's peak RSS for each size. Run it on
// one core:
//
//	go test ./causal/diagnosis -run '^$' -bench DiagnoseScale -benchtime 1x -cpu 1
func BenchmarkDiagnoseScale(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		dir := b.TempDir()
		start := time.Now()
		files, failed := writeHistory(b, dir, n)
		b.Logf("generated %d runs (%d failed, %d files) in %v", n, failed, files, time.Since(start).Round(time.Millisecond))
		b.Run(fmt.Sprintf("runs=%d", n), func(b *testing.B) {
			for b.Loop() {
				runtime.GC()
				stop := sampleHeap()
				t0 := time.Now()
				out, _, err := DiagnoseScenario(os.DirFS(dir), Options{Window: n})
				elapsed := time.Since(t0)
				peak := stop()
				if err != nil {
					b.Fatal(err)
				}
				d := out.Diagnosis
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
				b.ReportMetric(float64(maxRSS())/(1<<20), "max-rss-MB")
				b.Logf("runs=%d failed=%d classes=%d trigger=%q: %v, peak heap %.1f MB, max RSS %.1f MB (GOMAXPROCS=%d)",
					d.Window.Runs, d.Window.Failed, len(d.Clusters), d.Clusters[0].Step, elapsed.Round(time.Millisecond),
					float64(peak)/(1<<20), float64(maxRSS())/(1<<20), runtime.GOMAXPROCS(0))
			}
		})
	}
}

// sampleHeap samples the live heap every 2 ms until the returned function is
// called, which reports the highest value seen.
func sampleHeap() func() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	var mu sync.Mutex
	peak := read()
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				v := read()
				mu.Lock()
				peak = max(peak, v)
				mu.Unlock()
			}
		}
	}()
	return func() uint64 {
		v := read()
		close(done)
		<-finished
		mu.Lock()
		defer mu.Unlock()
		return max(peak, v)
	}
}

func maxRSS() uint64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return uint64(ru.Maxrss) * 1024
}

// scaleFailure kinds of the generated history.
var scaleSteps = []string{"Download modules", "Build", "Unit tests", "Deploy preview"}

// writeHistory writes a scenario of n runs into dir and returns the number of
// files written and of failed runs. 20% of the runs fail: half in the network
// (three wordings against one registry), a quarter in one of 20 tests, the
// rest as rollout timeouts with random pod names or as unique panics.
func writeHistory(tb testing.TB, dir string, n int) (files, failed int) {
	tb.Helper()
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	for _, sub := range []string{"jobs", "logs", "repo"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	runs := make([]map[string]any, 0, n)
	for i := 0; i < n; i++ {
		id := int64(9000000 + i)
		conclusion := "success"
		if rng.IntN(5) == 0 || i == n-1 {
			conclusion = "failure"
			failed++
			step, lines := scaleFailure(rng)
			writeJSON(tb, filepath.Join(dir, "jobs", fmt.Sprintf("%d.json", id)), scaleJobs(id, step))
			writeScaleLog(tb, filepath.Join(dir, "logs", fmt.Sprintf("%d.txt", id*10)), rng, step, lines)
			files += 2
		}
		at := base.Add(time.Duration(i) * 37 * time.Minute)
		runs = append(runs, map[string]any{"id": id, "name": "CI", "run_number": i + 1, "run_attempt": 1, "workflow_id": 1,
			"path": ".github/workflows/ci.yml", "head_sha": fmt.Sprintf("%040x", id), "head_branch": "main", "event": "push",
			"status": "completed", "conclusion": conclusion, "created_at": at.Format(time.RFC3339),
			"html_url": fmt.Sprintf("https://github.com/acme/big/actions/runs/%d", id)})
	}
	for i, j := 0, len(runs)-1; i < j; i, j = i+1, j-1 {
		runs[i], runs[j] = runs[j], runs[i]
	}
	writeJSON(tb, filepath.Join(dir, "runs.json"), map[string]any{"total_count": n, "workflow_runs": runs})
	writeJSON(tb, filepath.Join(dir, "scenario.json"), map[string]any{"schema": "polylane.scenario/v1",
		"repository": map[string]any{"id": 1, "name": "big", "full_name": "acme/big", "default_branch": "main"},
		"workflow":   map[string]any{"id": 1, "name": "CI", "path": ".github/workflows/ci.yml"}, "trigger_run_id": 9000000 + n - 1})
	return files + 2, failed
}

// scaleFailure picks the failing step and the lines printed before the error.
func scaleFailure(rng *rand.Rand) (int, []string) {
	port := 30000 + rng.IntN(30000)
	switch k := rng.IntN(20); {
	case k < 10:
		tail := []string{"read: connection reset by peer", "i/o timeout", "EOF"}[k%3]
		return 0, []string{fmt.Sprintf(`go: github.com/acme/m%d@v1.0.%d: Get "https://proxy.example.com/github.com/acme/m%d/@v/v1.0.%d.zip": read tcp 10.0.0.%d:%d->203.0.113.7:443: %s`, k, rng.IntN(50), k, rng.IntN(50), rng.IntN(250), port, tail),
			"make: *** [Makefile:5: deps] Error 1"}
	case k < 15:
		test := fmt.Sprintf("TestFeature%02d", rng.IntN(20))
		return 2, []string{"=== RUN   " + test, fmt.Sprintf("    feature_test.go:%d: %s: got %d, want %d", 10+rng.IntN(200), test, rng.IntN(9), 9+rng.IntN(9)),
			fmt.Sprintf("--- FAIL: %s (%d.%02ds)", test, rng.IntN(3), rng.IntN(100)), "FAIL", "make: *** [Makefile:12: test] Error 1"}
	case k < 19:
		return 3, []string{fmt.Sprintf("Waiting for deployment \"web\" rollout to finish: pod web-%x-%05x not ready", rng.Uint32(), rng.IntN(1<<20)),
			"error: timed out waiting for the condition", "make: *** [Makefile:20: deploy] Error 1"}
	default:
		word := []string{"amber", "brisk", "cobalt", "dune", "ember", "fjord", "gale", "haze"}
		return 1, []string{fmt.Sprintf("panic: inconsistent state %s-%s-%s in reconciler", word[rng.IntN(8)], word[rng.IntN(8)], word[rng.IntN(8)]),
			"goroutine 1 [running]:", "main.main()", "\t/src/main.go:12 +0x1d", "make: *** [Makefile:8: build] Error 2"}
	}
}

func scaleJobs(runID int64, failing int) map[string]any {
	steps := []any{map[string]any{"number": 1, "name": "Set up job", "status": "completed", "conclusion": "success"}}
	for i, s := range scaleSteps {
		c := "success"
		switch {
		case i == failing:
			c = "failure"
		case i > failing:
			c = "skipped"
		}
		steps = append(steps, map[string]any{"number": i + 2, "name": s, "status": "completed", "conclusion": c})
	}
	return map[string]any{"total_count": 1, "jobs": []any{map[string]any{"id": runID * 10, "run_id": runID, "run_attempt": 1,
		"name": "ci", "status": "completed", "conclusion": "failure", "steps": steps}}}
}

// writeScaleLog writes a raw job log of 400 to 700 lines failing in step.
func writeScaleLog(tb testing.TB, path string, rng *rand.Rand, failing int, failure []string) {
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	t := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	line := func(s string) {
		t = t.Add(time.Duration(rng.IntN(400)) * time.Millisecond)
		w.WriteString(t.Format("2006-01-02T15:04:05.0000000Z"))
		w.WriteByte(' ')
		w.WriteString(s)
		w.WriteByte('\n')
	}
	w.WriteString("\ufeff")
	line("Current runner version: '2.320.0'")
	budget := 380 + rng.IntN(300)
	for i, s := range scaleSteps[:failing+1] {
		line("##[group]Run make " + strings.ToLower(strings.Fields(s)[0]))
		line("\x1b[36;1mmake " + strings.ToLower(strings.Fields(s)[0]) + "\x1b[0m")
		line("##[endgroup]")
		share := budget / (failing + 1)
		for j := 0; j < share; j++ {
			switch i {
			case 0:
				line(fmt.Sprintf("go: downloading github.com/acme/dep%d v1.%d.%d", j, rng.IntN(9), rng.IntN(30)))
			case 2:
				line(fmt.Sprintf("--- PASS: TestCase%03d (0.%02ds)", j, rng.IntN(100)))
			default:
				line(fmt.Sprintf("[%s] step %d: processed %d objects in %dms", strings.ToLower(s), j, rng.IntN(5000), rng.IntN(900)))
			}
		}
	}
	for _, l := range failure {
		line(l)
	}
	line("##[error]Process completed with exit code 2.")
	line("Post job cleanup.")
	line("Cleaning up orphan processes")
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

func writeJSON(tb testing.TB, path string, v any) {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		tb.Fatal(err)
	}
}

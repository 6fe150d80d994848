package accuracy

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// TestPeakRSS builds `polylane analyze`, generates a 1 GB GitHub Actions job
// log in a temporary directory (from the scenario logs read in place, with
// varying numbers), runs the binary on it and reports the peak resident set
// size from the kernel's rusage (ru_maxrss). The log is deleted afterwards.
// Run it with POLYLANE_RSS=1; POLYLANE_RSS_MB sets the size (default 1024).
func TestPeakRSS(t *testing.T) {
	if os.Getenv("POLYLANE_RSS") != "1" {
		t.Skip("set POLYLANE_RSS=1 to measure peak RSS on a generated 1 GB log")
	}
	shared := sharedDir(t)
	size := int64(1024)
	if v := os.Getenv("POLYLANE_RSS_MB"); v != "" {
		fmt.Sscan(v, &size)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "polylane")
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	build := exec.Command("go", "build", "-o", bin, "./cmd/polylane")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build polylane: %v\n%s", err, out)
	}
	logPath := filepath.Join(dir, "big.log")
	lines := generateLog(t, logPath, size<<20, filepath.Join(shared, "scenarios", "karmada-rollout", "logs", "54649888023.txt"))
	cmd := exec.Command(bin, "analyze", logPath, "--json")
	cmd.Stdout = nil
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("polylane analyze: %v", err)
	}
	elapsed := time.Since(start)
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Fatal("no rusage on this platform")
	}
	rssMB := float64(ru.Maxrss) / 1024 // ru_maxrss is in KiB on Linux
	t.Logf("\n| measure | value | target |\n|---|---|---|\n| peak RSS of `polylane analyze` on a %d MB log (%d lines), ru_maxrss | %.1f MB | < 100 MB |\n| wall time, lines/s (GOMAXPROCS unset) | %.1f s, %.0f lines/s | |",
		size, lines, rssMB, elapsed.Seconds(), float64(lines)/elapsed.Seconds())
	if rssMB >= 100 {
		t.Errorf("peak RSS %.1f MB, want < 100 MB", rssMB)
	}
}

// generateLog writes about size bytes by repeating the template log's lines
// with a changing counter, and returns the number of lines written.
func generateLog(t *testing.T, path string, size int64, template string) int {
	src, err := os.ReadFile(template)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	var written int64
	lines := 0
	for round := 0; written < size; round++ {
		start := 0
		for i, c := range src {
			if c != '\n' {
				continue
			}
			line := src[start:i]
			start = i + 1
			// markers stay intact; other lines get a varying suffix
			var n int
			if bytes.Contains(line, []byte("##[")) || bytes.HasSuffix(line, []byte("Post job cleanup.")) || bytes.HasSuffix(line, []byte("Cleaning up orphan processes")) {
				n, _ = fmt.Fprintf(w, "%s\n", line)
			} else {
				n, _ = fmt.Fprintf(w, "%s (%d)\n", line, round)
			}
			written += int64(n)
			lines++
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return lines
}

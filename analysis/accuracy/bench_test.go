package accuracy

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/polylane/polylane/analysis"
)

// BenchmarkAnalyzeLogChunks runs Analyze end to end over every LogChunks
// development log held in memory and reports lines/s and MB/s. Run it on one
// core with GOMAXPROCS=1.
func BenchmarkAnalyzeLogChunks(b *testing.B) {
	dir := logChunksDir(b, sharedDir(b))
	var logs [][]byte
	var lines, size int
	err := filepath.WalkDir(filepath.Join(dir, "logs"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		logs = append(logs, data)
		lines += bytes.Count(data, []byte{'\n'})
		size += len(data)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, data := range logs {
			if _, err := analysis.Analyze(bytes.NewReader(data), analysis.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(lines)*float64(b.N)/sec, "lines/s")
	b.ReportMetric(float64(len(logs)), "logs")
}

// BenchmarkAnalyzeRealLines measures what issue 21 asks of the analysis on
// real lines: the LogChunks development logs concatenated into one file
// (real Travis output), analysed as one log the way `polylane analyze`
// reads a file, on one core (run it with GOMAXPROCS=1). It reports the CPU
// time of the best of three passes, lines per CPU second, and the ratio to
// the CPU time of one `grep -c -i error` pass over the same file (best of
// five; grep's output goes to a file, since GNU grep stops at the first
// match when it writes to /dev/null).
func BenchmarkAnalyzeRealLines(b *testing.B) {
	dir := logChunksDir(b, sharedDir(b))
	path := filepath.Join(b.TempDir(), "logchunks.log")
	out, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	var names []string
	err = filepath.WalkDir(filepath.Join(dir, "logs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	sort.Strings(names)
	lines := 0
	for _, p := range names {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		if len(data) > 0 && data[len(data)-1] != '\n' {
			data = append(data, '\n')
		}
		lines += bytes.Count(data, []byte{'\n'})
		if _, err := out.Write(data); err != nil {
			b.Fatal(err)
		}
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
	grep := math.Inf(1)
	for range 5 {
		sink, err := os.Create(filepath.Join(b.TempDir(), "count"))
		if err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command("grep", "-c", "-i", "error", path)
		cmd.Stdout = sink
		if err := cmd.Run(); err != nil {
			b.Skipf("grep: %v", err)
		}
		sink.Close()
		grep = min(grep, (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds())
	}
	b.ResetTimer()
	best := math.Inf(1)
	for i := 0; i < b.N; i++ {
		for range 3 {
			runtime.GC()
			before := cpuTime(b)
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := analysis.Analyze(f, analysis.Options{}); err != nil {
				b.Fatal(err)
			}
			f.Close()
			best = min(best, cpuTime(b)-before)
		}
	}
	b.ReportMetric(best, "cpu-s")
	b.ReportMetric(float64(lines)/best, "lines/cpu-s")
	b.ReportMetric(grep, "grep-cpu-s")
	b.ReportMetric(best/grep, "x-grep")
	b.ReportMetric(float64(lines), "lines")
}

// cpuTime is the process's user and system CPU seconds so far.
func cpuTime(b *testing.B) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

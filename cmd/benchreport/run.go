package benchreport

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// Step is one `go test` run of the report.
type Step struct {
	Name string   // key of its output
	Args []string // after "go test"
	Env  []string // KEY=VALUE added to the environment
}

// Steps are the benchmarks the report reads, in the order they run.
var Steps = []Step{
	{Name: "burst", Args: []string{"./server/webhook", "-run", "^$", "-bench", "WebhookLoad", "-benchtime", "1x"}},
	{Name: "webhook", Args: []string{"./cmd/polylane", "-run", "^$", "-bench", "WebhookIngest", "-benchtime", "1x"}},
	{Name: "loop", Args: []string{"./cmd/polylane", "-run", "^$", "-bench", "DeliveryToComment|PullRequestDiagnosis|RangeDiagnosis", "-benchtime", "1x"}},
	{Name: "diagnose", Args: []string{"./causal/diagnosis", "-run", "^$", "-bench", "DiagnoseScale", "-benchtime", "1x", "-cpu", "1"},
		Env: []string{"GOMAXPROCS=1"}},
	{Name: "dashboard", Args: []string{"./server/dashboard", "-run", "^$", "-bench", "Pages", "-benchtime", "1x"}},
	{Name: "analysis", Args: []string{"./analysis", "-run", "^$", "-bench", ".", "-benchtime", "1s", "-benchmem"},
		Env: []string{"GOMAXPROCS=1"}},
	{Name: "chunks", Args: []string{"./analysis/accuracy", "-run", "^$", "-bench", "AnalyzeLogChunks|AnalyzeRealLines", "-benchtime", "1x"},
		Env: []string{"GOMAXPROCS=1"}},
	{Name: "rss", Args: []string{"./analysis/accuracy", "-run", "TestPeakRSS", "-count", "1", "-v"}, Env: []string{"POLYLANE_RSS=1"}},
	{Name: "cluster", Args: []string{"./analysis/history", "-run", "^$", "-bench", "ClusterDistinct", "-benchtime", "1x", "-cpu", "1"},
		Env: []string{"GOMAXPROCS=1"}},
}

// Run runs one step in the module at root, copying its output to log as it
// comes, and parses it. A step that fails still returns what it printed.
func Run(ctx context.Context, root string, s Step, log io.Writer) (Output, error) {
	args := append([]string{"test", "-timeout", "60m"}, s.Args...)
	cmd := exec.CommandContext(ctx, goTool(), args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), s.Env...)
	var buf bytes.Buffer
	w := io.MultiWriter(&buf, log)
	cmd.Stdout, cmd.Stderr = w, w
	start := time.Now()
	err := cmd.Run()
	fmt.Fprintf(log, "# %s: go %s (%s)\n", s.Name, strings.Join(args, " "), time.Since(start).Round(time.Second))
	out, perr := Parse(&buf)
	if err == nil {
		err = perr
	}
	if err != nil {
		return out, fmt.Errorf("%s: go %s: %w", s.Name, strings.Join(args, " "), err)
	}
	return out, nil
}

// goTool is the go command that runs the report ("go" from PATH, as the
// Makefile's $(GO) is).
func goTool() string {
	if p := os.Getenv("GO"); p != "" {
		return p
	}
	return "go"
}

// Machine describes where the report ran: cores, CPU model, memory, load
// and Go version.
func Machine() string {
	model := firstField("/proc/cpuinfo", "model name")
	mem := firstField("/proc/meminfo", "MemTotal")
	var kb float64
	if _, err := fmt.Sscanf(mem, "%f kB", &kb); err == nil {
		mem = fmt.Sprintf("%.1f GiB", kb/(1<<20))
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fields := strings.Fields(string(load))
	if len(fields) > 3 {
		fields = fields[:3]
	}
	return fmt.Sprintf("%d cores (%s), %s RAM, load %s, %s %s/%s", runtime.NumCPU(), orUnknown(model),
		orUnknown(mem), orUnknown(strings.Join(fields, " ")), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// firstField returns the value of the first "key: value" line of a file.
func firstField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

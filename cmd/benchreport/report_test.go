package benchreport

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReport runs every step and prints the table. It runs only when
// POLYLANE_BENCH_REPORT names the file to write the table to (also
// printed); the benchmarks' own output goes to that file with ".log"
// appended. POLYLANE_BENCH_STEPS=webhook,loop runs some steps only.
func TestReport(t *testing.T) {
	path := os.Getenv("POLYLANE_BENCH_REPORT")
	if path == "" {
		t.Skip("set POLYLANE_BENCH_REPORT=FILE to run the benchmarks and write their table (make bench)")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(root, path)
	}
	logFile, err := os.Create(path + ".log")
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	only := map[string]bool{}
	for _, s := range strings.Split(os.Getenv("POLYLANE_BENCH_STEPS"), ",") {
		if s != "" {
			only[s] = true
		}
	}
	machine := Machine()
	outs := Outputs{}
	var failed []string
	start := time.Now()
	for _, s := range Steps {
		if len(only) > 0 && !only[s.Name] {
			continue
		}
		out, err := Run(context.Background(), root, s, logFile)
		outs[s.Name] = out
		if err != nil {
			failed = append(failed, err.Error())
		}
	}
	table := fmt.Sprintf("Benchmarks of %s on %s; %s in all (details: %s).\n\n%s",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), machine, time.Since(start).Round(time.Second),
		filepath.Base(path)+".log", Render(Rows(outs)))
	if err := os.WriteFile(path, []byte(table), 0o644); err != nil {
		t.Fatal(err)
	}
	fmt.Println(table)
	for _, f := range failed {
		t.Errorf("step failed (see %s.log): %s", path, f)
	}
}

package benchreport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polylane/polylane/analysis/scenario/scenariotest"
)

func parseFile(t *testing.T, name string) Output {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestParse reads benchmark lines, logged table rows and dashboard lines.
func TestParse(t *testing.T) {
	tests := []struct {
		file, name, unit string
		want             float64
	}{
		{"webhook.txt", "BenchmarkWebhookIngest/db=postgres/senders=200", "p99-ms", 95.74},
		{"burst.txt", "BenchmarkWebhookLoad/no-store", "p99-ms", 17.90},
		{"webhook.txt", "BenchmarkWebhookIngestRate/db=sqlite/rate=2000/conns=200", "deliveries/s", 1999},
		{"loop.txt", "BenchmarkDeliveryToComment/db=postgres", "warm-api-calls", 4},
		{"diagnose.txt", "BenchmarkDiagnoseScale/runs=10000", "ns/op", 5012345678},
		{"analysis.txt", "BenchmarkScanner", "MB/s", 120.5},
	}
	for _, tc := range tests {
		got, ok := parseFile(t, tc.file).Metric(tc.name, tc.unit)
		if !ok || got != tc.want {
			t.Errorf("%s %s %s = %v (%v), want %v", tc.file, tc.name, tc.unit, got, ok, tc.want)
		}
	}
	if row, ok := parseFile(t, "rss.txt").Row("peak RSS"); !ok || row[1] != "45.1 MB" || row[2] != "< 100 MB" {
		t.Errorf("rss row %q", row)
	}
	pages := parseFile(t, "dashboard.txt").Pages()
	if len(pages) != 4 || pages[3] != (Page{Backend: "postgres", Name: "repository", P50: 101, P95: 120.5, Max: 130.2}) {
		t.Errorf("pages %+v", pages)
	}
}

// TestRenderGolden renders the table of the sample outputs; UPDATE=1
// rewrites testdata/report.golden.md.
func TestRenderGolden(t *testing.T) {
	outs := Outputs{}
	for _, step := range []string{"burst", "webhook", "loop", "diagnose", "dashboard", "rss", "analysis", "chunks", "cluster"} {
		outs[step] = parseFile(t, step+".txt")
	}
	got := Render(Rows(outs))
	scenariotest.Golden(t, filepath.Join("testdata", "report.golden.md"), []byte(got))
	for _, must := range []string{"| yes |", "| no |", "n/a"} {
		if must != "n/a" && !strings.Contains(got, must) {
			t.Errorf("the table has no %q cell", must)
		}
	}
}

// TestRowsWithoutOutput: missing steps read n/a, not zero.
func TestRowsWithoutOutput(t *testing.T) {
	got := Render(Rows(Outputs{}))
	if !strings.Contains(got, "| n/a | n/a |") || strings.Contains(got, "| yes |") || strings.Contains(got, "| no |") {
		t.Errorf("table of nothing:\n%s", got)
	}
}

func TestNum(t *testing.T) {
	for in, want := range map[float64]string{1234567: "1,234,567", 3746.2: "3,746", 52.46: "52.5", 0.694: "0.69", -1500: "-1,500"} {
		if got := num(in); got != want {
			t.Errorf("num(%v) = %s, want %s", in, got, want)
		}
	}
}

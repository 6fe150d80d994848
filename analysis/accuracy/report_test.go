package accuracy

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/polylane/polylane/analysis"
)

// row is one line of the accuracy table.
type row struct {
	set, measure, got, reference string
	// metric names the row's figure for developmentTargets ("" when no
	// target applies); value is that figure.
	metric string
	value  float64
}

func pct(v float64) string   { return fmt.Sprintf("%.1f%%", 100*v) }
func f2(v float64) string    { return fmt.Sprintf("%.2f", v) }
func f3(v float64) string    { return fmt.Sprintf("%.3f", v) }
func whole(v float64) string { return fmt.Sprintf("%.0f", v) }

// developmentTargets are the targets of issue 3 on the development split
// (../shared/data); docs/performance.md ("Accuracy") records the figures
// measured against them. TestAccuracyReport fails when one is missed.
var developmentTargets = []target{
	{metric: "pytorch-near", goal: 0.90, dir: atLeast, show: pct},
	{metric: "pytorch-key", goal: 0.80, dir: atLeast, show: pct},
	{metric: "pytorch-generic", goal: 0, dir: atMost, show: pct},
	{metric: "logchunks-f1", goal: 0.45, dir: atLeast, show: f2},
	{metric: "logchunks-any-hit", goal: 0.85, dir: atLeast, show: f2},
	{metric: "logchunks-median", goal: 15, dir: atMost, show: whole},
	{metric: "cidiff-baseline-f1", goal: 0.70, dir: atLeast, show: f2, of: "F1"},
	{metric: "loghub-ga", goal: 0.80, dir: atLeast, show: f2},
	{metric: "loghub-ga-corrected", goal: 0.80, dir: atLeast, show: f2},
}

// debug reports whether per-item details were asked for a data set.
func debug(set string) bool {
	return strings.Contains(os.Getenv("POLYLANE_ACCURACY_DEBUG"), set)
}

// TestAccuracyReport prints one markdown table with every measure of issue 3
// next to the reference figures of datasets.md §3 and §5 and, where one
// applies, its development target and PASS or MISS; it fails, listing them,
// when a target is missed. It runs only with POLYLANE_ACCURACY=1 because it
// reads about 200 MB of logs.
func TestAccuracyReport(t *testing.T) {
	if os.Getenv("POLYLANE_ACCURACY") != "1" {
		t.Skip("set POLYLANE_ACCURACY=1 to run the accuracy report")
	}
	shared := sharedDir(t)
	var rows []row
	rows = append(rows, pytorchRows(t, shared)...)
	rows = append(rows, logChunksRows(t, shared)...)
	rows = append(rows, ciDiffRows(t, shared)...)
	rows = append(rows, loghubRows(t, shared)...)
	verdicts, misses, err := judge(rows, developmentTargets)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("\n| data set | measure | Polylane | reference | target | met |\n|---|---|---|---|---|---|\n")
	for i, r := range rows {
		v := verdicts[i]
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", r.set, r.measure, r.got, r.reference, v.target, v.met)
	}
	t.Log(b.String())
	if len(misses) > 0 {
		t.Errorf("%d development target(s) missed:\n%s", len(misses), strings.Join(misses, "\n"))
	}
}

type pytorchLabel struct {
	Fixture   string   `json:"fixture"`
	CleanLog  string   `json:"clean_log"`
	Line      int      `json:"expected_match_line"`
	Text      string   `json:"expected_match_text"`
	GroupKeys []string `json:"expected_group_key"`
}

func pytorchRows(t *testing.T, shared string) []row {
	dir := filepath.Join(shared, "data", "pytorch-fixtures")
	labels := readJSONL[pytorchLabel](t, filepath.Join(dir, "labels.jsonl"))
	var exact, near, key, generic int
	for _, l := range labels {
		res := analyzeFile(t, filepath.Join(dir, l.CleanLog), analysis.Options{})
		cause, ok := res.Cause()
		d := cause.N - l.Line
		if ok && d == 0 {
			exact++
		}
		if ok && d >= -3 && d <= 3 {
			near++
		}
		hasKey := len(l.GroupKeys) > 0
		for _, k := range l.GroupKeys {
			if !strings.Contains(res.Signature, k) {
				hasKey = false
			}
		}
		if hasKey {
			key++
		}
		if strings.HasPrefix(cause.Text, "##[error]Process completed with exit code") {
			generic++
		}
		if debug("pytorch") && (d < -3 || d > 3 || !hasKey) {
			t.Logf("pytorch %s: want %d got %d %q\n  sig %q\n  key %q", l.Fixture, l.Line, cause.N, cause.Text, res.Signature, l.GroupKeys)
		}
	}
	n := float64(len(labels))
	set := fmt.Sprintf("PyTorch fixtures (%d)", len(labels))
	nearRate, keyRate, genericRate := float64(near)/n, float64(key)/n, float64(generic)/n
	return []row{
		{set: set, measure: "top-1 line exact", got: pct(float64(exact) / n), reference: "n/a"},
		{set: set, measure: "top-1 within ±3 lines", got: pct(nearRate), reference: "n/a", metric: "pytorch-near", value: nearRate},
		{set: set, measure: "signature contains group key", got: pct(keyRate), reference: "n/a", metric: "pytorch-key", value: keyRate},
		{set: set, measure: "top-1 is the generic exit-code line", got: pct(genericRate), reference: "n/a", metric: "pytorch-generic", value: genericRate},
	}
}

type logChunksLabel struct {
	Repo  string `json:"repo"`
	Log   string `json:"log"`
	Start int    `json:"chunk_start_line"`
	End   int    `json:"chunk_end_line"`
}

func logChunksRows(t *testing.T, shared string) []row {
	dir := logChunksDir(t, shared)
	labels := readJSONL[logChunksLabel](t, filepath.Join(shared, "data", "logchunks", "labels.jsonl"))
	var scores []lineScore
	var halves [2][]lineScore
	half := repoHalves(labels)
	for _, l := range labels {
		if l.Start == 0 {
			continue
		}
		path := filepath.Join(dir, l.Log)
		blank := blankLines(t, path)
		gold := map[int]bool{}
		for n := l.Start; n <= l.End; n++ {
			if !blank[n] {
				gold[n] = true
			}
		}
		res := analyzeFile(t, path, analysis.Options{})
		s := scoreLines(res, gold, blank)
		scores = append(scores, s)
		h := half[l.Repo]
		halves[h] = append(halves[h], s)
		if debug("logchunks") && s.r == 0 {
			cause, _ := res.Cause()
			t.Logf("logchunks %s: want %d-%d got %d (%d lines) %q", l.Log, l.Start, l.End, cause.N, len(res.Lines), cause.Text)
		}
	}
	m := aggregate(scores)
	set := fmt.Sprintf("LogChunks (%d logs)", m.n)
	rows := []row{
		{set: set, measure: "precision", got: f3(m.p), reference: "keyword ±2: .109"},
		{set: set, measure: "recall", got: f3(m.r), reference: "keyword ±2: .449"},
		{set: set, measure: "F1 (macro per log)", got: f3(m.f), reference: "keyword ±2: .135; supervised best .51", metric: "logchunks-f1", value: m.f},
		{set: set, measure: "any-hit rate", got: f3(m.anyHit), reference: "keyword ±2: .707", metric: "logchunks-any-hit", value: m.anyHit},
		{set: set, measure: "full-recall rate", got: f3(m.full), reference: "keyword ±2: .297"},
		{set: set, measure: "median lines returned", got: whole(m.median), reference: "keyword ±2: 35", metric: "logchunks-median", value: m.median},
	}
	for h, sc := range halves {
		hm := aggregate(sc)
		rows = append(rows, row{set: set, measure: fmt.Sprintf("half %c by repository (%d logs): F1 / any-hit / median lines", 'A'+h, hm.n),
			got: fmt.Sprintf("%.3f / %.3f / %.0f", hm.f, hm.anyHit, hm.median)})
	}
	return rows
}

// repoHalves splits the repositories into two fixed halves (0 = A, 1 = B),
// alternating in name order, for held-out checks: tune on one half, verify
// that the other does not regress.
func repoHalves(labels []logChunksLabel) map[string]int {
	var repos []string
	half := map[string]int{}
	for _, l := range labels {
		if _, ok := half[l.Repo]; !ok {
			half[l.Repo] = 0
			repos = append(repos, l.Repo)
		}
	}
	sort.Strings(repos)
	for i, r := range repos {
		half[r] = i % 2
	}
	return half
}

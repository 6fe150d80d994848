package accuracy

import (
	"fmt"
	"os"
	"path/filepath"
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

// gap says by how many points each cross-validated figure falls short of
// its development figure, given as pairs (development, cross-validated);
// issue 21 wants them within 5 points.
func gap(pairs ...float64) string {
	var parts []string
	for i := 0; i+1 < len(pairs); i += 2 {
		parts = append(parts, fmt.Sprintf("%.1f", 100*(pairs[i]-pairs[i+1])))
	}
	return "; gap " + strings.Join(parts, " / ") + " points"
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
	f := newFolds()
	pyDev, lcDev, cdDev := pytorchScores(t, shared, f), logChunksScores(t, shared, f), ciDiffScores(t, shared, f)
	f.crossValidate()
	pyCV, lcCV, cdCV := pytorchScores(t, shared, f), logChunksScores(t, shared, f), ciDiffScores(t, shared, f)
	var rows []row
	rows = append(rows, pytorchRows(pyDev, pyCV)...)
	rows = append(rows, logChunksRows(lcDev, lcCV)...)
	rows = append(rows, ciDiffRows(cdDev, cdCV)...)
	rows = append(rows, f.rulesRow())
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

// pytorchFigures counts the PyTorch fixtures scored one way or another.
type pytorchFigures struct{ n, exact, near, key, generic int }

// pytorchScores scores every fixture, each its own fold.
func pytorchScores(t *testing.T, shared string, f *folds) pytorchFigures {
	dir := filepath.Join(shared, "data", "pytorch-fixtures")
	labels := readJSONL[pytorchLabel](t, filepath.Join(dir, "labels.jsonl"))
	var fig pytorchFigures
	for _, l := range labels {
		var res *analysis.Result
		f.run("pytorch/"+l.Fixture, "pytorch/"+l.Fixture, func() {
			res = analyzeFile(t, filepath.Join(dir, l.CleanLog), analysis.Options{})
		})
		fig.n++
		cause, ok := res.Cause()
		d := cause.N - l.Line
		if ok && d == 0 {
			fig.exact++
		}
		if ok && d >= -3 && d <= 3 {
			fig.near++
		}
		hasKey := len(l.GroupKeys) > 0
		for _, k := range l.GroupKeys {
			if !strings.Contains(res.Signature, k) {
				hasKey = false
			}
		}
		if hasKey {
			fig.key++
		}
		if strings.HasPrefix(cause.Text, "##[error]Process completed with exit code") {
			fig.generic++
		}
		if debug("pytorch") && (d < -3 || d > 3 || !hasKey) {
			t.Logf("pytorch %s (cv %v): want %d got %d %q\n  sig %q\n  key %q", l.Fixture, f.cv, l.Line, cause.N, cause.Text, res.Signature, l.GroupKeys)
		}
	}
	return fig
}

func pytorchRows(dev, cv pytorchFigures) []row {
	n := float64(dev.n)
	set := fmt.Sprintf("PyTorch fixtures (%d)", dev.n)
	nearRate, keyRate, genericRate := float64(dev.near)/n, float64(dev.key)/n, float64(dev.generic)/n
	return []row{
		{set: set, measure: "top-1 line exact", got: pct(float64(dev.exact) / n), reference: "n/a"},
		{set: set, measure: "top-1 within ±3 lines", got: pct(nearRate), reference: "n/a", metric: "pytorch-near", value: nearRate},
		{set: set, measure: "signature contains group key", got: pct(keyRate), reference: "n/a", metric: "pytorch-key", value: keyRate},
		{set: set, measure: "top-1 is the generic exit-code line", got: pct(genericRate), reference: "n/a", metric: "pytorch-generic", value: genericRate},
		{set: set, measure: "cross-validated, leave one fixture out: top-1 within ±3 / group key", got: pct(float64(cv.near)/n) + " / " + pct(float64(cv.key)/n),
			reference: "development: " + pct(nearRate) + " / " + pct(keyRate) + gap(nearRate, float64(cv.near)/n, keyRate, float64(cv.key)/n)},
	}
}

type logChunksLabel struct {
	Repo  string `json:"repo"`
	Log   string `json:"log"`
	Start int    `json:"chunk_start_line"`
	End   int    `json:"chunk_end_line"`
}

// logChunksFigures holds the line scores of every log and of each fold.
type logChunksFigures struct {
	all   []lineScore
	folds [5][]lineScore
}

// logChunksScores scores every labelled log; its repository's fold is one of
// five.
func logChunksScores(t *testing.T, shared string, f *folds) logChunksFigures {
	dir := logChunksDir(t, shared)
	labels := readJSONL[logChunksLabel](t, filepath.Join(shared, "data", "logchunks", "labels.jsonl"))
	repos := make([]string, len(labels))
	for i, l := range labels {
		repos[i] = l.Repo
	}
	fold := fiveFolds(repos)
	var fig logChunksFigures
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
		var res *analysis.Result
		f.run("logchunks/"+l.Log, fmt.Sprintf("logchunks/%d", fold[l.Repo]), func() {
			res = analyzeFile(t, path, analysis.Options{})
		})
		s := scoreLines(res, gold, blank)
		fig.all = append(fig.all, s)
		fig.folds[fold[l.Repo]] = append(fig.folds[fold[l.Repo]], s)
		if debug("logchunks") && s.r == 0 {
			cause, _ := res.Cause()
			t.Logf("logchunks %s (cv %v): want %d-%d got %d (%d lines) %q", l.Log, f.cv, l.Start, l.End, cause.N, len(res.Lines), cause.Text)
		}
	}
	return fig
}

func logChunksRows(dev, cv logChunksFigures) []row {
	m, c := aggregate(dev.all), aggregate(cv.all)
	set := fmt.Sprintf("LogChunks (%d logs)", m.n)
	rows := []row{
		{set: set, measure: "precision", got: f3(m.p), reference: "keyword ±2: .109"},
		{set: set, measure: "recall", got: f3(m.r), reference: "keyword ±2: .449"},
		{set: set, measure: "F1 (macro per log)", got: f3(m.f), reference: "keyword ±2: .135; supervised best .51", metric: "logchunks-f1", value: m.f},
		{set: set, measure: "any-hit rate", got: f3(m.anyHit), reference: "keyword ±2: .707", metric: "logchunks-any-hit", value: m.anyHit},
		{set: set, measure: "full-recall rate", got: f3(m.full), reference: "keyword ±2: .297"},
		{set: set, measure: "median lines returned", got: whole(m.median), reference: "keyword ±2: 35", metric: "logchunks-median", value: m.median},
		{set: set, measure: "cross-validated, 5 folds by repository: F1 / any-hit / median lines", got: fmt.Sprintf("%.3f / %.3f / %.0f", c.f, c.anyHit, c.median),
			reference: fmt.Sprintf("development: %.3f / %.3f / %.0f", m.f, m.anyHit, m.median) + gap(m.f, c.f, m.anyHit, c.anyHit)},
	}
	var parts []string
	for i, sc := range cv.folds {
		fm := aggregate(sc)
		parts = append(parts, fmt.Sprintf("%d: %.3f / %.3f (%d logs)", i+1, fm.f, fm.anyHit, fm.n))
	}
	rows = append(rows, row{set: set, measure: "cross-validated F1 / any-hit per test fold", got: strings.Join(parts, "; ")})
	return rows
}

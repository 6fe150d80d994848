package accuracy

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polylane/polylane/analysis"
)

// ciDiffCase is one pass/fail pair with its error lines.
type ciDiffCase struct {
	name, fail, pass, format string
	errors                   map[int]bool
}

func ciDiffCases(t *testing.T, shared string) []ciDiffCase {
	root := filepath.Join(shared, "data", "cidiff")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var cases []ciDiffCase
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		f, err := os.Open(filepath.Join(dir, "groundtruth"))
		if err != nil {
			continue
		}
		c := ciDiffCase{name: e.Name(), fail: filepath.Join(dir, "fail.log"), pass: filepath.Join(dir, "pass.log.gz"), errors: map[int]bool{}}
		sc := bufio.NewScanner(f)
		for first := true; sc.Scan(); first = false {
			line := strings.TrimSpace(sc.Text())
			if first {
				c.format = line
				continue
			}
			if rest, ok := strings.CutPrefix(line, "E "); ok {
				if err := parseRanges(c.errors, rest); err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
			}
		}
		f.Close()
		cases = append(cases, c)
	}
	return cases
}

// universalLines maps the line numbers of the CiDiff ground truth, which
// splits on "\r\n", "\r" and "\n" (a Java line reader), to line numbers split on
// "\n" only, as Polylane counts them: index i holds the '\n' line of
// universal line i+1.
func universalLines(t *testing.T, path string) []int {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	line := 1
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '\n':
			out = append(out, line)
			line++
		case '\r':
			out = append(out, line)
			if i+1 < len(b) && b[i+1] == '\n' {
				i++
				line++
			}
		}
	}
	if len(b) > 0 && b[len(b)-1] != '\n' && b[len(b)-1] != '\r' {
		out = append(out, line)
	}
	return out
}

// ciDiffFigures holds the line scores of every case without and with the
// passing log as baseline.
type ciDiffFigures struct{ plain, based []lineScore }

// ciDiffScores scores every case; its project is its fold.
func ciDiffScores(t *testing.T, shared string, f *folds) ciDiffFigures {
	var fig ciDiffFigures
	for _, c := range ciDiffCases(t, shared) {
		blank := blankLines(t, c.fail)
		toLine := universalLines(t, c.fail)
		gold := map[int]bool{}
		for n := range c.errors {
			if n-1 < len(toLine) && !blank[toLine[n-1]] {
				gold[toLine[n-1]] = true
			}
		}
		var plain, based *analysis.Result
		f.run("cidiff/"+c.name, "cidiff/"+ciDiffProject(c.name), func() {
			plain = analyzeFile(t, c.fail, analysis.Options{})
			base := analysis.NewBaseline()
			r, closeFn := openMaybeGzip(t, c.pass)
			if err := base.Add(r); err != nil {
				t.Fatal(err)
			}
			closeFn()
			based = analyzeFile(t, c.fail, analysis.Options{Baseline: base})
		})
		fig.plain = append(fig.plain, scoreLines(plain, gold, blank))
		s := scoreLines(based, gold, blank)
		fig.based = append(fig.based, s)
		if debug("cidiff") {
			t.Logf("cidiff %s (%s, cv %v): P %.2f R %.2f F %.2f returned %d gold %d", c.name, c.format, f.cv, s.p, s.r, s.f, s.returned, len(gold))
		}
	}
	return fig
}

func ciDiffRows(dev, cv ciDiffFigures) []row {
	p, b, c := aggregate(dev.plain), aggregate(dev.based), aggregate(cv.based)
	set := fmt.Sprintf("CiDiff (%d cases)", p.n)
	return []row{
		{set: set, measure: "P / R / F1 without baseline", got: fmt.Sprintf("%.3f / %.3f / %.3f", p.p, p.r, p.f), reference: "keyword lines: .441 / .398 / .322"},
		{set: set, measure: "any-hit / median lines without baseline", got: fmt.Sprintf("%.3f / %.0f", p.anyHit, p.median), reference: "keyword lines: .977 / 19"},
		{set: set, measure: "P / R / F1 with passing log as baseline", got: fmt.Sprintf("%.3f / %.3f / %.3f", b.p, b.r, b.f), reference: "absent from passing log: .585 / .859 / .652",
			metric: "cidiff-baseline-f1", value: b.f},
		{set: set, measure: "any-hit / median lines with baseline", got: fmt.Sprintf("%.3f / %.0f", b.anyHit, b.median), reference: "absent from passing log: 1.0 / 39"},
		{set: set, measure: "cross-validated by project: P / R / F1 with baseline", got: fmt.Sprintf("%.3f / %.3f / %.3f", c.p, c.r, c.f), reference: fmt.Sprintf("development: %.3f / %.3f / %.3f", b.p, b.r, b.f) + gap(b.f, c.f)},
	}
}

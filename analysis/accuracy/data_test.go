package accuracy

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/polylane/polylane/analysis"
	"github.com/polylane/polylane/analysis/scenario/scenariotest"
)

// sharedDir returns the shared directory; it skips the test when the shared
// data sets are absent, unless CI=true.
func sharedDir(t testing.TB) string {
	t.Helper()
	return filepath.Dir(scenariotest.Path(t, "data"))
}

// readJSONL decodes one JSON object per line into out (a pointer to a slice).
func readJSONL[T any](t testing.TB, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// analyzeFile runs the same Analyze call as `polylane analyze`.
func analyzeFile(t testing.TB, path string, opts analysis.Options) *analysis.Result {
	t.Helper()
	r, closeFn := openMaybeGzip(t, path)
	defer closeFn()
	res, err := analysis.Analyze(r, opts)
	if err != nil {
		t.Fatalf("analyze %s: %v", path, err)
	}
	return res
}

func openMaybeGzip(t testing.TB, path string) (io.Reader, func()) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(path, ".gz") {
		return f, func() { f.Close() }
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return zr, func() { zr.Close(); f.Close() }
}

// blankLines returns the set of line numbers whose visible text is empty.
func blankLines(t testing.TB, path string) map[int]bool {
	t.Helper()
	r, closeFn := openMaybeGzip(t, path)
	defer closeFn()
	sc := analysis.NewScanner(r, analysis.Options{})
	blank := map[int]bool{}
	for sc.Scan() {
		l := sc.Line()
		if strings.TrimSpace(l.Text) == "" {
			blank[l.N] = true
		}
	}
	return blank
}

// logChunksDir extracts the LogChunks logs once into a cache directory
// outside the repository and returns it.
func logChunksDir(t testing.TB, shared string) string {
	t.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "polylane", "logchunks")
	if _, err := os.Stat(filepath.Join(dir, "logs")); err == nil {
		return dir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("tar", "-xJf", filepath.Join(shared, "data", "logchunks", "logs.tar.xz"), "-C", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("extract LogChunks logs: %v: %s", err, out)
	}
	return dir
}

// lineScore holds line-level precision and recall of one log.
type lineScore struct {
	p, r, f  float64
	returned int
}

// scoreLines compares returned line numbers with gold ones, ignoring blank
// lines on both sides.
func scoreLines(res *analysis.Result, gold map[int]bool, blank map[int]bool) lineScore {
	ret := map[int]bool{}
	for _, l := range res.Lines {
		if !blank[l.N] {
			ret[l.N] = true
		}
	}
	tp := 0
	for n := range ret {
		if gold[n] {
			tp++
		}
	}
	var s lineScore
	s.returned = len(ret)
	if len(ret) > 0 {
		s.p = float64(tp) / float64(len(ret))
	}
	if len(gold) > 0 {
		s.r = float64(tp) / float64(len(gold))
	}
	if s.p+s.r > 0 {
		s.f = 2 * s.p * s.r / (s.p + s.r)
	}
	return s
}

// lineMetrics aggregates line scores over logs (macro averages).
type lineMetrics struct {
	p, r, f, anyHit, full, median float64
	n                             int
}

func aggregate(scores []lineScore) lineMetrics {
	var m lineMetrics
	m.n = len(scores)
	if m.n == 0 {
		return m
	}
	var rets []int
	for _, s := range scores {
		m.p += s.p
		m.r += s.r
		m.f += s.f
		if s.r > 0 {
			m.anyHit++
		}
		if s.r >= 1 {
			m.full++
		}
		rets = append(rets, s.returned)
	}
	k := float64(m.n)
	m.p, m.r, m.f, m.anyHit, m.full = m.p/k, m.r/k, m.f/k, m.anyHit/k, m.full/k
	sort.Ints(rets)
	if m.n%2 == 1 {
		m.median = float64(rets[m.n/2])
	} else {
		m.median = float64(rets[m.n/2-1]+rets[m.n/2]) / 2
	}
	return m
}

// parseRanges reads "a-b" or "n" into a set.
func parseRanges(set map[int]bool, spec string) error {
	a, b, found := strings.Cut(strings.TrimSpace(spec), "-")
	lo, err := strconv.Atoi(a)
	if err != nil {
		return fmt.Errorf("range %q: %w", spec, err)
	}
	hi := lo
	if found {
		if hi, err = strconv.Atoi(b); err != nil {
			return fmt.Errorf("range %q: %w", spec, err)
		}
	}
	for n := lo; n <= hi; n++ {
		set[n] = true
	}
	return nil
}

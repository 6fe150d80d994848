package history

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/polylane/polylane/analysis"
)

// history builds a window from a pattern string, oldest first: '.' green,
// 'A' and 'B' failures of two classes of stepTests, 'x' a failure in another
// step (after stepTests passed), 'u' a failed run with no jobs data.
func history(pattern string) ([]analysis.Run, []Occurrence) {
	var runs []analysis.Run
	var occs []Occurrence
	for i, c := range pattern {
		id := int64(i + 1)
		r := analysis.Run{ID: id, RunNumber: i + 1, HeadSHA: occ(id, "", "").HeadSHA, HeadBranch: "main", Event: "push",
			Status: "completed", Conclusion: "failure", CreatedAt: t0.Add(time.Duration(id) * time.Hour)}
		switch c {
		case '.':
			r.Conclusion = "success"
		case 'A':
			occs = append(occs, occ(id, stepTests, assertion))
		case 'B':
			occs = append(occs, occ(id, stepTests, resetLine))
		case 'x':
			o := occ(id, "Upload results", "upload failed: HTTP 500")
			o.Passed = []JobStep{{Job: "e2e", Step: stepTests}}
			occs = append(occs, o)
		case 'u':
			occs = append(occs, Occurrence{RunID: id, CreatedAt: r.CreatedAt, Unknown: true})
		}
		runs = append(runs, r)
	}
	return runs, occs
}

func triggerClass(t *testing.T, pattern string) (*Timeline, Class) {
	t.Helper()
	runs, occs := history(pattern)
	var known []Occurrence
	for _, o := range occs {
		if !o.Unknown {
			known = append(known, o)
		}
	}
	classes := Cluster(known, nil)
	tl := NewTimeline(runs, occs)
	trigger := runs[len(runs)-1].ID
	tl.Annotate(classes, trigger)
	c := classOf(classes, trigger, stepTests)
	if c == nil {
		t.Fatalf("%s: no class holds the trigger", pattern)
	}
	if !c.ContainsTrigger {
		t.Fatalf("%s: ContainsTrigger not set", pattern)
	}
	return tl, *c
}

func TestVerdicts(t *testing.T) {
	tests := []struct {
		pattern     string
		kind        string
		pattern2    string
		firstBadRun int64
	}{
		{"....A...A....A..A", Flaky, Intermittent, 0},
		{"..........AAAA", Regression, Persistent, 11},
		{"......B...AuAAA", Regression, Persistent, 11}, // unknown runs do not break a streak
		{"......x...AxAAA", Flaky, Intermittent, 0},     // the step passed in the x runs
		{"AAAAAAAAA", Broken, Persistent, 0},
		{"BBBAAAAAA", Broken, Persistent, 0},
		{"..A", New, Persistent, 0},
		{"A", New, Persistent, 0},
		{"...........B", New, Persistent, 0},         // one network failure says nothing yet
		{"...........A", Regression, Persistent, 12}, // one failing test after green runs is a regression
	}
	for _, tt := range tests {
		tl, c := triggerClass(t, tt.pattern)
		if c.Pattern != tt.pattern2 {
			t.Errorf("%s: pattern %s, want %s", tt.pattern, c.Pattern, tt.pattern2)
		}
		v := tl.Decide(c)
		if v.Kind != tt.kind {
			t.Errorf("%s: verdict %s (%s), want %s", tt.pattern, v.Kind, v.Reason, tt.kind)
		}
		if v.Confidence <= 0 || v.Confidence > 1 || v.Reason == "" || !strings.HasSuffix(v.Reason, ".") {
			t.Errorf("%s: confidence %v reason %q", tt.pattern, v.Confidence, v.Reason)
		}
		switch {
		case tt.firstBadRun != 0 && (v.FirstBadSHA == nil || *v.FirstBadSHA != occ(tt.firstBadRun, "", "").HeadSHA):
			t.Errorf("%s: first bad sha %v, want the sha of run %d", tt.pattern, v.FirstBadSHA, tt.firstBadRun)
		case tt.firstBadRun == 0 && v.FirstBadSHA != nil:
			t.Errorf("%s: first bad sha %q, want none", tt.pattern, *v.FirstBadSHA)
		}
	}
}

func TestFailureRate(t *testing.T) {
	runs, occs := history("....A...A..x.u.A")
	tl := NewTimeline(runs, occs)
	r := tl.FailureRate("e2e", stepTests, occs)
	// 3 failures; greens: 11 successful runs + the x run; the unknown run is out.
	if r.Failures != 3 || r.Runs != 15 {
		t.Fatalf("rate = %+v, want 3 of 15", r)
	}
	if math.Abs(r.Rate-0.2) > 1e-9 || r.Low >= r.Rate || r.High <= r.Rate {
		t.Errorf("rate = %+v", r)
	}
}

func TestWilson(t *testing.T) {
	tests := []struct {
		k, n      int
		low, high float64
	}{
		{5, 100, 0.0215, 0.1118},
		{0, 10, 0, 0.2775},
		{10, 10, 0.7225, 1},
		{0, 0, 0, 1},
	}
	for _, tt := range tests {
		low, high := Wilson(tt.k, tt.n, 1.96)
		if math.Abs(low-tt.low) > 5e-4 || math.Abs(high-tt.high) > 5e-4 {
			t.Errorf("Wilson(%d, %d) = [%.4f, %.4f], want [%.4f, %.4f]", tt.k, tt.n, low, high, tt.low, tt.high)
		}
	}
}

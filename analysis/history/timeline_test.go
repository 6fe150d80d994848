package history

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/polylane/polylane/analysis/gha"
)

// history builds a window from a pattern string, oldest first: '.' green,
// 'A' and 'B' failures of two classes of stepTests (a failing test, a
// network reset), 'C' a failure of stepTests of no known family, 'x' a
// failure in another step (after stepTests passed), 'e' a failure in an
// earlier step (stepTests never ran), 'u' a failed run with no jobs data.
func history(pattern string) ([]gha.Run, []Occurrence) {
	var runs []gha.Run
	var occs []Occurrence
	for i, c := range pattern {
		id := int64(i + 1)
		r := gha.Run{ID: id, RunNumber: i + 1, HeadSHA: occ(id, "", "").HeadSHA, HeadBranch: "main", Event: "push",
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
		case 'e':
			occs = append(occs, occ(id, "Check out", "fatal: could not read from remote repository"))
		case 'C':
			occs = append(occs, occ(id, stepTests, "the widget sprocket went sideways"))
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

// TestSingleRunVerdicts: one run alone at the end of the window is a
// regression only when a test failed in a step that passed at the previous
// run that reached it, on another commit.
func TestSingleRunVerdicts(t *testing.T) {
	tests := []struct {
		name, pattern string
		sameSHA       bool // the run before the trigger has the trigger's commit
		kind          string
	}{
		{"test turned red by the commit", "........A", false, Regression},
		{"test turned red, earlier runs failed before the step", ".....eeeA", false, Regression},
		{"network failure", "........B", false, New},
		{"step already red for another reason", ".......BA", false, New},
		{"step passed on the same commit", "........A", true, New},
		{"step never reached before", "eeeeeeeeA", false, New},
		{"failure of no known family", "........C", false, New},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs, occs := history(tt.pattern)
			if tt.sameSHA {
				runs[len(runs)-2].HeadSHA = runs[len(runs)-1].HeadSHA
			}
			classes := Cluster(occs, nil)
			tl := NewTimeline(runs, occs)
			trigger := runs[len(runs)-1].ID
			tl.Annotate(classes, trigger)
			c := classOf(classes, trigger, stepTests)
			if c == nil || c.Count != 1 {
				t.Fatalf("trigger class = %+v, want one run", c)
			}
			v := tl.Decide(*c)
			if v.Kind != tt.kind {
				t.Errorf("verdict %s (%s), want %s", v.Kind, v.Reason, tt.kind)
			}
			if (v.Kind == Regression) != (v.FirstBadSHA != nil) || v.Kind == Regression && v.Confidence > 0.6 {
				t.Errorf("verdict %+v: a one-run regression names its commit with a low confidence", v)
			}
		})
	}
}

// TestStoppedClassIsNotPersistent: a class that failed on consecutive runs
// and then stopped is not persistent; a trigger that brings it back is a
// flake of two episodes, judged with less confidence than one that came and
// went many times.
func TestStoppedClassIsNotPersistent(t *testing.T) {
	runs, occs := history("...AAAAA....BBBB......A")
	classes := Cluster(occs, nil)
	tl := NewTimeline(runs, occs)
	tl.Annotate(classes, runs[len(runs)-1].ID)
	if b := classOf(classes, 13, stepTests); b == nil || b.Pattern != Intermittent {
		t.Errorf("stopped class = %+v, want intermittent", b)
	}
	a := classOf(classes, runs[len(runs)-1].ID, stepTests)
	if a == nil || a.Pattern != Intermittent || a.Count != 6 {
		t.Fatalf("trigger class = %+v", a)
	}
	back := tl.Decide(*a)
	if back.Kind != Flaky || !strings.Contains(back.Reason, "2 separate episodes") {
		t.Errorf("verdict = %+v, want flaky over 2 episodes", back)
	}
	tl2, often := triggerClass(t, "..A...A...A..A...A..A")
	many := tl2.Decide(often)
	if many.Kind != Flaky || many.Confidence <= back.Confidence {
		t.Errorf("six separate failures (%v) should be surer of a flake than a streak that came back (%v)", many.Confidence, back.Confidence)
	}
	if _, still := triggerClass(t, "....BBBBB"); still.Pattern != Persistent {
		t.Errorf("a class failing to the end of the window is persistent, got %s", still.Pattern)
	}
}

// TestDecideRegressionRange: when the runs between the last green run and
// the first red one never got to the step (cancelled, failed earlier), the
// regression's start is the range after the last green commit.
func TestDecideRegressionRange(t *testing.T) {
	runs, occs := history(".....eeAAA")
	classes := Cluster(occs, nil)
	tl := NewTimeline(runs, occs)
	tl.Annotate(classes, runs[len(runs)-1].ID)
	v := tl.Decide(*classOf(classes, runs[len(runs)-1].ID, stepTests))
	if v.Kind != Regression || v.FirstBadSHA == nil || *v.FirstBadSHA != runs[7].HeadSHA {
		t.Fatalf("verdict = %+v, want a regression at run 8", v)
	}
	if v.LastGoodSHA != runs[4].HeadSHA || v.UntestedRuns != 2 {
		t.Errorf("range = (%q, %d untested), want (%q, 2)", v.LastGoodSHA, v.UntestedRuns, runs[4].HeadSHA)
	}
	runs, occs = history(".....AAA")
	classes = Cluster(occs, nil)
	tl = NewTimeline(runs, occs)
	tl.Annotate(classes, runs[len(runs)-1].ID)
	if v := tl.Decide(*classOf(classes, runs[len(runs)-1].ID, stepTests)); v.LastGoodSHA != "" {
		t.Errorf("no gap, yet a range from %q", v.LastGoodSHA)
	}
}

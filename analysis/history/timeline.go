package history

import (
	"fmt"
	"math"

	"github.com/polylane/polylane/analysis"
)

// MinHistory is the number of runs in the window below which the verdict is
// "new": with fewer completed runs there is too little history to tell a
// flake from a regression or a broken workflow.
const MinHistory = 5

// Timeline is the window (oldest run first) with what is known about each
// run's steps, used to tell green runs of a step from runs that failed or never
// reached it.
type Timeline struct {
	runs   []analysis.Run
	pos    map[int64]int
	passed map[int64]map[groupKey]bool
}

// NewTimeline indexes the window and the occurrences of its failed runs.
func NewTimeline(window []analysis.Run, occs []Occurrence) *Timeline {
	t := &Timeline{runs: window, pos: make(map[int64]int, len(window)), passed: map[int64]map[groupKey]bool{}}
	for i, r := range window {
		t.pos[r.ID] = i
	}
	for _, o := range occs {
		if _, done := t.passed[o.RunID]; done {
			continue
		}
		set := make(map[groupKey]bool, len(o.Passed))
		for _, p := range o.Passed {
			set[groupKey{job: p.Job, step: p.Step}] = true
		}
		t.passed[o.RunID] = set
	}
	return t
}

// Len is the number of runs in the window.
func (t *Timeline) Len() int { return len(t.runs) }

// green reports whether the step passed in the i-th run: the run succeeded,
// or the jobs API of the failed run shows the step succeeding.
func (t *Timeline) green(i int, k groupKey) bool {
	r := t.runs[i]
	if r.Conclusion == "success" {
		return true
	}
	return t.passed[r.ID][k]
}

// span returns the window positions of the oldest and newest run of c, and
// false when none of its runs is in the window.
func (t *Timeline) span(c Class) (first, last int, ok bool) {
	first, last = len(t.runs), -1
	for _, id := range c.Runs {
		if p, in := t.pos[id]; in {
			first, last = min(first, p), max(last, p)
		}
	}
	return first, last, last >= 0
}

// greensBetween counts green runs of the class's step at positions [from, to).
func (t *Timeline) greensBetween(c Class, from, to int) int {
	k := groupKey{job: c.Job, step: c.Step}
	n := 0
	for i := max(from, 0); i < min(to, len(t.runs)); i++ {
		if t.green(i, k) {
			n++
		}
	}
	return n
}

// Annotate sets ContainsTrigger and Pattern on each class: persistent when no
// green run of the class's step lies between its first and last run (for the
// trigger's class: every run since it first appeared failed this way or did
// not get to the step), intermittent otherwise.
func (t *Timeline) Annotate(classes []Class, triggerID int64) {
	for i := range classes {
		c := &classes[i]
		c.ContainsTrigger = false
		for _, id := range c.Runs {
			if id == triggerID {
				c.ContainsTrigger = true
				break
			}
		}
		c.Pattern = Persistent
		if first, last, ok := t.span(*c); ok && t.greensBetween(*c, first+1, last) > 0 {
			c.Pattern = Intermittent
		}
	}
}

// Decide gives the verdict on the trigger's class c (annotated):
//   - new: the window has fewer than MinHistory runs, or the class is one
//     run of an environmental family (network, rate limit, timeout, port,
//     resource) that nothing before resembles;
//   - flaky: the class is intermittent;
//   - broken: the class is persistent and no run of the window before it was
//     green for its step;
//   - regression: the class is persistent and started after green runs of its
//     step; FirstBadSHA is the head commit of its first run.
//
// Confidence grows with the number of runs that support the verdict.
func (t *Timeline) Decide(c Class) Verdict {
	n := len(t.runs)
	if n < MinHistory {
		return Verdict{Kind: New, Confidence: 0.8,
			Reason: fmt.Sprintf("Only %d completed %s in the window; at least %d are needed to tell a flake from a regression.", n, plural(n, "run", "runs"), MinHistory)}
	}
	first, last, _ := t.span(c)
	if c.Pattern == Intermittent {
		greens := t.greensBetween(c, first+1, last)
		return Verdict{Kind: Flaky, Confidence: math.Min(0.95, 0.5+0.1*float64(c.Count-1)),
			Reason: fmt.Sprintf("The same failure came and went: %d %s failed this way, with %d green %s of the step in between.",
				c.Count, plural(c.Count, "run", "runs"), greens, plural(greens, "run", "runs"))}
	}
	if c.Count == 1 && transientFamily[c.Family] {
		return Verdict{Kind: New, Confidence: 0.6,
			Reason: fmt.Sprintf("Only this run failed this way in the window, and a %s failure is usually environmental; one run is too little to tell a flake from a regression.", c.Family)}
	}
	before := t.greensBetween(c, 0, first)
	if before == 0 {
		return Verdict{Kind: Broken, Confidence: math.Min(0.95, 0.6+0.05*float64(c.Count)),
			Reason: fmt.Sprintf("No run in the window passed the step: all %d %s that reached it failed this way.", c.Count, plural(c.Count, "run", "runs"))}
	}
	sha := c.FirstSHA
	return Verdict{Kind: Regression, FirstBadSHA: &sha, Confidence: math.Min(0.95, 0.45+0.1*float64(c.Count)),
		Reason: fmt.Sprintf("The step passed in %d earlier %s, then failed this way in every run since commit %s (%d %s).",
			before, plural(before, "run", "runs"), shortSHA(sha), c.Count, plural(c.Count, "run", "runs"))}
}

// transientFamily are the failure families that come from the environment
// (network, quotas, time limits, ports, memory and disk): a single such
// failure at the end of the window is not evidence of a regression.
var transientFamily = map[string]bool{FamilyNetwork: true, FamilyRateLimit: true, FamilyTimeout: true,
	FamilyPort: true, FamilyResource: true}

// Rate is the failure rate of one step over the window with a 95% Wilson
// score interval. Runs counts the runs in which the step had an outcome
// (green, or failed at this step); runs that failed earlier, were cancelled
// or could not be read are left out.
type Rate struct {
	Step     string  `json:"step"`
	Failures int     `json:"failures"`
	Runs     int     `json:"runs"`
	Rate     float64 `json:"rate"`
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
}

// FailureRate computes the failure rate of a step (job base name and step
// name) over the window from the occurrences of the window's failed runs.
func (t *Timeline) FailureRate(job, step string, occs []Occurrence) Rate {
	k := groupKey{job: job, step: step}
	failed := map[int64]bool{}
	for _, o := range occs {
		if keyOf(&o) == k {
			if _, in := t.pos[o.RunID]; in {
				failed[o.RunID] = true
			}
		}
	}
	runs := len(failed)
	for i, r := range t.runs {
		if !failed[r.ID] && t.green(i, k) {
			runs++
		}
	}
	low, high := Wilson(len(failed), runs, 1.96)
	rate := Rate{Step: step, Failures: len(failed), Runs: runs, Low: low, High: high}
	if runs > 0 {
		rate.Rate = float64(len(failed)) / float64(runs)
	}
	return rate
}

// Wilson returns the Wilson score interval of k successes in n trials for the
// normal quantile z (1.96 for 95%). It is [0, 1] when n is 0.
func Wilson(k, n int, z float64) (low, high float64) {
	if n <= 0 {
		return 0, 1
	}
	p := float64(k) / float64(n)
	nf := float64(n)
	z2 := z * z
	denom := 1 + z2/nf
	center := (p + z2/(2*nf)) / denom
	half := z * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / denom
	return math.Max(0, center-half), math.Min(1, center+half)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func shortSHA(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

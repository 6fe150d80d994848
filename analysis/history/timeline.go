package history

import (
	"fmt"
	"math"

	"github.com/polylane/polylane/analysis/gha"
)

// MinHistory is the number of runs in the window below which the verdict is
// "new": with fewer completed runs there is too little history to tell a
// flake from a regression or a broken workflow.
const MinHistory = 5

// Timeline is the window (oldest run first) with what is known about each
// run's steps, used to tell green runs of a step from runs that failed or never
// reached it.
type Timeline struct {
	runs   []gha.Run
	pos    map[int64]int
	passed map[int64]map[groupKey]bool
	failed map[int64]map[groupKey]bool
}

// NewTimeline indexes the window and the occurrences of its failed runs.
func NewTimeline(window []gha.Run, occs []Occurrence) *Timeline {
	t := &Timeline{runs: window, pos: make(map[int64]int, len(window)), passed: map[int64]map[groupKey]bool{},
		failed: map[int64]map[groupKey]bool{}}
	for i, r := range window {
		t.pos[r.ID] = i
	}
	for _, o := range occs {
		if !o.Cancelled && o.Step.Name != "" {
			if t.failed[o.RunID] == nil {
				t.failed[o.RunID] = map[groupKey]bool{}
			}
			t.failed[o.RunID][keyOf(&o)] = true
		}
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

// reached reports whether the i-th run had an outcome at the step: it passed
// there or failed there.
func (t *Timeline) reached(i int, k groupKey) bool {
	return t.green(i, k) || t.failed[t.runs[i].ID][k]
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

// episodes counts the separate stretches of c's runs: runs of the class with
// no green run of its step between them form one episode.
func (t *Timeline) episodes(c Class) int {
	k := groupKey{job: c.Job, step: c.Step}
	in := map[int]bool{}
	for _, id := range c.Runs {
		if p, ok := t.pos[id]; ok {
			in[p] = true
		}
	}
	n, open := 0, false
	for i := range t.runs {
		switch {
		case in[i] && !open:
			n, open = n+1, true
		case !in[i] && t.green(i, k):
			open = false
		}
	}
	return n
}

// Annotate sets ContainsTrigger and Pattern on each class: persistent when no
// green run of the class's step follows its first run anywhere in the window
// (every run since it first appeared failed this way, failed earlier or did
// not get to the step), intermittent otherwise: a class that came and went,
// or one that stopped (the step passed after its last run), is not
// persistent.
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
		if first, _, ok := t.span(*c); ok && t.greensBetween(*c, first+1, len(t.runs)) > 0 {
			c.Pattern = Intermittent
		}
	}
}

// Decide gives the verdict on the trigger's class c (annotated). The trigger
// is the newest run of the window, so its class always reaches the window's
// end. The rules:
//   - new: the window has fewer than MinHistory runs;
//   - flaky: the class is intermittent. Confidence grows with the number of
//     separate episodes (a class that failed five runs in a row, stopped and
//     is back once is weaker evidence of a flake than five separate
//     failures);
//   - one run alone (the trigger, no earlier run of the class): regression
//     only when a test runner's failure or a build error appears in a step
//     that passed at the previous run that reached it on another commit: the
//     commit turned the step red and no later run can tell yet (confidence
//     0.55; a re-run of the commit tells). Otherwise new: an environmental
//     failure, a step that was already red for another reason, a step that
//     passed on this same commit, a step never reached before, or a failure
//     of no recognised family is too little to judge;
//   - broken: the class is persistent and no run before it passed its step;
//   - regression: the class is persistent, at least two runs long, and
//     started after green runs of its step; FirstBadSHA is the head commit
//     of its first run.
func (t *Timeline) Decide(c Class) Verdict {
	n := len(t.runs)
	if n < MinHistory {
		return Verdict{Kind: New, Confidence: 0.8,
			Reason: fmt.Sprintf("Only %d completed %s in the window; at least %d are needed to tell a flake from a regression.", n, plural(n, "run", "runs"), MinHistory)}
	}
	first, last, _ := t.span(c)
	if c.Pattern == Intermittent {
		return t.flaky(c, first, last)
	}
	if c.Count == 1 {
		return t.single(c, last)
	}
	before := t.greensBetween(c, 0, first)
	if before == 0 {
		return Verdict{Kind: Broken, Confidence: rounded(math.Min(0.95, 0.6+0.05*float64(c.Count))),
			Reason: fmt.Sprintf("No run in the window passed the step: all %d %s that reached it failed this way.", c.Count, plural(c.Count, "run", "runs"))}
	}
	sha := c.FirstSHA
	v := Verdict{Kind: Regression, FirstBadSHA: &sha, Confidence: rounded(math.Min(0.95, 0.45+0.1*float64(c.Count))),
		Reason: fmt.Sprintf("The step passed in %d earlier %s, then failed this way in every run since commit %s (%d %s).",
			before, plural(before, "run", "runs"), shortSHA(sha), c.Count, plural(c.Count, "run", "runs"))}
	t.gap(&v, first, groupKey{job: c.Job, step: c.Step})
	return v
}

// gap widens a regression's start to a range when the runs between the last
// green run of the step and the first bad run at position first never got
// to the step (cancelled by a newer push, or failed before it): any commit
// after the last green one may have caused it.
func (t *Timeline) gap(v *Verdict, first int, k groupKey) {
	i, n := first-1, 0
	for ; i >= 0 && !t.reached(i, k); i-- {
		n++
	}
	if n == 0 || i < 0 || !t.green(i, k) || t.runs[i].HeadSHA == *v.FirstBadSHA {
		return
	}
	v.LastGoodSHA, v.UntestedRuns = t.runs[i].HeadSHA, n
	v.Reason += fmt.Sprintf(" The %d %s between the last green commit %s and %s did not get to the step, so the change that caused it is in that range.",
		n, plural(n, "run", "runs"), shortSHA(v.LastGoodSHA), shortSHA(*v.FirstBadSHA))
}

// flaky is the verdict on an intermittent class.
func (t *Timeline) flaky(c Class, first, last int) Verdict {
	greens := t.greensBetween(c, first+1, last)
	eps := t.episodes(c)
	reason := fmt.Sprintf("The same failure came and went: %d %s failed this way, with %d green %s of the step in between.",
		c.Count, plural(c.Count, "run", "runs"), greens, plural(greens, "run", "runs"))
	if eps < c.Count {
		reason = fmt.Sprintf("The same failure came and went: %d %s failed this way in %d separate %s, with %d green %s of the step in between.",
			c.Count, plural(c.Count, "run", "runs"), eps, plural(eps, "episode", "episodes"), greens, plural(greens, "run", "runs"))
	}
	return Verdict{Kind: Flaky, Confidence: rounded(math.Min(0.95, 0.35+0.15*float64(eps))), Reason: reason}
}

// rounded keeps two decimals of a confidence.
func rounded(x float64) float64 { return math.Round(x*100) / 100 }

// single is the verdict on a class of one run, the trigger at position last.
func (t *Timeline) single(c Class, last int) Verdict {
	if transientFamily[c.Family] {
		return Verdict{Kind: New, Confidence: 0.6,
			Reason: fmt.Sprintf("Only this run failed this way in the window, and a %s failure is usually environmental; one run is too little to tell a flake from a regression.", c.Family)}
	}
	k := groupKey{job: c.Job, step: c.Step}
	prev := -1
	for i := last - 1; i >= 0; i-- {
		if t.reached(i, k) {
			prev = i
			break
		}
	}
	trigger := t.runs[last]
	switch {
	case prev < 0:
		return Verdict{Kind: New, Confidence: 0.6,
			Reason: "Only this run failed this way, and no earlier run in the window reached the step; there is nothing to compare it with yet."}
	case !t.green(prev, k):
		return Verdict{Kind: New, Confidence: 0.5,
			Reason: "Only this run failed this way, and the step was already failing for another reason in the run before it; one run is too little to tell what this failure is."}
	case t.runs[prev].HeadSHA == trigger.HeadSHA:
		return Verdict{Kind: New, Confidence: 0.6,
			Reason: fmt.Sprintf("Only this run failed this way, and the step passed on the same commit %s in an earlier run, so the commit alone does not explain it; one failure is too little to call it flaky.", shortSHA(trigger.HeadSHA))}
	case c.Family != FamilyTest && c.Family != FamilyBuild:
		return Verdict{Kind: New, Confidence: 0.5,
			Reason: "Only this run failed this way, and the failure is not a recognised test or build failure; one run is too little to tell a flake from a regression."}
	}
	sha := c.FirstSHA
	v := Verdict{Kind: Regression, FirstBadSHA: &sha, Confidence: 0.55,
		Reason: fmt.Sprintf("The step passed at commit %s and failed this way at commit %s, the first time in the window; no later run can tell yet whether it stays red, and a re-run of %s would.",
			shortSHA(t.runs[prev].HeadSHA), shortSHA(sha), shortSHA(sha))}
	t.gap(&v, last, k)
	return v
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

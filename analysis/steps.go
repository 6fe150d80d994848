package analysis

import (
	"strings"
	"time"

	"github.com/polylane/polylane/analysis/gha"
)

// maxSpans bounds the number of step spans one log can open, so that a hostile
// log of a million step headers keeps constant memory. Later headers stay in
// the last span.
const maxSpans = 1024

// StepSpan is the part of a job log that belongs to one step: its reference,
// the first and last raw line numbers, and the API conclusion when the jobs API
// steps were given.
type StepSpan struct {
	Step       StepRef `json:"step"`
	First      int     `json:"first_line"`
	Last       int     `json:"last_line"`
	Conclusion string  `json:"conclusion,omitempty"`
	// Post is true for the post-job steps ("Post job cleanup.") and the final
	// "Complete job" step.
	Post bool `json:"post,omitempty"`
}

// stepTracker assigns lines to steps by walking the runner's markers in order
// and matching them to the jobs API steps (see github-api.md §5.4).
type stepTracker struct {
	api      []gha.Step
	main     []int // indices into api of main steps that ran, in order
	post     []int // indices into api of post steps that ran, in order
	setup    int   // index into api of "Set up job", or -1
	complete int   // index into api of "Complete job", or -1
	nextMain int
	nextPost int
	curIdx   int // index into api of the current step, or -1
	offset   time.Duration
	offsetOK bool
	spans    []StepSpan
	active   bool
}

func newStepTracker(api []gha.Step) *stepTracker {
	t := &stepTracker{setup: -1, complete: -1, curIdx: -1}
	t.api = append([]gha.Step(nil), api...)
	sortSteps(t.api)
	for i, s := range t.api {
		switch {
		case s.Name == "Set up job" && t.setup < 0:
			t.setup = i
		case s.Name == "Complete job":
			t.complete = i
		case s.Conclusion == "skipped":
		case strings.HasPrefix(s.Name, "Post "):
			t.post = append(t.post, i)
		default:
			t.main = append(t.main, i)
		}
	}
	return t
}

// sortSteps orders steps by number (insertion sort: jobs have few steps and
// usually arrive sorted).
func sortSteps(s []gha.Step) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].Number < s[j-1].Number; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// start opens the "Set up job" span at line n. It is called for the first line
// of a log that looks like a GitHub Actions job log.
func (t *stepTracker) start(n int) {
	if t.active {
		return
	}
	t.active = true
	if t.setup >= 0 {
		t.open(n, t.setup, false)
		return
	}
	t.openSynthetic(n, "Set up job", false)
}

// header handles a "##[group]Run …" line: it opens the next main step unless
// the header is a composite action's inner step of the current one.
func (t *stepTracker) header(n int, name string, at time.Time) {
	t.start(n)
	if len(t.api) == 0 {
		t.openSynthetic(n, name, false)
		return
	}
	if t.nextMain >= len(t.main) {
		return // more headers than steps: composite inner steps
	}
	for k := t.nextMain; k < len(t.main); k++ {
		if t.api[t.main[k]].Name == name && !t.before(at, t.api[t.main[k]].StartedAt) {
			t.advanceMain(n, k, at)
			return
		}
	}
	if t.insideCurrent(at) {
		return
	}
	t.advanceMain(n, t.nextMain, at)
}

// before reports whether log time at is clearly before the API time api.
func (t *stepTracker) before(at, api time.Time) bool {
	if at.IsZero() || api.IsZero() {
		return false
	}
	return at.Add(t.offset).Before(api.Add(-2 * time.Second))
}

// insideCurrent reports whether a header at time at falls strictly inside the
// current main step's API window, which marks a composite action's inner step.
func (t *stepTracker) insideCurrent(at time.Time) bool {
	if t.curIdx < 0 || at.IsZero() || !t.offsetOK || t.isPostOrEdge(t.curIdx) {
		return false
	}
	end := t.api[t.curIdx].CompletedAt
	if end.IsZero() {
		return false
	}
	sec := at.Add(t.offset).Truncate(time.Second)
	// The API's times have whole seconds and neighbouring steps overlap
	// by one (a step "completed" at :39 while the next "started" at :38):
	// a header at or after the next step's start opens that step.
	if t.nextMain < len(t.main) {
		if next := t.api[t.main[t.nextMain]].StartedAt; !next.IsZero() && !sec.Before(next) {
			return false
		}
	}
	return sec.Before(end)
}

func (t *stepTracker) isPostOrEdge(i int) bool {
	if i == t.setup || i == t.complete {
		return true
	}
	for _, p := range t.post {
		if p == i {
			return true
		}
	}
	return false
}

func (t *stepTracker) advanceMain(n, k int, at time.Time) {
	idx := t.main[k]
	if !t.offsetOK && !at.IsZero() && !t.api[idx].StartedAt.IsZero() {
		off := t.api[idx].StartedAt.Sub(at.Truncate(time.Second))
		if off < time.Hour && off > -time.Hour {
			t.offset, t.offsetOK = off, true
		}
	}
	t.nextMain = k + 1
	t.open(n, idx, false)
}

// postJob handles "Post job cleanup.".
func (t *stepTracker) postJob(n int) {
	t.start(n)
	if t.nextPost < len(t.post) {
		t.open(n, t.post[t.nextPost], true)
		t.nextPost++
		return
	}
	if len(t.api) == 0 {
		t.openSynthetic(n, "Post job cleanup", true)
	}
}

// cleanup handles "Cleaning up orphan processes", which opens "Complete job".
func (t *stepTracker) cleanup(n int) {
	t.start(n)
	if t.complete >= 0 {
		if t.curIdx != t.complete {
			t.open(n, t.complete, true)
		}
		return
	}
	if len(t.api) == 0 {
		t.openSynthetic(n, "Complete job", true)
	}
}

func (t *stepTracker) open(n, idx int, post bool) {
	s := t.api[idx]
	if !t.push(StepSpan{Step: StepRef{Number: s.Number, Name: s.Name}, First: n, Last: n, Conclusion: s.Conclusion, Post: post}) {
		return
	}
	t.curIdx = idx
}

func (t *stepTracker) openSynthetic(n int, name string, post bool) {
	num := 1
	if len(t.spans) > 0 {
		num = t.spans[len(t.spans)-1].Step.Number + 1
	}
	t.push(StepSpan{Step: StepRef{Number: num, Name: name}, First: n, Last: n, Post: post})
}

// push opens a new span; it refuses once maxSpans spans are open.
func (t *stepTracker) push(sp StepSpan) bool {
	if len(t.spans) >= maxSpans {
		return false
	}
	if len(t.spans) > 0 && t.spans[len(t.spans)-1].First == sp.First {
		t.spans[len(t.spans)-1] = sp // a step that printed nothing
		return true
	}
	t.spans = append(t.spans, sp)
	return true
}

// extend records that line n belongs to the current span and returns its step.
func (t *stepTracker) extend(n int) StepRef {
	if len(t.spans) == 0 {
		return StepRef{}
	}
	sp := &t.spans[len(t.spans)-1]
	sp.Last = n
	return sp.Step
}

// named handles a line whose step is given by name, as in `gh run view --log`
// output. A change of name opens the matching API step, or a synthetic one.
func (t *stepTracker) named(n int, name string) {
	if len(t.spans) > 0 && t.spans[len(t.spans)-1].Step.Name == name {
		return
	}
	t.active = true
	for i, s := range t.api {
		if s.Name == name && i != t.curIdx {
			t.open(n, i, strings.HasPrefix(name, "Post ") || i == t.complete)
			return
		}
	}
	t.openSynthetic(n, name, strings.HasPrefix(name, "Post "))
}

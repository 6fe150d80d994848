package causal

import (
	"fmt"
	"strings"

	"github.com/polylane/polylane/analysis"
	"github.com/polylane/polylane/analysis/redact"
)

// Bounds of the log view.
const (
	// maxViewLines is the number of failing-step lines kept before the cause.
	maxViewLines = 6000
	// maxAfterCause is the number of lines kept after the cause line.
	maxAfterCause = 60
	// maxLineText caps the text kept per line.
	maxLineText = 2048
	// maxTailLines bounds the failing step's lines read after those kept
	// after the cause, and maxTail the ones of them kept: the lines where
	// make, just, task, npm, BuildKit and bats name the unit that failed,
	// which they print when the failing command has ended.
	maxTailLines = 50000
	maxTail      = 200
)

// logLine is a line of the failing step as the view keeps it.
type logLine struct {
	N    int
	Text string
	Kind analysis.Kind
	// Sec is the timestamp as seconds within the day (-1 without one), enough
	// to compare lines a few seconds apart.
	Sec float64
}

// stepLog is the part of the trigger job log that matters: the failing
// step's lines up to shortly after the cause line.
type stepLog struct {
	Lines []logLine
	// Cause is the index in Lines of the cause line, -1 when not seen.
	Cause int
	// Total is the number of lines read.
	Total int
	// Redacted are the kinds of secret removed from kept lines, by line.
	Redacted map[int][]string
	// Tail holds the step's later lines that name a failed unit (see
	// maxTail), after those Lines keeps.
	Tail []logLine
}

// readStepLog streams the trigger log and keeps the failing step's lines,
// bounded: a ring of lines before the cause line and a few after it.
func readStepLog(in Input, causeN int) (*stepLog, error) {
	sl := &stepLog{Cause: -1}
	if in.OpenLog == nil {
		return sl, nil
	}
	rc, err := in.OpenLog()
	if err != nil {
		return sl, fmt.Errorf("open log of job %d: %w", in.Job.ID, err)
	}
	defer rc.Close()
	sc := analysis.NewScanner(rc, analysis.Options{Steps: in.Job.Steps})
	// ring keeps the failing step's lines; all keeps every main line, for
	// logs whose step markers are missing (nothing but the cause line then
	// falls in the step).
	var ring, all []logLine
	after := 0
	for sc.Scan() {
		l := sc.Line()
		sl.Total = l.N
		if causeN > 0 && l.N > causeN {
			after++
			if after > maxAfterCause {
				if !sl.keepTail(l, inStep(l, in.Step, causeN), after) {
					break
				}
				continue
			}
		}
		main := l.Kind != analysis.KindPostJob && l.Kind != analysis.KindCleanup
		in := inStep(l, in.Step, causeN)
		if !in && !main {
			continue
		}
		ll := viewLine(l)
		if in {
			ring = keepLine(ring, ll, causeN)
		}
		if main {
			all = keepLine(all, ll, causeN)
		}
	}
	if err := sc.Err(); err != nil {
		return sl, fmt.Errorf("read log of job %d: %w", in.Job.ID, err)
	}
	if len(ring) <= 1 && len(all) > len(ring) {
		ring = all
	}
	sl.Lines = ring
	for i, l := range ring {
		if l.N == causeN {
			sl.Cause = i
		}
	}
	sl.redact()
	return sl, nil
}

// keepTail keeps a line after the view when it names a failed unit, and
// reports whether reading should go on: not past the step's end or the
// bound.
func (sl *stepLog) keepTail(l analysis.LogLine, in bool, after int) bool {
	if !in || after > maxAfterCause+maxTailLines || len(sl.Tail) >= maxTail {
		return false
	}
	if failedUnitLine(l.Text) {
		text, _ := redact.Line(viewLine(l).Text)
		ll := viewLine(l)
		ll.Text = text
		sl.Tail = append(sl.Tail, ll)
	}
	return true
}

// failedUnitLine reports whether a line is where a tool names the unit
// that failed: make's error and directory lines, just's and task's failure
// lines, npm's and pnpm's, BuildKit's failed process and excerpt, bats'.
func failedUnitLine(s string) bool {
	for _, p := range []string{"make", "gmake", "error: Recipe `", "task: Failed", "npm ERR!", "npm error", "ERR_PNPM",
		"error Command failed", "ERROR: failed to solve", "ERROR: failed to build", "#", "##[error]", "Dockerfile"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return locPointer.MatchString(s) || strings.Contains(s, ": line ")
}

// redact removes secrets from the kept lines, the only text of the log
// that rules read and quote, and records what it removed where. The view
// is bounded, so this never reads the whole log.
func (sl *stepLog) redact() {
	for i := range sl.Lines {
		l := &sl.Lines[i]
		text, kinds := redact.Line(l.Text)
		if len(kinds) == 0 {
			continue
		}
		l.Text = text
		if sl.Redacted == nil {
			sl.Redacted = map[int][]string{}
		}
		sl.Redacted[l.N] = kinds
	}
}

// viewLine converts a scanned line, capping its text.
func viewLine(l analysis.LogLine) logLine {
	text := l.Text
	if len(text) > maxLineText {
		text = text[:maxLineText]
	}
	ll := logLine{N: l.N, Text: text, Kind: l.Kind, Sec: -1}
	if !l.Time.IsZero() {
		ll.Sec = float64(l.Time.Hour()*3600+l.Time.Minute()*60+l.Time.Second()) + float64(l.Time.Nanosecond())/1e9
	}
	return ll
}

// keepLine appends l to a bounded ring: before the cause, only the last
// lines are kept.
func keepLine(ring []logLine, l logLine, causeN int) []logLine {
	ring = append(ring, l)
	if len(ring) > maxViewLines && (causeN <= 0 || l.N < causeN) {
		ring = append(ring[:0:0], ring[len(ring)-maxViewLines/2:]...)
	}
	return ring
}

// inStep reports whether a line belongs to the failing step. Lines of logs
// without step markers all count; the cause line always counts.
func inStep(l analysis.LogLine, step analysis.StepRef, causeN int) bool {
	if l.N == causeN {
		return true
	}
	if l.Kind == analysis.KindPostJob || l.Kind == analysis.KindCleanup {
		return false
	}
	if step.Name == "" && step.Number == 0 || runnerStep(step.Name) {
		return true
	}
	if l.Step.Name == "" && l.Step.Number == 0 {
		return true
	}
	if step.Number != 0 && l.Step.Number != 0 {
		return l.Step.Number == step.Number
	}
	return strings.EqualFold(l.Step.Name, step.Name)
}

// runnerStep reports whether a step is one the runner adds around the
// workflow's steps. Its log has no "##[group]Run" header, so the scanner
// cannot tell its lines from the step before; all lines up to the cause count.
func runnerStep(name string) bool {
	switch name {
	case "Set up job", "Initialize containers", "Stop containers", "Complete job":
		return true
	}
	return false
}

// before returns the lines before the cause (all lines when it is unknown).
func (sl *stepLog) before() []logLine {
	if sl.Cause < 0 {
		return sl.Lines
	}
	return sl.Lines[:sl.Cause]
}

// line returns the line with raw number n, if kept.
func (sl *stepLog) line(n int) (logLine, bool) {
	for _, l := range sl.Lines {
		if l.N == n {
			return l, true
		}
	}
	return logLine{}, false
}

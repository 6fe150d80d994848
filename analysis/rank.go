package analysis

import (
	"sort"
	"strings"
)

// Output bounds.
const (
	contextBefore    = maxBlockLines // block lines kept before the cause line: the whole block
	contextAfter     = 40            // block lines kept after it
	maxOutLines      = 4096          // lines returned with a baseline
	tailLines        = 2             // lines before the exit line always returned
	secondMargin     = 10            // a runner-up block this close is returned too
	secondLines      = 4             // lines of the runner-up block returned
	summaryBonus     = 15            // for a block in a failure summary section
	retriedPenalty   = 35            // for a block the tool recovered from by trying again
	toleratedPenalty = 60            // for a block whose command's failure the script handled (`|| true`, `|| fallback`)
	lastErrorBonus   = 4             // for the block printed just before the failing exit line
)

// region is the part of the log where the failure happened: the failing step
// of a GitHub job, the failing command of a Travis job, or the whole log.
type region struct {
	first, last int
	span        int // index into spans, or -1
	exit        *exitLine
	known       bool
}

// holds reports whether the block's best line lies in the region.
func (r region) holds(b *block) bool {
	n := b.lines[b.best].n
	return n >= r.first && n <= r.last
}

// ranking is the localiser's verdict.
type ranking struct {
	cause   storedLine
	test    string     // the failing test, when a runner named it
	named   storedLine // the runner's line naming that test, when it is not the cause
	context []storedLine
	cmd     string
	cmdLine int
	region  region
}

// failureRegion finds where the job failed.
func (z *localizer) failureRegion(total int, spans []StepSpan) region {
	r := region{first: 1, last: total, span: -1}
	if len(spans) > 0 {
		idx := -1
		for i, s := range spans {
			if s.Conclusion == "failure" && !s.Post {
				idx = i
				break
			}
		}
		if idx < 0 {
			idx = z.firstErrorSpan(spans)
		}
		if idx >= 0 {
			r = region{first: spans[idx].First, last: spans[idx].Last, span: idx, known: true}
			for i := range z.exits {
				if z.exits[i].span == idx && z.exits[i].code != 0 {
					r.exit = &z.exits[i]
					break
				}
			}
		}
		return r
	}
	for i := range z.exits {
		e := &z.exits[i]
		if e.code == 0 {
			continue
		}
		first := e.cmdStart
		if first <= 0 || first > e.n {
			first = 1
		}
		return region{first: first, last: e.n, span: -1, exit: e, known: true}
	}
	return r
}

// firstErrorSpan returns the first non-post span with a failing exit line or
// an ##[error] line, or -1.
func (z *localizer) firstErrorSpan(spans []StepSpan) int {
	best := -1
	for i, s := range spans {
		if s.Post {
			continue
		}
		if _, ok := z.errSpans[i]; ok {
			best = i
			break
		}
	}
	for _, e := range z.exits {
		if e.code != 0 && e.span >= 0 && e.span < len(spans) && !spans[e.span].Post && (best < 0 || e.span < best) {
			best = e.span
		}
	}
	return best
}

// rank closes the open block and picks the cause.
func (z *localizer) rank(total int, spans []StepSpan) ranking {
	z.close()
	reg := z.failureRegion(total, spans)
	best, second, promoted := z.pick(reg, spans)
	out := ranking{region: reg}
	if best == nil {
		return out
	}
	ex := z.explain(best, reg)
	out.cause, out.test, out.named = ex.cause, ex.test, ex.verdict
	if ex.test == "" {
		if l, ok := exhaustedRetry(best); ok {
			out.cause = l // the tool gave up on the connection, then found no version
		}
	}
	if l, ok := labelled(best, out.cause); ok {
		out.named, out.cause = out.cause, l // "Caused by:" introduces what follows
	}
	out.cmd, out.cmdLine = best.cmd, best.cmdLine
	lo, hi := max(0, best.best-contextBefore), min(len(best.lines), best.best+contextAfter+1)
	if ex.verdict.n != 0 {
		if other := z.blockOf(ex.cause.n); other != nil && other != best {
			out.context = append(out.context, other.lines...)
		}
	}
	for i := lo; i < hi; i++ {
		out.context = append(out.context, best.lines[i])
	}
	out.context = without(out.context, out.cause.n, out.named.n)
	if out.cause.n != best.lines[best.best].n {
		out.context = append([]storedLine{best.lines[best.best]}, without(out.context, best.lines[best.best].n)...)
	}
	if second != nil && second != best {
		lo, hi := max(0, second.best-1), min(len(second.lines), second.best+secondLines)
		if promoted {
			lo = max(0, second.best-secondLines)
		}
		out.context = append(out.context, second.lines[lo:hi]...)
	}
	out.context = append(out.context, z.nextFailure(reg, spans)...)
	out.context = without(out.context, out.cause.n, out.named.n) // the runner-up may hold a cause line
	out.context = z.withTail(out, best, reg)
	if z.base != nil {
		out.context = z.withNovel(out, reg)
	}
	return out
}

// pick chooses the cause block and a runner-up worth returning. Blocks led
// by warnings form a lower tier: they are chosen when the failing region
// holds nothing worse, or when the chosen line says that warnings were
// treated as errors (then promoted is true and second is that line's block).
func (z *localizer) pick(reg region, spans []StepSpan) (best, second *block, promoted bool) {
	var warn *block
	bestScore, secondScore, warnScore := 0, 0, 0
	for _, b := range z.blocks {
		s := z.blockScore(b, reg, spans)
		if b.lines[b.best].feat.class == clsWarning {
			if warn == nil || s > warnScore {
				warn, warnScore = b, s
			}
			continue
		}
		switch {
		case best == nil || s > bestScore:
			second, secondScore = best, bestScore
			best, bestScore = b, s
		case second == nil || s > secondScore:
			second, secondScore = b, s
		}
	}
	if second != nil && secondScore < bestScore-secondMargin {
		second = nil
	}
	if best != nil && werrorLine(best.lines[best.best].feat) {
		if i := warningBefore(best); i >= 0 {
			best.best = i // the warnings were printed in the same report
			return best, second, false
		}
		if w := z.warningsBefore(best); w != nil {
			return w, best, true
		}
	}
	if warn != nil && reg.known && (best == nil || !reg.holds(best)) && reg.holds(warn) {
		// the failing command printed nothing worse than warnings with a
		// source position: a linter that fails on warnings
		return warn, nil, false
	}
	if tb := z.tailBlock(reg); tb != nil {
		if s := z.blockScore(tb, reg, spans); best == nil || s > bestScore {
			best = tb
		}
	}
	return best, second, false
}

// werrorLine reports whether a line says that warnings failed the build
// ("Failing due to -Werror.", "warnings being treated as errors").
func werrorLine(f feature) bool {
	return f.found.has(kwTreated) || f.found.has(kwWerror)
}

// warningBefore returns the index of the last warning line of b before its
// best line, or -1.
func warningBefore(b *block) int {
	for i := b.best - 1; i >= 0; i-- {
		if b.lines[i].feat.class == clsWarning && b.lines[i].feat.score > 0 {
			return i
		}
	}
	return -1
}

// warningsBefore returns the last warning block that ends shortly before
// the cause line of b, or nil.
func (z *localizer) warningsBefore(b *block) *block {
	n := b.lines[b.best].n
	var w *block
	for _, c := range z.blocks {
		if c.lines[c.best].feat.class != clsWarning || c.last >= n || n-c.last > lookBack {
			continue
		}
		if w == nil || c.last > w.last {
			w = c
		}
	}
	return w
}

// withTail adds the last lines printed before the failing exit line, which
// state the failure more often than any other place in a log.
func (z *localizer) withTail(r ranking, chosen *block, reg region) []storedLine {
	if reg.exit == nil {
		return r.context
	}
	seen := map[int]bool{r.cause.n: true}
	for _, l := range r.context {
		seen[l.n] = true
	}
	ctx := r.context
	added := 0
	for i := len(reg.exit.tail) - 1; i >= 0 && added < tailLines; i-- {
		l := reg.exit.tail[i]
		if l.n < reg.first || l.feat.class == clsGeneric || l.feat.flags&(fPass|fNoise) != 0 {
			continue
		}
		if !seen[l.n] {
			ctx = append(ctx, l)
			seen[l.n] = true
		}
		added++
	}
	return ctx
}

// blockScore combines a block's own evidence with where it sits.
func (z *localizer) blockScore(b *block, reg region, spans []StepSpan) int {
	s := b.bestScore + min(max(b.anchors-1, 0), 4)
	n := b.lines[b.best].n
	if reg.known {
		switch {
		case n >= reg.first && n <= reg.last:
			s += 30
			if span := reg.last - reg.first; span > 0 {
				s -= 8 * (n - reg.first) / span
			}
		case b.lines[b.best].span >= 0 && b.lines[b.best].span < len(spans) && spans[b.lines[b.best].span].Post:
			s -= 60
		case n > reg.last:
			s -= 45
		default:
			s -= 55
		}
	} else if reg.last > 0 {
		s += 8 * n / reg.last
	}
	if reg.known && b.summary >= reg.first && b.summary <= reg.last || b.restates {
		s += summaryBonus // the tool restates the failure with its details
	}
	if b.anchors > 0 {
		s -= 40 * b.baseHits / b.anchors
	}
	switch {
	case b.tolerated:
		s -= toleratedPenalty // the script went on past it: not why the job failed
	case b.retried:
		s -= retriedPenalty // the tool tried again: a later error is the cause
	}
	return s
}

// tailBlock builds a fallback block from the lines printed just before the
// failing exit line, for failures whose cause has no recognisable words.
func (z *localizer) tailBlock(reg region) *block {
	var lines []storedLine
	switch {
	case reg.exit != nil:
		lines = reg.exit.tail
	case !reg.known:
		lines = z.tail(8)
	}
	var kept []storedLine
	for _, l := range lines {
		if l.n >= reg.first && l.feat.class != clsGeneric && l.feat.flags&fPass == 0 && !bareMarker(lowerASCII(nil, []byte(strings.TrimSpace(l.text)))) {
			kept = append(kept, l)
		}
	}
	b := &block{best: len(kept) - 1}
	for i, l := range kept {
		if l.feat.score > b.bestScore {
			b.best, b.bestScore = i, l.feat.score
		}
	}
	if b.bestScore == 0 && reg.exit != nil && namesCommand(reg.exit.line.text) {
		// nothing before the exit line speaks of a failure: the exit line
		// itself names the command that failed
		kept = append(kept, reg.exit.line)
		b.best = len(kept) - 1
	}
	if len(kept) == 0 {
		return nil
	}
	b.lines, b.first, b.last = kept, kept[0].n, kept[len(kept)-1].n
	b.bestScore = max(b.bestScore/2+5, 20)
	return b
}

// namesCommand reports whether an exit line names the command that failed,
// as Travis' `The command "make test" exited with 2.` does; GitHub's
// "Process completed with exit code 1." does not.
func namesCommand(text string) bool {
	return strings.HasPrefix(text, "The command \"")
}

// withNovel adds to the context the lines of the failure region that are
// absent from the baseline.
func (z *localizer) withNovel(r ranking, reg region) []storedLine {
	seen := map[int]bool{r.cause.n: true}
	ctx := make([]storedLine, 0, len(r.context)+len(z.novel))
	for _, l := range r.context {
		if !seen[l.n] {
			seen[l.n] = true
			ctx = append(ctx, l)
		}
	}
	for _, l := range z.novel {
		if l.n >= reg.first && l.n <= reg.last && !seen[l.n] && l.feat.flags&fPass == 0 {
			seen[l.n] = true
			ctx = append(ctx, l)
		}
	}
	sort.Slice(ctx, func(i, j int) bool { return ctx[i].n < ctx[j].n })
	if len(ctx) > maxOutLines {
		ctx = ctx[len(ctx)-maxOutLines:]
	}
	return ctx
}

// nextFailure returns the lead lines of the strongest block of the next
// command that failed after the region, in a log whose commands keep running
// after one fails (a Travis script phase): each failing command is a failure
// of its own.
func (z *localizer) nextFailure(reg region, spans []StepSpan) []storedLine {
	if reg.exit == nil || len(spans) > 0 {
		return nil
	}
	var next region
	for i := range z.exits {
		e := &z.exits[i]
		if e.code != 0 && e.n > reg.last && e.cmdStart > reg.last {
			next = region{first: e.cmdStart, last: e.n, span: -1, exit: e, known: true}
			break
		}
	}
	if next.exit == nil {
		return nil
	}
	var best *block
	bestScore := 0
	for _, b := range z.blocks {
		if !next.holds(b) || b.lines[b.best].feat.class == clsWarning {
			continue
		}
		if s := z.blockScore(b, next, spans); best == nil || s > bestScore {
			best, bestScore = b, s
		}
	}
	if best == nil {
		return nil
	}
	lo, hi := max(0, best.best-1), min(len(best.lines), best.best+secondLines)
	return best.lines[lo:hi]
}

// blockOf returns the candidate block that holds line n, or nil.
func (z *localizer) blockOf(n int) *block {
	for _, b := range z.blocks {
		if b.first <= n && b.last >= n {
			for _, l := range b.lines {
				if l.n == n {
					return b
				}
			}
		}
	}
	return nil
}

// without returns lines minus those numbered ns, and minus repeats.
func without(lines []storedLine, ns ...int) []storedLine {
	seen := map[int]bool{}
	for _, n := range ns {
		seen[n] = true
	}
	out := lines[:0]
	for _, l := range lines {
		if !seen[l.n] {
			seen[l.n] = true
			out = append(out, l)
		}
	}
	return out
}

// labelled returns, for a cause line that is only a label ("Caused by:",
// testify's "Error:      Received unexpected error:", a bare "[FAILED]"),
// the line that says what the label introduces: the next line of the
// block with words, indented deeper than the label. A label states no
// failure of its own; the tool printed the statement under it.
func labelled(b *block, cause storedLine) (storedLine, bool) {
	if !labelOnly(cause.text) || cause.feat.flags&(fDiag|fHeader) != 0 {
		// a compiler's "x.hs:94:10: Warning:" heads its diagnostic with a
		// position, and a report header opens a list: both are kept
		return storedLine{}, false
	}
	depth := indentWidth(cause.text)
	for i := range b.lines {
		l := b.lines[i]
		if l.n <= cause.n || l.feat.flags&(fBlank|fFrame|fCommand|fNoise) != 0 {
			continue
		}
		if !wordy(l.text) || !bareLabel(cause.text) && indentWidth(l.text) <= depth {
			return storedLine{}, false
		}
		return l, true
	}
	return storedLine{}, false
}

// labelOnly reports a line that is a label with nothing after it: empty
// once its bracketed markers are dropped, or four words or fewer ending in
// a colon.
func labelOnly(text string) bool {
	if bareLabel(text) {
		return true
	}
	t := strings.TrimSpace(text)
	if !strings.HasSuffix(t, ":") || strings.HasPrefix(t, "Traceback") {
		return false
	}
	return len(strings.Fields(t)) <= 4
}

// bareLabel reports a line of bracketed markers only ("[FAILED] ").
func bareLabel(text string) bool {
	t := strings.TrimSpace(text)
	if t == "" || t[0] != '[' {
		return false
	}
	for t != "" && t[0] == '[' {
		end := strings.IndexByte(t, ']')
		if end < 0 {
			return false
		}
		t = strings.TrimSpace(t[end+1:])
	}
	return t == ""
}

// indentWidth counts a line's leading blanks, a tab as eight.
func indentWidth(s string) int {
	w := 0
	for _, c := range s {
		switch c {
		case ' ':
			w++
		case '\t':
			w += 8 - w%8
		default:
			return w
		}
	}
	return w
}

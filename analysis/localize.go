package analysis

import (
	"bytes"
	"regexp"
	"strings"
)

// Bounds that keep the localiser's memory independent of the log size.
const (
	ringSize        = 64   // recent lines kept for look-back
	storedLineBytes = 1024 // text kept of one stored line
	maxBlockLines   = 200  // lines kept of one block
	maxBlocks       = 48   // candidate blocks kept
	recentBlocks    = 8    // newest blocks never evicted
	maxExits        = 16   // exit lines remembered
	maxNovel        = 8192 // lines absent from the baseline remembered
	anchorScore     = 30   // minimum score of a line that opens a block
	mergeGap        = 3    // anchors this close join one block
	lookBack        = 30   // lines a block may reach back for its header
	trailLines      = 2    // plain lines that may follow a cause line
	errSection      = 8    // lines after an "=== ERROR" heading searched for its message
	retryReach      = 3    // lines after a block where a retry notice discounts it
)

// storedLine is a line kept by the localiser.
type storedLine struct {
	n      int
	text   string
	feat   feature
	inBase bool
	span   int
}

// ringLine is a slot of the look-back ring; its buffer is reused.
type ringLine struct {
	n      int
	buf    []byte
	feat   feature
	inBase bool
	span   int
}

// block is a run of nearby lines around one or more cause candidates.
type block struct {
	lines      []storedLine
	first      int
	last       int
	best       int // index into lines
	bestScore  int
	anchors    int
	lastAnchor int
	retried    bool // a retry notice followed the block
	// tolerated: the shell ran the command's `||` fallback, so its
	// failure did not fail the job
	tolerated bool
	summary   int // line of the last summary header before the block, or 0
	baseHits  int
	cmd       string
	cmdLine   int
	seq       int
	restates  bool // restates a failure marked earlier in a progress listing
}

// exitLine is a line that reports the exit status of a step or command.
type exitLine struct {
	n, code, span int
	cmdStart      int // for per-command exits (Travis): where the command began
	tail          []storedLine
	line          storedLine // the exit line itself
}

// localizer ranks cause candidates in one pass over a log.
type localizer struct {
	ring     [ringSize]ringLine
	count    int // lines observed
	open     *block
	blocks   []*block
	seq      int
	lc       []byte
	cmd      string
	cmdLine  int
	cmdStart int // line of the last top-level command echo ("$ cmd")
	summary  int // line of the last failure summary header
	exits    []exitLine
	errSpans map[int]int // span -> first ##[error] line
	novel    []storedLine
	novelAt  int
	marked   map[uint64]int // failures marked with a cross in a progress listing -> line
	// teardownAt is the line of the last failure header of a mocha
	// teardown hook (`2) "after all" hook in "{root}":`).
	teardownAt int
	// fallbackAt is the line of the last echoed `a || b` command whose
	// fallback b does not fail (see noteFallback).
	fallbackAt int
	// markedHead has a bit for keyHead of each marked line.
	markedHead [1 << 10]uint64
	tests      testTracker
	base       *Baseline
	// npmRelay is set from npm's "npm ERR! command failed" while the lines
	// after it keep npm's prefix: they relay the failed script's output.
	npmRelay bool
}

func newLocalizer(base *Baseline) *localizer {
	return &localizer{base: base, errSpans: map[int]int{}, marked: map[uint64]int{}, tests: newTestTracker()}
}

// observe feeds one cleaned line to the localiser.
func (z *localizer) observe(n int, text []byte, kind Kind, header bool, span int) {
	z.lc = lowerASCII(z.lc[:0], text)
	z.npmRelay = npmRelayStart(z.lc) || z.npmRelay && bytes.HasPrefix(bytes.TrimLeft(z.lc, " \t"), []byte("npm err! "))
	f := classifyLine(ruleInput{text: text, lc: z.lc, kind: kind, header: header, npmRelay: z.npmRelay})
	if len(z.marked) > 0 && f.score < anchorScore && f.flags&(fBlank|fCommand|fNoise) == 0 {
		if t := bytes.TrimLeft(text, " \t"); z.headMarked(t) {
			if _, ok := z.marked[restateKeyBytes(t)]; ok {
				f.class, f.score = clsTest, clsTest.baseScore() // restates a marked failure
			}
		}
	}
	if e := z.tests.errAt; e > 0 && e != n && f.score > 0 {
		if n-e <= errSection {
			// the message under a test tool's "=== ERROR" heading
			f.class, f.score = clsError, max(f.score, clsError.baseScore()+4)
		}
		z.tests.errAt = 0
	}
	if bytes.Contains(text, []byte(`) "after `)) && mochaTeardown.Match(text) {
		z.teardownAt = n
	}
	if z.teardownAt > 0 && n-z.teardownAt <= fallbackReach {
		// the teardown hook's header and its error: not a test's failure
		f.score /= 6
	} else {
		z.tests.observe(n, text, f)
	}
	inBase := false
	if z.base != nil && f.flags&fBlank == 0 {
		inBase = z.base.hasLine(text)
		if inBase {
			f.score /= 3
		}
	}
	z.noteCommand(n, text, kind, f)
	if f.flags&fSummary != 0 {
		z.summary = n
	}
	z.noteRetry(n, f)
	z.noteTolerated(n, text)
	if f.score < anchorScore && bytes.Contains(text, []byte(" || ")) {
		z.noteFallback(n, text)
	}
	if f.found.has(kwExitCode) || f.found.has(kwExitedWith) || f.found.has(kwExitStatus) || kind == KindError || f.found.has(kwFail) {
		z.noteExit(n, text, kind, f, span)
	}
	slot := &z.ring[z.count%ringSize]
	slot.n, slot.feat, slot.inBase, slot.span = n, f, inBase, span
	slot.buf = append(slot.buf[:0], text[:min(len(text), storedLineBytes)]...)
	z.count++
	if z.base != nil && !inBase && f.flags&(fBlank|fCommand|fNoise) == 0 {
		z.addNovel(storedLine{n: n, text: string(slot.buf), feat: f, span: span})
	}
	z.grow(n, f)
}

// grow extends, closes or opens blocks for the line just stored in the ring.
func (z *localizer) grow(n int, f feature) {
	anchor := f.score >= anchorScore && f.class != clsHeader && f.class != clsGeneric
	if b := z.open; b != nil {
		gap := n - b.last
		switch {
		case anchor && gap <= mergeGap:
			z.fill(b, b.last+1, n)
			return
		case (gap == 1 || gap == 2 && f.flags&fIndent != 0) && (attached(f) || n-b.lastAnchor <= trailLines && trailing(f)) && len(b.lines) < maxBlockLines:
			z.fill(b, n, n)
			return
		case gap <= 2 && f.flags&fBlank != 0:
			return // a blank line may sit inside a block
		}
		if anchor || gap > mergeGap || f.flags&(fCommand) != 0 {
			z.close()
		}
	}
	if anchor {
		z.openBlock(n)
	}
}

// attached reports whether a line continues the block above it.
func attached(f feature) bool {
	if f.flags&(fCommand|fNoise|fPass) != 0 || f.class == clsGeneric {
		return false
	}
	return f.flags&(fIndent|fFrame|fCaret|fDiag) != 0 || f.score >= anchorScore
}

// trailing reports whether a plain line may follow a cause line as its
// explanation ("Reason: …").
func trailing(f feature) bool {
	return f.flags&(fCommand|fNoise|fPass|fBlank|fHeader) == 0 && f.class != clsGeneric && f.class != clsWarning
}

// openBlock starts a block at line n, reaching back for its header lines.
func (z *localizer) openBlock(n int) {
	start := n
	for k := 1; k <= lookBack && k < z.count && k < ringSize; k++ {
		r := &z.ring[(z.count-1-k)%ringSize]
		if r.n != n-k || !reachable(r.feat) {
			break
		}
		if r.feat.flags&fBlank == 0 {
			start = r.n
		}
		if r.feat.flags&fHeader != 0 {
			break
		}
	}
	z.seq++
	b := &block{first: start, last: start - 1, cmd: z.cmd, cmdLine: z.cmdLine, seq: z.seq, summary: z.summary}
	if z.fallbackAt > 0 && n > z.fallbackAt && n-z.fallbackAt <= fallbackReach {
		b.tolerated = true // the failure of a command whose `||` fallback ran next
	}
	z.open = b
	z.fill(b, start, n)
}

// reachable reports whether look-back may pass over a line.
func reachable(f feature) bool {
	if f.flags&(fCommand|fNoise|fPass) != 0 || f.class == clsGeneric {
		return false
	}
	return f.flags&(fIndent|fFrame|fCaret|fHeader|fBlank|fDiag) != 0 || f.score > 0
}

// fill appends ring lines from..to (inclusive) to b.
func (z *localizer) fill(b *block, from, to int) {
	for m := from; m <= to; m++ {
		k := z.count - 1 - (to - m)
		if k < 0 || to-m >= ringSize {
			continue
		}
		r := &z.ring[k%ringSize]
		if r.n != m {
			continue
		}
		b.last = m
		if r.feat.flags&fBlank != 0 || len(b.lines) >= maxBlockLines {
			continue
		}
		b.lines = append(b.lines, storedLine{n: m, text: string(r.buf), feat: r.feat, inBase: r.inBase, span: r.span})
		sl := &b.lines[len(b.lines)-1]
		if sl.feat.score >= anchorScore && sl.feat.class != clsGeneric {
			z.noteMarked(b, sl)
			b.anchors++
			b.lastAnchor = m
			if sl.inBase {
				b.baseHits++
			}
		}
		if sl.feat.score >= b.bestScore && sl.feat.score > 0 {
			b.best, b.bestScore = len(b.lines)-1, sl.feat.score
		}
	}
}

// close moves the open block to the candidate pool, evicting the weakest
// older block when the pool is full.
func (z *localizer) close() {
	b := z.open
	z.open = nil
	if b == nil || len(b.lines) == 0 {
		return
	}
	z.blocks = append(z.blocks, b)
	if len(z.blocks) <= maxBlocks {
		return
	}
	worst := -1
	for i, c := range z.blocks[:len(z.blocks)-recentBlocks] {
		if worst < 0 || c.bestScore <= z.blocks[worst].bestScore { // ties: keep the earliest
			worst = i
		}
	}
	z.blocks = append(z.blocks[:worst], z.blocks[worst+1:]...)
}

// noteRetry marks the latest block as retried when a retry notice follows it
// closely: the tool recovered from that error, so a later one is the cause.
func (z *localizer) noteRetry(n int, f feature) {
	b := z.open
	if b == nil && len(z.blocks) > 0 {
		b = z.blocks[len(z.blocks)-1]
	}
	if b == nil || n-b.last > retryReach || n <= b.last || f.flags&(fBlank|fCommand|fFrame|fIndent) != 0 || !retryNotice(z.lc) {
		return
	}
	b.retried = true
}

// noteTolerated marks the latest block as recovered from when the shell's
// trace shows the `|| true` (or `|| :`) that swallowed its command's
// failure: bash's xtrace prints each command it runs, so "+ true" right
// after an error is that fallback running (bash(1), "set -x"), and a
// script under `bash -e` went on past it. A later error is the cause.
func (z *localizer) noteTolerated(n int, text []byte) {
	b := z.open
	if b == nil && len(z.blocks) > 0 {
		b = z.blocks[len(z.blocks)-1]
	}
	if b == nil || n <= b.last || n-b.last > retryReach {
		return
	}
	t := bytes.TrimSpace(text)
	if bytes.Equal(t, []byte("+ true")) || bytes.Equal(t, []byte("+ :")) {
		b.tolerated = true
	}
}

// mochaTeardown is mocha's header of a failed teardown hook in its list of
// failures. A teardown that fails after a setup or a test failed is
// usually that failure's consequence (closing a browser that never
// launched), so its error ranks like a retried one: a later or earlier
// failure of the run is the cause.
var mochaTeardown = regexp.MustCompile(`^\s*\d+\) "after (all|each)" hook\b`)

// fallbackReach is how many lines after an echoed `a || b` command line
// the error of `a` may start.
const fallbackReach = 2

// noteFallback remembers an echoed command line (make's echo of a recipe
// line, a runner's echo of a script line) of the form `a || b` whose
// fallback b does something other than fail: an error printed right after
// it is a's, and the shell ran b instead of failing, as with `docker
// manifest inspect IMAGE || make push` (bash(1), "Lists": the right of ||
// runs when the left fails, and the list's status is the right's). A
// fallback that exits or fails (`|| exit 1`, `|| false`) tolerates nothing.
func (z *localizer) noteFallback(n int, text []byte) {
	_, right, ok := bytes.Cut(text, []byte(" || "))
	if !ok {
		return
	}
	r := bytes.TrimLeft(right, " ({")
	for _, fails := range []string{"exit", "false", "return", "echo", "printf", "fail", "die", "abort"} {
		if bytes.HasPrefix(r, []byte(fails)) {
			return // `|| exit 1`, `|| { echo "failed"; exit 1; }`
		}
	}
	z.fallbackAt = n
}

// retryWords mark a notice that the tool will try again.
var retryWords = []string{"retry", "retrying", "back off", "backing off", "trying again", "try again", "will be retried", "rerun"}

// retryNotice reports whether a lower-cased line announces another attempt
// ("attempt 1/6 did not succeed, sleeping 10s", "retrying in 5s"), not the
// last one ("attempt 5/5 failed, giving up") and not the script that prints
// such notices (`echo "attempt ${n}/5 failed"`).
func retryNotice(lc []byte) bool {
	retry := retrySet.any(lc)
	if !retry && !bytes.Contains(lc, []byte("attempt")) {
		return false
	}
	if definitiveSet.any(lc) || bytes.Contains(lc, []byte("${")) {
		return false
	}
	return retry || containsAny(lc, "sleeping", "waiting", "failed", "did not succeed", "unsuccessful")
}

// noteCommand remembers the last command echoed before the current line.
func (z *localizer) noteCommand(n int, text []byte, kind Kind, f feature) {
	if f.flags&fCommand == 0 {
		return
	}
	var c []byte
	switch {
	case kind == KindGroup && bytes.HasPrefix(text, []byte("##[group]Run ")):
		c = text[len("##[group]Run "):]
	case kind == KindScript:
		return // the header line already named the script
	case kind == KindCommand:
		c = markerBody(text, kind)
	case bytes.HasPrefix(text, []byte("$ ")):
		c = text[2:]
		z.cmdStart = n
	case bytes.HasPrefix(text, []byte("task: [")):
		c = text
	case bytes.HasPrefix(text, []byte("[Pipeline] ")):
		c = text
		z.cmdStart = n
	default:
		tt := bytes.TrimLeft(text, " \t")
		if bytes.HasPrefix(tt, []byte("+ ")) {
			c = tt[2:]
		}
	}
	if len(c) == 0 {
		return
	}
	z.cmd, z.cmdLine = string(c[:min(len(c), storedLineBytes)]), n
}

// noteExit records lines that report an exit status and the error lines of
// each step span.
func (z *localizer) noteExit(n int, text []byte, kind Kind, f feature, span int) {
	lc := z.lc
	if kind == KindError {
		if _, ok := z.errSpans[span]; !ok && len(z.errSpans) < maxSpans {
			z.errSpans[span] = n
		}
	}
	code, ok := exitCode(lc, kind)
	if !ok || len(z.exits) >= maxExits && code == 0 {
		return
	}
	e := exitLine{n: n, code: code, span: span, cmdStart: z.cmdStart, tail: z.tail(8),
		line: storedLine{n: n, text: string(text[:min(len(text), storedLineBytes)]), feat: f, span: span}}
	if len(z.exits) >= maxExits {
		z.exits = append(z.exits[:maxExits/2], z.exits[maxExits/2+1:]...)
	}
	z.exits = append(z.exits, e)
}

// tail returns up to k recent non-blank, non-command lines from the ring.
// Wrappers and pointers (clsGeneric: "npm ERR! Failed at the … script",
// "A complete log of this run can be found in:") are passed over, so that the
// lines before an exit line are those the failing command printed, however
// long the closing report of the tool that ran it.
func (z *localizer) tail(k int) []storedLine {
	var out []storedLine
	for i := 0; i < ringSize && i < z.count && len(out) < k; i++ {
		r := &z.ring[(z.count-1-i)%ringSize]
		if r.feat.flags&(fBlank|fCommand|fNoise) != 0 || r.feat.class == clsGeneric {
			continue
		}
		out = append(out, storedLine{n: r.n, text: string(r.buf), feat: r.feat, inBase: r.inBase, span: r.span})
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// addNovel remembers a line absent from the baseline, keeping the newest.
func (z *localizer) addNovel(l storedLine) {
	if len(z.novel) < maxNovel {
		z.novel = append(z.novel, l)
		return
	}
	z.novel[z.novelAt] = l
	z.novelAt = (z.novelAt + 1) % maxNovel
}

// exitCode parses the exit status from lines such as "##[error]Process
// completed with exit code 2." or Travis' `The command "x" exited with 1.`.
func exitCode(lc []byte, kind Kind) (int, bool) {
	var rest []byte
	switch {
	case kind == KindError && bytes.HasPrefix(lc, []byte("##[error]process completed with exit code ")):
		rest = lc[len("##[error]process completed with exit code "):]
	case bytes.Contains(lc, []byte("\" exited with ")) || bytes.Contains(lc, []byte("\" failed and exited with ")):
		i := bytes.LastIndex(lc, []byte("exited with "))
		rest = lc[i+len("exited with "):]
	case bytes.HasPrefix(lc, []byte("the command \"")) && bytes.Contains(lc, []byte("\" failed")):
		return 1, true
	case bytes.HasPrefix(lc, []byte("build step '")) && bytes.Contains(lc, []byte("marked build as failure")):
		return 1, true
	case bytes.HasPrefix(lc, []byte("error: script returned exit code ")):
		rest = lc[len("error: script returned exit code "):]
	default:
		return 0, false
	}
	v, k := 0, 0
	for k < len(rest) && isDigit(rest[k]) && k < 9 {
		v = v*10 + int(rest[k]-'0')
		k++
	}
	return v, k > 0
}

// maxMarked bounds the progress-listing failures remembered.
const maxMarked = 1024

// noteMarked remembers failures that a test runner marks with a cross as
// they happen ("✗ testFoo, XCTAssertTrue failed") and marks b when one of its
// lines restates such a failure later without the cross: the summary the
// runner prints at the end, with the failure's location and details.
func (z *localizer) noteMarked(b *block, l *storedLine) {
	t := strings.TrimLeft(l.text, " \t")
	body, crossed := cutCross(t)
	if !crossed && (len(z.marked) == 0 || !z.headMarked([]byte(body))) {
		return // restates nothing marked
	}
	k := restateKey(body)
	if k == 0 {
		return
	}
	if crossed {
		if len(z.marked) < maxMarked {
			if _, ok := z.marked[k]; !ok {
				z.marked[k] = l.n
				h := keyHead([]byte(body))
				z.markedHead[h>>6] |= 1 << (h & 63)
			}
		}
		return
	}
	if first, ok := z.marked[k]; ok && first < b.first {
		b.restates = true
	}
}

// headMarked reports whether a marked line's key starts as t's does.
func (z *localizer) headMarked(t []byte) bool {
	h := keyHead(t)
	return z.markedHead[h>>6]&(1<<(h&63)) != 0
}

// crossMarks are the marks test runners put before a failed test.
var crossMarks = []string{"\u2717", "\u2716", "\u2715", "\u274c", "\u00d7"}

// cutCross removes a leading cross mark.
func cutCross(t string) (string, bool) {
	for _, m := range crossMarks {
		if rest, ok := strings.CutPrefix(t, m); ok {
			return strings.TrimLeft(rest, " "), true
		}
	}
	return t, false
}

// restateKey hashes a line's text, digits collapsed, or returns 0 for a line
// too short to identify a failure.
func restateKey(text string) uint64 {
	if len(text) < 12 {
		return 0
	}
	return baselineKey([]byte(text))
}

// restateKeyBytes is restateKey of a line still in the scanner's buffer.
func restateKeyBytes(text []byte) uint64 {
	if len(text) < 12 {
		return 0
	}
	return baselineKey(text)
}

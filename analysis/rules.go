package analysis

import (
	"bytes"

	"github.com/polylane/polylane/analysis/internal/ruletrace"
)

// lineClass is what the ordered rules say a line is. Specific causes rank
// above generic wrappers.
type lineClass uint8

// Line classes, weakest first.
const (
	clsNone lineClass = iota
	clsWarning
	clsGeneric // exit-code lines, summaries and other wrappers
	clsKeyword // error vocabulary without a recognised shape
	clsHeader  // start of a failure report: Traceback, test section headers
	clsCancel  // cancellation and runner shutdown
	clsRunner  // a specific ##[error] annotation
	clsError   // "error: …", "ERROR …", "Error: …" statements
	clsInfra   // network, resources, permissions, missing files
	clsException
	clsTest
	clsCompiler
)

// classInfo is what a line class is called (the Rule of a Result) and its
// base cause strength (0-100).
type classInfo struct {
	name  string
	score int
}

// classes holds each line class's name and base score. A keyword line's
// score comes from its words instead (classifyLine).
var classes = [...]classInfo{
	clsNone:      {name: "", score: 0},
	clsWarning:   {name: "warning", score: 6},
	clsGeneric:   {name: "generic", score: 10},
	clsKeyword:   {name: "keyword", score: 0},
	clsHeader:    {name: "header", score: 40},
	clsCancel:    {name: "cancel", score: 55},
	clsRunner:    {name: "runner-error", score: 89},
	clsError:     {name: "error", score: 78},
	clsInfra:     {name: "infra", score: 82},
	clsException: {name: "exception", score: 85},
	clsTest:      {name: "test-failure", score: 88},
	clsCompiler:  {name: "compiler", score: 92},
}

func (c lineClass) String() string { return classes[c].name }

// baseScore is the class's base cause strength.
func (c lineClass) baseScore() int { return classes[c].score }

// plainDiagScore is the strength of a positioned diagnostic worded without
// error vocabulary.
const plainDiagScore = 60

// positionedWarningScore is the strength of a warning with a source position.
const positionedWarningScore = 34

// Line flags used to build blocks around cause lines.
const (
	fBlank uint16 = 1 << iota
	fIndent
	fFrame   // a stack-trace frame
	fHeader  // opens a failure report
	fCommand // an echoed command, or part of a step header
	fCaret   // a compiler caret or tilde marker line
	fPass    // reports success
	fNoise   // CI system bookkeeping (travis_fold, travis_time)
	fDiag    // starts with a source position: "file.ext:12:"
	fSummary // opens a test runner's or build tool's failure summary section
)

// feature is what the rules found in one line.
type feature struct {
	score int
	class lineClass
	flags uint16
	found kwSet // vocabulary words in the line
}

// ruleInput is one line as the rules see it.
type ruleInput struct {
	text   []byte // cleaned text
	lc     []byte // lower-cased text
	kind   Kind
	header bool // inside a step header group
	// npmRelay marks a line of a failed script's output that npm relays
	// (see npmRelayed).
	npmRelay bool
}

// classifyLine runs the ordered rules on one line.
func classifyLine(in ruleInput) feature {
	var f feature
	t := in.text
	tt := bytes.TrimLeft(t, " \t")
	if len(tt) == 0 {
		f.flags |= fBlank
		return f
	}
	if bareMarker(in.lc[len(in.lc)-len(tt):]) {
		f.flags |= fIndent // an empty line of a tool's error report continues it
		return f
	}
	if len(tt) < len(t) || pytestExplanation(tt) {
		f.flags |= fIndent
	}
	if structural(in, tt, &f) {
		if f.flags&fNoise != 0 {
			_, f.found = vocabScore(in.lc[len(in.lc)-len(tt):])
		}
		return f
	}
	ltt := in.lc[len(in.lc)-len(tt):]
	if bytes.HasPrefix(ltt, []byte("failure/error:")) {
		// RSpec states a failed expectation with the code that failed
		f.class, f.score = clsTest, clsTest.baseScore()
		return f
	}
	kw, found := vocabScore(ltt)
	f.found = found
	if sanitizerReport(ltt) {
		f.class, f.score = clsException, sanitizerScore
		return f
	}
	if found.has(kwTreated) || werrorFailure(ltt, found) {
		f.class, f.score = clsError, clsError.baseScore()
		return f
	}
	if f, ok := npmRelayed(in, tt, ltt); ok {
		return f
	}
	if kw == 0 && bytes.HasPrefix(ltt, []byte("npm err!")) && npmClass(ltt) == clsGeneric {
		// npm's report that a script it ran failed, and its pointer to
		// the debug log; the script's own output is above it
		f.class, f.score = clsGeneric, clsGeneric.baseScore()
		return f
	}
	if kw == 0 && f.flags&fHeader == 0 {
		switch {
		case f.flags&fDiag == 0 || in.kind != KindPlain:
		case isWarning(ltt):
			f.class, f.score = clsWarning, positionedWarningScore
		case isCompilerDiag(tt, ltt):
			// "a.py:9:5: E124 closing bracket does not match": a linter's
			// finding, worded without error vocabulary
			f.class, f.score = clsCompiler, plainDiagScore
		}
		return f
	}
	f.class = ruleClass(in, tt, ltt, found)
	switch {
	case f.class == clsKeyword:
		f.score = min(10+5*kw, 50)
	case f.class == clsWarning && f.flags&fDiag != 0 && in.kind == KindPlain:
		// a positioned diagnostic ("a.swift:3:9: warning: …") is the cause
		// when a linter fails on warnings; it loses to any error
		f.score = positionedWarningScore
	default:
		f.score = f.class.baseScore()
	}
	if f.class > clsGeneric && definitiveSet.any(ltt) {
		f.score += 6
	}
	f.score = adjust(f.score, f.class, tt, ltt, &f)
	return f
}

// sanitizerScore is the strength of a sanitizer's report: above every
// diagnostic with a position, since the runtime stops the process after it.
const sanitizerScore = 96

// sanitizerReport recognises the lines in which a sanitizer runtime states
// what it caught. Clang's documentation gives their forms: AddressSanitizer
// "==9442==ERROR: AddressSanitizer: heap-use-after-free on address …" and
// "SUMMARY: AddressSanitizer: heap-use-after-free …", after which the process
// aborts (clang.llvm.org/docs/AddressSanitizer.html); LeakSanitizer and
// MemorySanitizer use the same "ERROR:" and "SUMMARY:" lines
// (LeakSanitizer.html, MemorySanitizer.html); ThreadSanitizer reports
// "WARNING: ThreadSanitizer: data race (pid=9337)", a finding that fails the
// run with exit code 66 (ThreadSanitizer.html), and UndefinedBehaviorSanitizer
// "SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior …"
// (UndefinedBehaviorSanitizer.html). A prefix added by whoever prints the
// report ("= ==16563==ERROR: …") does not matter.
func sanitizerReport(ltt []byte) bool {
	i := bytes.Index(ltt, []byte("sanitizer: "))
	if i < 0 {
		return false
	}
	j := i
	for j > 0 && isLetter(ltt[j-1]) {
		j--
	}
	if j == i {
		return false
	}
	head := bytes.TrimRight(ltt[:j], " ")
	return (bytes.HasSuffix(head, []byte("error:")) || bytes.HasSuffix(head, []byte("summary:")) || bytes.HasSuffix(head, []byte("warning:"))) &&
		ruletrace.Allow("sanitizer report")
}

// werrorFailure reports whether a line says that -Werror failed the build.
// GCC and GHC document -Werror as the flag that makes every warning an error
// (GCC manual, "Options to Request or Suppress Warnings"; GHC User's Guide,
// "Warnings and sanity-checking"), so the flag named next to the tool's own
// failure word ("Failing due to -Werror.", "build failed because of
// -Werror") is the tool's statement of why it failed, whatever the phrasing;
// GCC names the controlling option in brackets after a diagnostic made an
// error by it ("[-Werror=unused-variable]", -fdiagnostics-show-option).
func werrorFailure(ltt []byte, found kwSet) bool {
	return found.has(kwWerror) && (found.has(kwFail) || bytes.Contains(ltt, []byte("[-werror")))
}

// structural sets flags for lines whose shape matters more than their words:
// commands, frames, carets, bookkeeping. It returns true when the line can
// never be a cause.
func structural(in ruleInput, tt []byte, f *feature) bool {
	switch in.kind {
	case KindCommand, KindScript, KindDebug, KindGroup, KindEndGroup, KindPostJob, KindCleanup:
		f.flags |= fCommand
		return true
	}
	if in.header {
		f.flags |= fCommand
		return true
	}
	switch {
	case bytes.HasPrefix(tt, []byte("+ ")) && len(tt) == len(in.text), bytes.HasPrefix(in.text, []byte("++")), bytes.HasPrefix(in.text, []byte("$ ")),
		bytes.HasPrefix(tt, []byte("task: [")), bytes.HasPrefix(tt, []byte("> Task :")):
		f.flags |= fCommand
		return true
	case bytes.HasPrefix(tt, []byte("travis_")), bytes.HasPrefix(tt, []byte("Cache not found for input keys: ")):
		// CI bookkeeping: Travis's folds and timers; the Actions cache
		// reporting a miss, after which the job builds the cache itself
		f.flags |= fNoise
		return true
	case bytes.HasPrefix(tt, []byte("[Pipeline] ")):
		if pipelineStep(tt) {
			f.flags |= fCommand // a Jenkins pipeline step begins
		} else {
			f.flags |= fNoise
		}
		return true
	case isCaretLine(tt):
		f.flags |= fCaret
		return true
	}
	pos := pathLineEnd(tt)
	if isFrame(tt, pos) {
		f.flags |= fFrame
	} else if pos > 0 {
		f.flags |= fDiag
	}
	if isHeader(tt) {
		f.flags |= fHeader
	}
	if isSummaryHeader(tt) {
		f.flags |= fSummary | fHeader
	}
	return false
}

// ruleClass applies the ordered shape rules; the first that matches wins.
func ruleClass(in ruleInput, tt, ltt []byte, found kwSet) lineClass {
	if in.kind == KindError {
		body := ltt[len("##[error]"):]
		switch {
		case isGenericLower(body):
			return clsGeneric
		case bytes.Contains(body, []byte("cancel")) || bytes.Contains(body, []byte("shutdown signal")):
			return clsCancel
		}
		return clsRunner
	}
	if in.kind == KindWarning {
		return clsWarning
	}
	if bytes.HasPrefix(ltt, []byte("npm err!")) {
		return npmClass(ltt)
	}
	switch {
	case isGenericLower(ltt) && !severe(found):
		return clsGeneric
	case isCompilerDiag(tt, ltt):
		return clsCompiler
	case isTestFailure(tt, ltt):
		return clsTest
	case isException(tt, ltt):
		return clsException
	case isWarning(ltt):
		return clsWarning
	case isInfra(found):
		return clsInfra
	case isErrorStatement(tt, ltt):
		return clsError
	}
	if bytes.HasPrefix(tt, []byte("Traceback (most recent call last)")) {
		return clsHeader
	}
	return clsKeyword
}

// adjust lowers the score of lines that mention failure without reporting
// one: passing tests, zero counts, retries that will happen, ignored errors.
func adjust(score int, c lineClass, tt, ltt []byte, f *feature) int {
	if c == clsCompiler {
		return score
	}
	if c == clsException && f.flags&fDiag != 0 && locationLine(tt, ltt) {
		return score - 10 // the exception itself is printed above
	}
	if isPass(ltt) {
		f.flags |= fPass
		return score / 8
	}
	if c == clsTest {
		if pytestExplanation(tt) && isException(tt, ltt) {
			score += 2 // "E   KeyError: 'x'" names the error; "E   assert …" shows it
		}
		return score
	}
	if zeroCount(ltt) {
		return score / 10
	}
	if score < anchorScore {
		return score // too weak to lead a block either way
	}
	if softenerSet.any(ltt) {
		return score / 2
	}
	return score
}

// definitive marks failures that persisted through the tool's own retries.
var definitive = []string{"consistently", "giving up", "gave up", "too often", "attempts exhausted", "after retries"}

// isWarning recognises warnings in a tool's voice.
func isWarning(l []byte) bool {
	return containsAny(l, "warning:", "warning ", "[warn", "warn:", "warn ", "deprecat")
}

// softeners mark errors that the tool itself recovers from.
var softeners = []string{"retrying", "will retry", "retry in", "trying again", "running it again", "rerun", "back off", "backing off", "ignored", "ignoring", "(ignored)", "non-fatal", "nonfatal", "skipping", "continuing",
	"installing it now", "creating it", "will be created", "falling back", "using default"}

// npmRelayed classifies the output of a failed lifecycle script that npm
// relays under its "npm ERR! " prefix (npm 7 and later print the script's
// output there after "npm ERR! command failed"): a traceback's exception, a
// compiler diagnostic or a test failure inside it is the script's own
// statement, as it would be without the prefix. Other relayed lines keep
// npm's classification.
func npmRelayed(in ruleInput, tt, ltt []byte) (feature, bool) {
	const prefix = "npm err! "
	if !in.npmRelay || !bytes.HasPrefix(ltt, []byte(prefix)) || npmClass(ltt) != clsGeneric || len(tt) <= len(prefix) {
		return feature{}, false
	}
	body := tt[len(prefix):]
	if len(bytes.TrimSpace(body)) == 0 {
		return feature{}, false
	}
	f := classifyLine(ruleInput{text: body, lc: ltt[len(prefix):], kind: in.kind})
	switch f.class {
	case clsException, clsCompiler, clsTest:
		return f, true
	}
	return feature{}, false
}

// npmRelayStart reports npm's "npm ERR! command failed", after which npm 7
// and later relay the failed script's output under its prefix.
func npmRelayStart(lc []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(lc, " \t"), []byte("npm err! command failed"))
}

// npmClass classifies "npm ERR!" lines: the error code and the network or
// registry detail are causes, the rest wraps a failed script.
func npmClass(l []byte) lineClass {
	switch {
	case bytes.HasPrefix(l, []byte("npm err! code e")) && !bytes.Contains(l, []byte("elifecycle")):
		return clsInfra
	case containsAny(l, "npm err! network", "npm err! 404", "npm err! 403", "npm err! 5", "npm err! enoent", "npm err! eacces", "npm err! peer dep", "npm err! eresolve", "npm err! notarget", "npm err! cb()"):
		return clsError
	}
	return clsGeneric
}

// isPass reports whether a line says something passed.
func isPass(l []byte) bool {
	// "passed" and the check marks' lead byte first: most lines hold neither
	return bytes.Contains(l, []byte("passed")) && (bytes.Contains(l, []byte(" passed")) || bytes.Contains(l, []byte("passed "))) ||
		bytes.HasSuffix(l, []byte(" ok")) || bytes.IndexByte(l, 0xe2) >= 0 && (bytes.Contains(l, []byte("\u2713")) || bytes.Contains(l, []byte("\u2714"))) ||
		bytes.HasPrefix(l, []byte("ok ")) || bytes.Contains(l, []byte("[ok]")) || bytes.Contains(l, []byte("[  passed  ]")) ||
		bytes.Contains(l, []byte("xfail")) || bytes.Contains(l, []byte("expected fail")) || bytes.HasPrefix(l, []byte("skip"))
}

// zeroCount reports "0 errors", "failures: 0" and the like, with no non-zero
// count of failures on the same line.
func zeroCount(l []byte) bool {
	if bytes.IndexByte(l, '0') < 0 && !bytes.Contains(l, []byte("error")) {
		return false // every phrase below holds a 0 or "error"
	}
	zero := false
	for _, p := range [...]string{"0 error", "0 fail", "errors: 0", "failures: 0", "failed: 0", "errors=0", "failures=0", "no error", "without error", "error(s): 0", "0 problems"} {
		if i := bytes.Index(l, []byte(p)); i >= 0 {
			if p[0] == '0' && i > 0 && l[i-1] >= '0' && l[i-1] <= '9' {
				continue // "10 errors"
			}
			zero = true
		}
	}
	return zero && !nonZeroFailureCount(l)
}

// nonZeroFailureCount finds "N failed" / "failures: N" with N > 0.
func nonZeroFailureCount(l []byte) bool {
	for _, w := range [...]string{" failed", " failure", " error"} {
		for off := 0; ; {
			i := bytes.Index(l[off:], []byte(w))
			if i < 0 {
				break
			}
			i += off
			j := i
			for j > 0 && l[j-1] >= '0' && l[j-1] <= '9' {
				j--
			}
			if j < i && !(i-j == 1 && l[j] == '0') {
				return true
			}
			off = i + len(w)
		}
	}
	for _, w := range [...]string{"failures: ", "errors: ", "failed: ", "failures=", "errors="} {
		if i := bytes.Index(l, []byte(w)); i >= 0 {
			k := i + len(w)
			if k < len(l) && l[k] >= '1' && l[k] <= '9' {
				return true
			}
		}
	}
	return false
}

// bareMarker reports whether a lower-cased line holds only a severity marker
// ("[ERROR]", "npm ERR!", "E"): an empty line in the tool's voice.
func bareMarker(l []byte) bool {
	if len(l) > 12 {
		return false
	}
	switch string(bytes.TrimRight(l, " \t:")) {
	case "[error]", "e", "npm err!", "[warning]", "[warn]", "[info]":
		return true
	}
	return false
}

package analysis

import (
	"bytes"
	"unicode/utf8"

	"github.com/polylane/polylane/analysis/internal/ruletrace"
)

// This file holds the hand-written shape matchers behind the ordered rules.
// They run only on lines that passed the vocabulary prefilter.

// hasAnyPrefix and containsAny match the phrase lists of the rules; each
// phrase that matches is reported to ruletrace, which the accuracy bench uses
// to count the logs a phrase fires on (a no-op in production).
func hasAnyPrefix(b []byte, ps ...string) bool {
	for _, p := range ps {
		if len(b) >= len(p) && len(p) > 0 && b[0] == p[0] && string(b[:len(p)]) == p && ruletrace.Allow(p) {
			return true
		}
	}
	return false
}

func containsAny(b []byte, ss ...string) bool {
	for _, s := range ss {
		if bytes.Contains(b, []byte(s)) && ruletrace.Allow(s) {
			return true
		}
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// pathLineEnd recognises a leading "path/file.ext:12" or "file.ext:12:5" token
// and returns the index just after the position, or -1.
func pathLineEnd(tt []byte) int {
	end := bytes.IndexByte(tt, ' ')
	if end < 0 {
		end = len(tt)
	}
	tok := tt[:end]
	for i := 1; i+1 < len(tok); i++ {
		if tok[i] != ':' || !isDigit(tok[i+1]) {
			continue
		}
		if bytes.IndexByte(tok[:i], '.') < 0 {
			return -1
		}
		j := i + 1
		for j < len(tok) && (isDigit(tok[j]) || tok[j] == ':') {
			j++
		}
		if j == len(tok) || tok[j-1] == ':' {
			return j // "f.go:12:" or "README.md:12:Line too long"
		}
		return -1
	}
	return -1
}

// positionBefore reports whether b ends with a source position: ":12",
// ":12:5" or "(12)", "(12,5)".
func positionBefore(b []byte) bool {
	n := len(b)
	if n == 0 {
		return false
	}
	if b[n-1] == ')' {
		i := n - 2
		for i >= 0 && (isDigit(b[i]) || b[i] == ',') {
			i--
		}
		return i >= 0 && i < n-2 && b[i] == '('
	}
	i := n - 1
	for i >= 0 && (isDigit(b[i]) || b[i] == ':') {
		i--
	}
	return i < n-1 && i >= 0 && b[i+1] == ':' && isDigit(b[n-1])
}

// isCompilerDiag recognises compiler and linter diagnostics of severity error:
// "f.c:3:5: error: …", "f.h(89): error C2143: …", "error[E0425]: …",
// "error TS2345: …", "[ERROR] /x/A.java:[12,5] …", "x.go:12:5: undefined: y".
func isCompilerDiag(tt, l []byte) bool {
	for _, m := range [...]string{": error", ": fatal error", "): error", ":error:"} {
		if i := bytes.Index(l, []byte(m)); i > 0 && i < 400 {
			pre := tt[:i]
			if m[0] == ')' {
				pre = tt[:i+1]
			}
			if positionBefore(pre) {
				return true
			}
		}
	}
	switch {
	case hasAnyPrefix(l, "error[e", "error ts", "error cs", "error fs", "error: linking with", "ld: error", "collect2: error"):
		return true
	case bytes.HasPrefix(l, []byte("[error] ")) && bytes.Contains(l, []byte(":[")):
		return true
	}
	if e := pathLineEnd(tt); e > 0 && len(bytes.TrimSpace(tt[e:])) > 0 && !containsAny(l, "warning", "note:", "info:") {
		// "test_x.py:14: AssertionError" is a test runner's location line
		// for an exception reported above it, not a compiler diagnostic.
		return !locationLine(tt, l)
	}
	return false
}

// locationLine recognises a test runner's location line for an exception
// reported above it: "tests/test_x.py:14: AssertionError".
func locationLine(tt, l []byte) bool {
	e := pathLineEnd(tt)
	if e <= 0 {
		return false
	}
	rest := bytes.TrimSpace(tt[e:])
	return len(rest) > 0 && bytes.IndexByte(rest, ' ') < 0 && isException(rest, l[len(l)-len(rest):])
}

// isTestFailure recognises the line a test runner prints for a failed test.
func isTestFailure(tt, l []byte) bool {
	switch {
	case hasAnyPrefix(l, "--- fail", "fail:", "fail ", "failed ", "failed:", "[fail]", "not ok ", "\u2717", "\u2715", "\u2718", "\u00d7 ", "\u274c", "\u25cf ", "error collecting", "error at setup", "error at teardown", "flaky test failed"):
		// Jest's "● Console" holds captured console output, not a failure;
		// a marked stage of a progress display (kind's "✗ Starting
		// control-plane 🕹️") is not a test either
		return !bytes.HasPrefix(l, []byte("failed to ")) && !bytes.HasPrefix(l, []byte("fail to ")) && string(bytes.TrimSpace(l)) != "\u25cf console" &&
			!endsWithPictograph(l)
	case testFailureMarks.any(l):
		return true
	case testFailureWords.any(tt):
		return true
	case bytes.HasPrefix(l, []byte("assertion ")) && bytes.HasSuffix(l, []byte(" failed")):
		return true // ExUnit: "Assertion with == failed"
	case bytes.Contains(l, []byte("assert")) && containsAny(l, " failed", " failure"):
		return true // "testFoo, XCTAssertTrue failed", "Assert.Equal() Failure"
	case pytestExplanation(tt):
		return true
	}
	// "name failed" with a single-token name, e.g. "test72 FAILED"; a count
	// ("1 failed", Playwright's summary) is not a name
	if bytes.HasSuffix(l, []byte(" failed")) && bytes.Count(l, []byte(" ")) == 1 && !isDigit(l[0]) {
		return true
	}
	return false
}

// endsWithPictograph reports whether a line ends with an emoji or a
// pictographic symbol (a variation selector may follow it), as progress
// displays decorate their stages; the failure marks themselves do not count.
func endsWithPictograph(l []byte) bool {
	r, _ := utf8.DecodeLastRune(bytes.TrimRight(l, " \t\ufe0f\u200d"))
	switch r {
	case 0x2717, 0x2715, 0x2718, utf8.RuneError:
		return false
	}
	return r >= 0x1f000 || r >= 0x2600 && r <= 0x27bf
}

// genericPhrases mark wrappers: lines that say that something failed without
// saying why.
var genericPhrases = []string{
	"exit code", "exit status", "exited with", "exit with code", "returned non-zero", "non-zero exit", "make: ***", "] error ",
	"npm err! a complete log", "elifecycle", "command failed", "ninja: build stopped", "build failed",
	"build failure", "finished: failure", "marked build as failure", "custom container implementation", "there were test failures",
	"there are test failures", "some tests failed", "tests failed", "test failed.", "failed tests:",
	"subcommand failed", "errors found", "error found", "job failed", "failed to run task",
	"process didn't exit successfully", "could not compile", "execution failed for task",
	"recipe for target", "test suites:", "tests run:", "failing", "failed (failures=", "failed (errors=",
	"the following tests failed", "failed consistently, continuing", "tests: ", "error summary",
	"failed examples:", // rspec's list of rerun commands
	// build tools' closing advice
	"re-run maven", "full stack trace of the errors", "about the errors and possible solutions",
	"after correcting the problems", "mvn <goals>", "mvn <args>", "run with --stacktrace", "run with --info",
	"actionable task", // gradle's "42 actionable tasks: 30 executed, 12 up-to-date"
	// apt's closing lines after the "E: Failed to fetch …" that says why
	"maybe run apt-get update", "some index files failed to download",
}

// advicePhrases point the reader elsewhere. A line holding one is a wrapper
// unless it also names a network, resource or permission failure, as a
// service's error message often ends with a pointer to its documentation
// ("API rate limit exceeded for … Check out the documentation for more
// details.").
var advicePhrases = []string{"see above", "for more details", "see the log", "check the step logs", "please refer to "}

func isGenericLower(l []byte) bool {
	if statsRow(l) {
		return true
	}
	// Maven's pointers to its help pages: "[ERROR] -> [Help 1]", "[ERROR]
	// [Help 1] http://…" (the error line itself ends with "-> [Help 1]")
	if rest := bytes.TrimLeft(bytes.TrimPrefix(l, []byte("[error]")), " "); hasAnyPrefix(rest, "-> [help ", "[help ") {
		return true
	}
	if genericSet.any(l) {
		return true
	}
	if adviceSet.any(l) {
		_, found := vocabScore(l)
		if !isInfra(found) {
			return true
		}
	}
	// "= 1 failed, 20 passed in 3.1s =" and "FAILED: 3 tests" style summaries
	if bytes.HasPrefix(l, []byte("=")) && bytes.Contains(l, []byte(" failed")) {
		return true
	}
	// xcodebuild's verdicts: "** TEST FAILED **", "** BUILD FAILED **"
	if bytes.HasPrefix(l, []byte("** ")) && bytes.HasSuffix(bytes.TrimRight(l, " "), []byte(" **")) && bytes.Contains(l, []byte("failed")) {
		return true
	}
	if i := bytes.Index(l, []byte("failed:")); i >= 0 {
		rest := bytes.TrimLeft(l[i+len("failed:"):], " \t")
		if len(rest) > 0 && isDigit(rest[0]) {
			return true
		}
	}
	return wrapperException(l)
}

// wrapperException recognises exceptions whose message only says that
// something failed: "runtimeerror: test_x 1/1 failed!".
func wrapperException(l []byte) bool {
	i := bytes.Index(l, []byte("error: "))
	if i < 0 || bytes.IndexByte(l[:i], ' ') >= 0 {
		return false
	}
	msg := bytes.TrimRight(l[i+len("error: "):], "!. ")
	return bytes.HasSuffix(msg, []byte(" failed")) && bytes.Count(msg, []byte(" ")) <= 3
}

// isException recognises exception and panic reports.
func isException(tt, l []byte) bool {
	if e := pathLineEnd(tt); e > 0 {
		tt = bytes.TrimLeft(tt[e:], " ")
		l = l[len(l)-len(tt):]
	}
	if bytes.HasPrefix(tt, []byte("E ")) {
		tt = bytes.TrimLeft(tt[1:], " ")
		l = l[len(l)-len(tt):]
	}
	if bytes.Equal(bytes.TrimSpace(l), []byte("caused by:")) {
		return false // a heading: the cause follows on the next line
	}
	if hasAnyPrefix(l, "exception in thread", "panic: ", "fatal error", "fatal: ", "caused by:", "** (", "uncaught ", "unhandled ", "thread '", "terminate called", "segmentation fault", "assertion failed", "assertionerror") {
		return true
	}
	end := 0
	for end < len(tt) && tt[end] != ':' && tt[end] != ' ' && tt[end] != '(' {
		end++
	}
	tok := tt[:end]
	if end == len(tt) || len(tok) < 5 {
		// a lone class name: "AssertionError", "java.io.IOException"; not a
		// function or test name such as "handleAPIError"
		named := bytes.HasSuffix(tok, []byte("Exception")) || bytes.HasSuffix(tok, []byte("Error")) && len(tok) > 5
		return named && (tok[0] >= 'A' && tok[0] <= 'Z' || bytes.IndexByte(tok, '.') > 0)
	}
	for _, s := range [...]string{"Error", "Exception", "Failure", "Fault", "Interrupt", "Exit", "Errno"} {
		if bytes.HasSuffix(tok, []byte(s)) {
			// "ValueError: x", "AssertionError(…)"; not a call of a
			// method named so: "Suite.testThrowsHandlerError()"
			return tt[end] == ':' || tt[end] == '(' && bytes.IndexByte(tok, '.') < 0 && tok[0] >= 'A' && tok[0] <= 'Z' ||
				bytes.HasPrefix(tt[end:], []byte(" at ")) // gradle: "java.lang.AssertionError at FooTest.java:61"
		}
	}
	return false
}

// isErrorStatement recognises lines that state an error in a tool's voice.
func isErrorStatement(tt, l []byte) bool {
	if hasAnyPrefix(l, "error", "[error", "fatal", "failed", "failure", "critical", "[critical", "severe", "err!", "npm err!", "yarn err", "e: ", "e/", "could not", "cannot", "unable to", "can't", "couldn't") {
		return true
	}
	return errorStatementPhrases.any(l)
}

// isFrame recognises stack-trace frames of common runtimes; pos is
// pathLineEnd(tt).
func isFrame(tt []byte, pos int) bool {
	switch {
	case hasAnyPrefix(tt, "at ", "File \"", "from /", "--- End of", "Caused by:", "goroutine ", "(elixir", "(stdlib", "(ex_unit", "(mix", "(erts", "#") && len(tt) > 3:
		return tt[0] != '#' || isDigit(tt[1])
	case bytes.HasPrefix(tt, []byte("...")) && bytes.Contains(tt, []byte("more")):
		return true
	}
	// a Go frame's offset first: '+' is rarer in a line than '.'
	if bytes.Contains(tt, []byte("+0x")) && bytes.Contains(tt, []byte(" +0x")) && bytes.Index(tt, []byte(".go:")) > 0 {
		return true
	}
	if pos > 0 && bytes.HasPrefix(bytes.TrimLeft(tt[pos:], " "), []byte("in ")) {
		return true // ruby "/x/y.rb:15:in `<main>'", pytest "tests/t.py:143: in test_y"
	}
	// rust and gdb backtraces: "12: 0x55d1…" or "12: std::rt::…"
	j := 0
	for j < len(tt) && isDigit(tt[j]) {
		j++
	}
	return j > 0 && j+1 < len(tt) && tt[j] == ':' && tt[j+1] == ' ' && bytes.Contains(tt, []byte("::"))
}

// isHeader recognises lines that open a failure report.
func isHeader(tt []byte) bool {
	switch {
	case bytes.HasPrefix(tt, []byte("Traceback (most recent call last)")):
		return true
	case bytes.HasPrefix(tt, []byte("___")) && bytes.HasSuffix(tt, []byte("___")):
		return true
	case bytes.HasPrefix(tt, []byte("===")) && containsAny(tt, " FAILURES ", " ERRORS "):
		return true
	case hasAnyPrefix(tt, "Failures:", "Failed tests:", "Tests in error:", "FAILURES!", "ERRORS!", "\u25cf "):
		return true
	case string(bytes.TrimSpace(tt)) == "Caused by:":
		return true
	}
	j := 0
	for j < len(tt) && isDigit(tt[j]) {
		j++
	}
	return j > 0 && j < 4 && j+1 < len(tt) && tt[j] == ')' && tt[j+1] == ' '
}

// isCaretLine recognises compiler markers such as "    ^~~~".
func isCaretLine(tt []byte) bool {
	caret := false
	for _, c := range tt {
		switch c {
		case '^', '~':
			caret = true
		case ' ', '|', '\t', '-':
		default:
			return false
		}
	}
	return caret
}

// statsRow recognises rows of a counter table: a label, then a number after
// two or more blanks, a tab, "=>", ":" or "=" ("Cache errors      2",
// "OOM restarts => 0").
func statsRow(l []byte) bool {
	l = bytes.TrimRight(l, " \t")
	if assertionWords.any(l) {
		return false // an assertion's values, not a counter
	}
	i := len(l)
	for i > 0 && (isDigit(l[i-1]) || l[i-1] == '.' || l[i-1] == '%') {
		i--
	}
	if i == len(l) || i < 3 {
		return false
	}
	if l[i-1] == '\t' || l[i-1] == ' ' && l[i-2] == ' ' {
		return true
	}
	sep := bytes.TrimRight(l[:i], " ")
	if len(sep) > 0 && sep[len(sep)-1] == ':' && i == len(sep) && pathLineEnd(sep[bytes.LastIndexByte(sep, ' ')+1:]) < 0 &&
		bytes.IndexByte(sep[bytes.LastIndexByte(sep, ' ')+1:], '.') > 0 {
		return false // a source position: "at FooTest.java:61"
	}
	return len(sep) > 0 && i-len(sep) <= 1 && (bytes.HasSuffix(sep, []byte("=>")) || sep[len(sep)-1] == '=' || sep[len(sep)-1] == ':') &&
		bytes.Count(l, []byte(" ")) <= 6
}

// isSummaryHeader recognises the line that opens the section where a test
// runner or build tool restates its failures with their details, after the
// run: pytest's "=== FAILURES ===", mocha's "2 failing", RSpec's and
// "Failures:", Gradle's "* What went wrong:", PHPUnit's "There
// was 1 failure:", Jest's "Summary of all failing tests", cargo's "failures:".
func isSummaryHeader(tt []byte) bool {
	if len(tt) < 7 {
		return false
	}
	switch tt[0] {
	case '=', '_':
		return containsAny(tt, " FAILURES ", " ERRORS ", " short test summary info ")
	case '*':
		return bytes.HasPrefix(tt, []byte("* What went wrong:"))
	}
	t := bytes.TrimRight(tt, " \t")
	if hasAnyPrefix(t, "There was 1 failure", "There was 1 error", "There were ") && bytes.HasSuffix(t, []byte(":")) {
		return true
	}
	switch string(t) {
	case "Failures:", "failures:", "Summary of all failing tests", "FAILURES:":
		return true
	}
	// mocha: "2 failing"
	j := 0
	for j < len(t) && isDigit(t[j]) {
		j++
	}
	return j > 0 && string(t[j:]) == " failing"
}

// pytestExplanation recognises the lines pytest prints under a failed test
// to explain the failure: "E       assert 0 > 0", "E   KeyError: 'x'".
func pytestExplanation(tt []byte) bool {
	return len(tt) > 3 && tt[0] == 'E' && tt[1] == ' ' && tt[2] == ' '
}

// pipelineStep recognises the line with which a Jenkins pipeline starts a
// step that runs a script: "[Pipeline] sh", "[Pipeline] bat".
func pipelineStep(tt []byte) bool {
	switch string(bytes.TrimSpace(tt[len("[Pipeline] "):])) {
	case "sh", "bat", "powershell", "pwsh":
		return true
	}
	return false
}

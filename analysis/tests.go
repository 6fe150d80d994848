package analysis

import (
	"bytes"
	"strings"
)

// This file names the failing test. Test runners report a failure in one of
// two ways: a verdict line after the test's output (Go's "--- FAIL: name",
// cargo's "test name ... FAILED", Surefire's "m(C)  Time elapsed … <<<
// FAILURE!") or a header above the failure's details (Jest's "● a › b",
// pytest's "____ name ____", cargo's "---- name stdout ----"). A verdict
// names the test; the details say why it failed.

// Bounds of the test tracker.
const (
	maxFailedTests = 64   // failed tests remembered, the first ones
	maxTestStarts  = 4096 // Go test start lines remembered
	maxTestBytes   = 200  // length of a test name kept
)

// failedTest is a test that a runner reported as failed.
type failedTest struct {
	name   string
	n      int  // line of the verdict or header
	depth  int  // indentation of a Go verdict (subtests are indented)
	header bool // the line opens the failure's details
	bare   bool // the line names the test and says nothing of why
}

// testTracker follows test names through a log in bounded memory.
type testTracker struct {
	failed []failedTest
	starts map[string]int // Go test -> line of its last "=== RUN"/"=== CONT"
	errAt  int            // line of the last "=== ERROR" section header
	listAt int            // line of the last failure summary header ("Failures:", "2 failing")
}

func newTestTracker() testTracker { return testTracker{starts: map[string]int{}} }

// observe records test starts and failures; text is the cleaned line.
func (t *testTracker) observe(n int, text []byte, f feature) {
	tt := bytes.TrimLeft(text, " \t")
	if len(tt) > 8 && tt[0] == '=' {
		if name, ok := goTestStart(tt); ok && (len(t.starts) < maxTestStarts || t.starts[name] > 0) {
			t.starts[name] = n
		}
		if string(bytes.TrimSpace(tt)) == "=== ERROR" {
			t.errAt = n
		}
		return
	}
	if f.flags&fSummary != 0 {
		t.listAt = n
	}
	if f.class != clsTest && f.flags&fHeader == 0 || len(t.failed) >= maxFailedTests {
		return
	}
	if ft, ok := numberedFailure(tt); ok && (t.listAt > 0 && t.listAt < n || strings.Contains(ft.name, " \u203a ")) {
		ft.n = n
		t.failed = append(t.failed, ft)
		return
	}
	if ft, ok := parseVerdict(tt); ok {
		ft.n, ft.depth = n, len(text)-len(tt)
		t.failed = append(t.failed, ft)
	}
}

// goTestStart reads "=== RUN   name" and "=== CONT  name".
func goTestStart(tt []byte) (string, bool) {
	for _, p := range [...]string{"=== RUN ", "=== CONT "} {
		if rest, ok := bytes.CutPrefix(tt, []byte(p)); ok {
			name := bytes.TrimSpace(rest)
			return string(name[:min(len(name), maxTestBytes)]), len(name) > 0
		}
	}
	return "", false
}

// parseVerdict recognises a line that names a failed test.
func parseVerdict(tt []byte) (failedTest, bool) {
	s := string(bytes.TrimRight(tt, " \t"))
	var ft failedTest
	switch {
	case strings.HasPrefix(s, "--- FAIL: "): // go test, ginkgo, chainsaw
		ft.name, ft.bare = cutDuration(s[len("--- FAIL: "):]), true
	case strings.HasPrefix(s, "\u25cf "): // jest
		ft.name, ft.header = strings.TrimSpace(s[len("\u25cf "):]), true
	case strings.HasPrefix(s, "FAILED "): // pytest's short summary, pest
		ft.name, _, _ = strings.Cut(strings.TrimSpace(s[len("FAILED "):]), " - ")
	case strings.HasSuffix(s, " FAILED") && strings.Contains(s, "::") && !strings.Contains(s, " ... "): // pytest -v
		ft.name, ft.bare = strings.TrimSpace(strings.TrimSuffix(s, " FAILED")), true
	case strings.HasPrefix(s, "test ") && strings.HasSuffix(s, " ... FAILED"): // cargo
		ft.name, ft.bare = s[len("test "):len(s)-len(" ... FAILED")], true
	case strings.HasPrefix(s, "---- ") && strings.HasSuffix(s, " stdout ----"): // cargo details
		ft.name, ft.header = s[len("---- "):len(s)-len(" stdout ----")], true
	case strings.HasPrefix(s, "_") && strings.HasSuffix(s, "_"): // pytest details
		name := strings.TrimSpace(strings.Trim(s, "_ "))
		name = strings.TrimPrefix(strings.TrimPrefix(name, "ERROR at setup of "), "ERROR at teardown of ")
		ft.name, ft.header = name, true
	case strings.Contains(s, "Time elapsed") && (strings.Contains(s, "<<< FAILURE") || strings.Contains(s, "<<< ERROR")):
		ft.name, ft.bare = surefireName(s), true
	case strings.HasSuffix(s, " FAILED") && strings.Contains(s, " > "): // gradle
		ft.name, ft.bare = gradleName(strings.TrimSuffix(s, " FAILED")), true
	case strings.HasPrefix(s, "\u2718 "): // playwright's progress: "✘  4 [chromium] › a.spec.ts:3:7 › t (5.1s)"
		ft.name, ft.bare = playwrightName(s[len("\u2718 "):]), true
	case strings.HasPrefix(s, "\u2717 ") || strings.HasPrefix(s, "\u2715 "): // xcpretty, mocha
		name, _, _ := strings.Cut(strings.TrimSpace(s[len("\u2717 "):]), ", ")
		ft.name = name
	case strings.HasPrefix(s, "FAIL: ") || strings.HasPrefix(s, "ERROR: "): // unittest
		_, ft.name, _ = strings.Cut(s, ": ")
		ft.header = true
	case strings.HasPrefix(s, "not ok "): // TAP
		_, rest, _ := strings.Cut(s[len("not ok "):], " ")
		ft.name = strings.TrimSpace(strings.TrimPrefix(rest, "- "))
	default:
		return ft, false
	}
	ft.name = strings.TrimSpace(ft.name)
	if ft.name == "" || len(ft.name) > maxTestBytes {
		return ft, false
	}
	return ft, true
}

// cutDuration drops a trailing " (1.23s)".
func cutDuration(s string) string {
	if i := strings.LastIndex(s, " ("); i > 0 && strings.HasSuffix(s, ")") {
		return s[:i]
	}
	return s
}

// surefireName turns Surefire's "m(com.x.CTest)  Time elapsed…" or
// "com.x.CTest.m -- Time elapsed…" into "com.x.CTest#m".
func surefireName(s string) string {
	s = strings.TrimSpace(strings.TrimPrefix(s, "[ERROR]"))
	if i := strings.Index(s, "Time elapsed"); i > 0 {
		s = strings.TrimRight(s[:i], " -")
	}
	if open := strings.IndexByte(s, '('); open > 0 && strings.HasSuffix(s, ")") {
		return s[open+1:len(s)-1] + "#" + s[:open]
	}
	if dot := strings.LastIndexByte(s, '.'); dot > 0 {
		return s[:dot] + "#" + s[dot+1:]
	}
	return s
}

// gradleName turns "com.x.CTest > m()" into "com.x.CTest#m".
func gradleName(s string) string {
	class, method, _ := strings.Cut(s, " > ")
	return strings.TrimSpace(class) + "#" + strings.TrimSuffix(strings.TrimSpace(method), "()")
}

// innermost returns the failed tests that no other failed test nests in:
// "chainsaw/workload-placement", not its parent "chainsaw".
func (t *testTracker) innermost() []failedTest {
	var out []failedTest
	for _, a := range t.failed {
		inner := true
		for _, b := range t.failed {
			if len(b.name) > len(a.name) && strings.HasPrefix(b.name, a.name+"/") {
				inner = false
				break
			}
		}
		if inner {
			out = append(out, a)
		}
	}
	return out
}

// testOf returns the failed test that line n belongs to, or nil: the test
// whose verdict is line n, the Go test whose output holds it, or the last
// failure header above it within the region.
func (t *testTracker) testOf(n int, reg region) *failedTest {
	inner := t.innermost()
	for i := range inner {
		if inner[i].n == n {
			return &inner[i]
		}
	}
	if ft := t.goTestHolding(n, inner); ft != nil {
		return ft
	}
	var best *failedTest
	for i := range inner {
		ft := &inner[i]
		if ft.header && ft.n < n && ft.n >= reg.first && (best == nil || ft.n > best.n) {
			best = ft
		}
	}
	return best
}

// goTestHolding returns the innermost failed Go test whose output holds
// line n: it started before n, and no other test started between.
func (t *testTracker) goTestHolding(n int, inner []failedTest) *failedTest {
	var best *failedTest
	bestStart := 0
	for i := range inner {
		s, ok := t.starts[inner[i].name]
		if !ok || s >= n || inner[i].n < n {
			continue
		}
		if best == nil || s > bestStart {
			best, bestStart = &inner[i], s
		}
	}
	if best == nil {
		return nil
	}
	for name, s := range t.starts {
		if s > bestStart && s < n && !strings.HasPrefix(name, best.name+"/") {
			return nil // another test ran in between
		}
	}
	return best
}

// fullName returns the longest name the runner gave the test: pytest names
// a test "test_b[x]" in its details and "tests/a.py::test_b[x]" in its
// summary.
func (t *testTracker) fullName(name string) string {
	for _, ft := range t.failed {
		if len(ft.name) > len(name) && strings.HasSuffix(ft.name, "::"+name) {
			return ft.name
		}
	}
	return name
}

// playwrightName reads a test from Playwright's progress line after the
// mark: the running index and the duration go.
func playwrightName(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, ' '); i > 0 && atoiDigits(s[:i]) {
		s = strings.TrimSpace(s[i+1:])
	}
	return cutDuration(s)
}

func atoiDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

// numberedFailure reads the numbered header that RSpec, Mocha and
// Playwright print above each failure's details ("  1) Cart totals applies
// the voucher", "  1) [chromium] › a.spec.ts:42:7 › cart › promo ────");
// minitest's "1) Failure:" names no test.
func numberedFailure(tt []byte) (failedTest, bool) {
	j := 0
	for j < len(tt) && j < 4 && isDigit(tt[j]) {
		j++
	}
	if j == 0 || j+2 > len(tt) || tt[j] != ')' || tt[j+1] != ' ' {
		return failedTest{}, false
	}
	name := strings.TrimSpace(strings.TrimRight(string(tt[j+2:]), " \u2500"))
	if name == "" || strings.HasSuffix(name, ":") || len(name) > maxTestBytes {
		return failedTest{}, false
	}
	return failedTest{name: name, header: true}, true
}

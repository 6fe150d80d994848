package causal

import (
	"fmt"
	"path"
	"regexp"
	"strings"
)

// FailedTest names the test a test failure is about: its id as the runner
// prints it and, when the log says, the file and line where it failed.
type FailedTest struct {
	ID   string `json:"id"`
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	// Printed is the file and line as the runner printed them, when they
	// could not be mapped to a repository path (a Java frame's package
	// path, a path relative to the runner's test directory).
	Printed string `json:"printed,omitempty"`
}

// testHeader is how one runner names a failed test. The id is the
// submatch named id; file and line, when the header carries them.
type testHeader struct {
	re *regexp.Regexp
	// kind and file say which locations below the header can be the
	// test's own line: the location kind and a pattern its file must match.
	kind string
	file *regexp.Regexp
}

var testFile = regexp.MustCompile(`(?i)(_test\.go|_spec\.rb|\.(test|spec)\.[cm]?[jt]sx?|(^|/)test_[^/]*\.py|_test\.py|Test\w*\.(java|kt)|IT\.(java|kt)|\.bats|(^|/)tests?/.*\.rs)$`)

// testHeaders are the failed-test lines of the common runners, each from
// the runner's documented output.
var testHeaders = []testHeader{
	// go test -v: "--- FAIL: TestName (0.01s)" (pkg.go.dev/cmd/go#hdr-Testing_flags).
	{re: regexp.MustCompile(`^\s*--- FAIL: (?P<id>\S+)`), kind: locGo, file: testFile},
	// gotestsum: "=== FAIL: ./pkg TestName (0.00s)".
	{re: regexp.MustCompile(`^=== FAIL: \S+ (?P<id>\S+)`), kind: locGo, file: testFile},
	// pytest's short summary: "FAILED tests/test_x.py::test_y - AssertionError".
	{re: regexp.MustCompile(`^(?:FAILED|ERROR) (?P<file>[^\s:]+\.py)::(?P<id>[^\s]+)`)},
	// TAP (bats, prove, node --test): "not ok 3 name"; bats adds
	// "# (in test file x.bats, line N)".
	{re: regexp.MustCompile(`^not ok \d+ (?:- )?(?P<id>.+?)\s*$`), kind: locBats},
	// Surefire/Failsafe 3: "com.acme.FooTest.bar -- Time elapsed: 1 s <<< FAILURE!";
	// 2.x: "bar(com.acme.FooTest)  Time elapsed: 1 s  <<< FAILURE!".
	{re: regexp.MustCompile(`^(?:\[ERROR\]|Error:)?\s*(?P<id>[\w$.]+\.[\w$]+)(?:\([^)]*\))? -- Time elapsed: .*<<< (?:FAILURE|ERROR)!`), kind: locJava, file: testFile},
	{re: regexp.MustCompile(`^(?:\[ERROR\]|Error:)?\s*(?P<id>[\w$]+\([\w$.]+\))\s+Time elapsed: .*<<< (?:FAILURE|ERROR)!`), kind: locJava, file: testFile},
	// Jest: "● Suite › test"; its frames point into the test file.
	{re: regexp.MustCompile(`^\s*● (?P<id>.+ › .+)$`), kind: locNode, file: testFile},
	// Vitest: " FAIL  src/x.test.ts > suite > test".
	{re: regexp.MustCompile(`^\s?FAIL\s+(?P<file>\S+\.[cm]?[jt]sx?)\s+> (?P<id>.+)$`)},
	// Playwright's list and line reporters: "1) [chromium] › e2e/x.spec.ts:12:5 › title".
	{re: regexp.MustCompile(`^\s*\d+\) (?:\[[\w -]+\] › )?(?P<file>\S+\.[cm]?[jt]sx?):(?P<line>\d+):\d+ › (?P<id>.+?)\s*(?:─+)?$`)},
	// RSpec's rerun list: "rspec ./spec/models/x_spec.rb:12 # Thing does it".
	{re: regexp.MustCompile(`^rspec (?P<file>\./\S+_spec\.rb):(?P<line>\d+) # (?P<id>.+)$`)},
	// cargo test: "---- tests::name stdout ----", then "panicked at src/x.rs:N:M".
	{re: regexp.MustCompile(`^---- (?P<id>\S+) stdout ----$`), kind: locRust},
}

// maxTestFrameLines bounds how far below its header a test's own file and
// line are looked for.
const maxTestFrameLines = 40

// failedTest names the failed test: the runner's header nearest above the
// cause line, else the first after it (a Go subtest's own header rather than
// its parent's), else the test a Go timeout panic lists as running; nil when
// no runner names one.
func (x *explainer) failedTest() *FailedTest {
	lines := append(append([]logLine(nil), x.log.Lines...), x.log.Tail...)
	var best *FailedTest
	var bestH *testHeader
	for _, l := range lines {
		t, h := readTestHeader(l.Text)
		if t == nil {
			continue
		}
		before := x.cause.N == 0 || l.N <= x.cause.N
		switch {
		case best != nil && strings.HasPrefix(t.ID, best.ID+"/"):
			// a subtest of the chosen test, printed after it
		case best != nil && !before:
			return x.finishTest(best, bestH)
		}
		x.testFrame(t, h, l.N)
		best, bestH = t, h
	}
	if best == nil {
		best = goTimedOutTest(lines)
	}
	return x.finishTest(best, bestH)
}

// finishTest maps the test's printed file to the repository.
func (x *explainer) finishTest(t *FailedTest, h *testHeader) *FailedTest {
	if t == nil || t.File == "" {
		return t
	}
	if p := x.testPath(t.File); p != "" {
		t.File = p
		return t
	}
	if p := x.goPackageFile(t.File); p != "" {
		t.File = p
		return t
	}
	t.Printed = t.File
	if t.Line > 0 {
		t.Printed = fmt.Sprintf("%s:%d", t.File, t.Line)
	}
	t.File, t.Line = "", 0
	return t
}

// goPackageResult is go test's result line of a package: "FAIL\timport/path\t0.01s".
var goPackageResult = regexp.MustCompile(`^(?:FAIL|ok)\s+(\S+)\s+(?:\d[\d.]*s|\[)`)

// goPackageFile maps the bare file name go test prints ("cart_test.go") to
// the repository through the package's result line and the module path of
// go.mod: the one failed package whose directory holds that file.
func (x *explainer) goPackageFile(name string) string {
	if strings.Contains(name, "/") || !strings.HasSuffix(name, "_test.go") || x.repo == nil {
		return ""
	}
	mod := x.goModule()
	if mod == "" {
		return ""
	}
	found := ""
	for _, l := range append(append([]logLine(nil), x.log.Lines...), x.log.Tail...) {
		m := goPackageResult.FindStringSubmatch(strings.TrimSpace(l.Text))
		if m == nil || !strings.HasPrefix(m[1], mod+"/") {
			continue
		}
		p := path.Join(strings.TrimPrefix(m[1], mod+"/"), name)
		if p != found && x.repo.Exists(p) {
			if found != "" {
				return "" // two packages hold a file of that name
			}
			found = p
		}
	}
	return found
}

// goModule is the module path of the repository's root go.mod, "" without one.
func (x *explainer) goModule() string {
	data, err := x.repo.ReadFile("go.mod")
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

// goTimeoutPanic and goRunningTest read go test's timeout report: "panic:
// test timed out after 10m0s", "running tests:" and one indented
// "TestName (10m0s)" line per test still running (Go 1.20 and later).
var (
	goTimeoutPanic = regexp.MustCompile(`^panic: test timed out after `)
	goRunningTest  = regexp.MustCompile(`^\s+(Test\S*|Example\S*|Fuzz\S*) \(\S+\)$`)
)

// goTimedOutTest is the most specific test a Go timeout panic lists.
func goTimedOutTest(lines []logLine) *FailedTest {
	var id string
	in := false
	for _, l := range lines {
		switch {
		case goTimeoutPanic.MatchString(l.Text):
			in = true
		case !in:
		case strings.TrimSpace(l.Text) == "running tests:":
		default:
			m := goRunningTest.FindStringSubmatch(l.Text)
			if m == nil {
				if id != "" {
					return &FailedTest{ID: id}
				}
				continue
			}
			if id == "" || strings.HasPrefix(m[1], id+"/") {
				id = m[1]
			}
		}
	}
	if id == "" {
		return nil
	}
	return &FailedTest{ID: id}
}

// workspacePrefix is a monorepo runner's package prefix on each line
// ("@scope/pkg: ", as lerna and turbo print).
var workspacePrefix = regexp.MustCompile(`^(?:@[\w.-]+/)?[\w.-]+: `)

// readTestHeader reads a failed-test header line and says which runner's
// header it is.
func readTestHeader(text string) (*FailedTest, *testHeader) {
	if t, h := readHeader(text); t != nil {
		return t, h
	}
	if m := workspacePrefix.FindString(text); m != "" {
		return readHeader(text[len(m):])
	}
	return nil, nil
}

// readHeader reads one line as each runner's header.
func readHeader(text string) (*FailedTest, *testHeader) {
	for i := range testHeaders {
		h := &testHeaders[i]
		m := h.re.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		t := &FailedTest{ID: clipText(m[h.re.SubexpIndex("id")], 200)}
		if j := h.re.SubexpIndex("file"); j > 0 {
			t.File = m[j]
		}
		if j := h.re.SubexpIndex("line"); j > 0 {
			t.Line = atoiBounded(m[j])
		}
		if t.ID == "" {
			continue
		}
		return t, h
	}
	return nil, nil
}

// testFrame fills a header's file and line from the first location of its
// runner's kind in the lines below it: a Go test's file:line, bats's "in
// test file", a Java frame of the test class, a Jest frame in a test file.
func (x *explainer) testFrame(t *FailedTest, h *testHeader, n int) {
	if t.Line > 0 || h.kind == "" {
		return
	}
	// go test -v streams a test's output between its "=== RUN" line and
	// its "--- FAIL" line; without -v the output follows "--- FAIL"
	// (pkg.go.dev/cmd/go#hdr-Testing_flags, -v).
	if h.kind == locGo {
		if run := x.goRunLine(t.ID, n); run > 0 && x.testFrameIn(t, h, run, n-1) {
			return
		}
	}
	x.testFrameIn(t, h, n+1, n+maxTestFrameLines)
}

// goRunLine is the log line of "=== RUN   id" before line n, 0 when the log
// does not show it.
func (x *explainer) goRunLine(id string, n int) int {
	want := "=== RUN   " + id
	for i := len(x.log.Lines) - 1; i >= 0; i-- {
		l := x.log.Lines[i]
		if l.N < n && strings.TrimSpace(l.Text) == want {
			return l.N
		}
	}
	return 0
}

// testFrameIn fills the test's file and line from the first location of its
// runner's kind on log lines from..to; it reports whether it found one.
func (x *explainer) testFrameIn(t *FailedTest, h *testHeader, from, to int) bool {
	for _, l := range x.locs {
		if l.N < from || l.N > to || l.Kind != h.kind || l.File == "" {
			continue
		}
		if h.file != nil && !h.file.MatchString(l.File) {
			continue
		}
		if h.kind == locJava && !javaFrameOf(t.ID, l.Symbol) {
			continue
		}
		t.File, t.Line = l.File, l.Line
		return true
	}
	return false
}

// javaFrameOf reports whether a frame's Class.method is the test's.
func javaFrameOf(id, frame string) bool {
	if i := strings.IndexByte(id, '('); i > 0 { // bar(com.acme.FooTest)
		id = strings.TrimSuffix(id[i+1:], ")") + "." + id[:i]
	}
	return frame == id
}

// testPath maps a printed test path to the repository: the file when the
// tree has it, else the path under the runner's workspace; "" when neither
// (a relative path may be relative to a test directory, a Java frame's
// path is its package's).
func (x *explainer) testPath(p string) string {
	if x.paths == nil {
		return ""
	}
	if q := x.paths.repoPath(p); q != "" {
		return q
	}
	if q, ok := x.paths.workspaceRelative(p); ok {
		return strings.TrimPrefix(path.Clean("/"+q), "/")
	}
	return ""
}

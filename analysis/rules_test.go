package analysis

import "testing"

func classifyText(text string, kind Kind) feature {
	b := []byte(text)
	return classifyLine(ruleInput{text: b, lc: lowerASCII(nil, b), kind: kind})
}

func TestClassifyLine(t *testing.T) {
	tests := []struct {
		text   string
		kind   Kind
		class  lineClass
		anchor bool
	}{
		{"src/main.c:12:5: error: 'x' undeclared", KindPlain, clsCompiler, true},
		{`C:\w\a.h(89): error C2143: syntax error: missing ','`, KindPlain, clsCompiler, true},
		{"error[E0425]: cannot find value `x` in this scope", KindPlain, clsCompiler, true},
		{"./main.go:12:5: undefined: foo", KindPlain, clsCompiler, true},
		{"--- FAIL: TestCheckout (0.31s)", KindPlain, clsTest, true},
		{"FAILED tests/test_a.py::test_b - AssertionError: boom", KindPlain, clsTest, true},
		{"tests/test_parse.py:14: AssertionError", KindPlain, clsException, true},
		{"AttributeError: module 'torch._C' has no attribute 'x'", KindPlain, clsException, true},
		{"Exception in thread \"main\" java.lang.NullPointerException", KindPlain, clsException, true},
		{"panic: runtime error: index out of range", KindPlain, clsException, true},
		{"read: connection reset by peer", KindPlain, clsInfra, true},
		{"npm ERR! code ECONNRESET", KindPlain, clsInfra, true},
		{"npm ERR! Failed at the app@1.0.0 test script.", KindPlain, clsGeneric, false},
		{"##[error]Process completed with exit code 1.", KindError, clsGeneric, false},
		{"##[error]The action 'Test' has timed out after 360 minutes.", KindError, clsRunner, true},
		{"##[error]The operation was canceled.", KindError, clsCancel, true},
		{"make: *** [Makefile:8: deps] Error 1", KindPlain, clsGeneric, false},
		// a pointer to the docs makes a wrapper, unless the line names the failure itself
		{"Error: build failed, see above for more details", KindPlain, clsGeneric, false},
		{"GitHub API request failed: API rate limit exceeded for 40.31.175.1. (But here's the good news: Authenticated requests get a higher rate limit. Check out the documentation for more details.)", KindPlain, clsInfra, true},
		// RSpec: the failed expectation is the failure, the rerun list a wrapper
		{"     Failure/Error: expect(order.total).to eq(42)", KindPlain, clsTest, true},
		{"Failed examples:", KindPlain, clsGeneric, false},
		// apt's closing advice wraps the "E: Failed to fetch" line that says why
		{"E: Unable to fetch some archives, maybe run apt-get update or try with --fix-missing?", KindPlain, clsGeneric, false},
		{"E: Failed to fetch http://deb.debian.org/debian/pool/main/c/curl/curl_7.88.deb  503  Service Unavailable [IP: 151.101.2.132 80]", KindPlain, clsError, true},
		// a marked stage of a progress display is not a test
		{" \u2717 Starting control-plane \U0001F579\ufe0f", KindPlain, clsKeyword, false},
		{"\u2717 testThatUploadWorks, XCTAssertTrue failed", KindPlain, clsTest, true},
		// Playwright's summary count is not a test's verdict
		{"  1 failed", KindPlain, clsKeyword, false},
		{"erlang.mk:6494: recipe for target 'ct' failed", KindPlain, clsGeneric, false},
		{"Tests run: 9, Failures: 1, Errors: 0, Skipped: 0", KindPlain, clsGeneric, false},
		{"Cache errors                           2", KindPlain, clsGeneric, false},
		// positioned warnings open blocks of the warning tier, chosen only
		// when the failing command printed nothing worse
		{"/x/upload_metrics.py:156: UserWarning: Error uploading metric", KindPlain, clsWarning, true},
		{"Sources/A.swift:88:42: warning: Colon Violation: Colons should be next", KindPlain, clsWarning, true},
		{"warning: unused variable x: not found", KindPlain, clsWarning, false},
		{"     Assertion with == failed", KindPlain, clsTest, true},
		{"compile: warnings being treated as errors", KindPlain, clsError, true},
		{"Failing due to -Werror.", KindPlain, clsError, true},
		{"Compiling Control.Exception.Compat", KindPlain, clsNone, false},
		{"Linting 'Error.swift' (10/48)", KindPlain, clsNone, false},
		{"test_error_handling PASSED", KindPlain, clsNone, false},
		{"timeout test PASSED", KindPlain, clsKeyword, false},
		{"reconnect => 0", KindPlain, clsNone, false},
		{"+ echo 'error: not really'", KindPlain, clsNone, false},
		{"[command]/usr/bin/git fetch --fail", KindCommand, clsNone, false},
		{"EXPECTED FAILED TEST SUMMARY", KindPlain, clsTest, false},
		{"Command took >30min, returning 124", KindPlain, clsInfra, true},
		{"    java.lang.IllegalArgumentException at LogDifferTest.java:61", KindPlain, clsException, true},
		{"Caused by:", KindPlain, clsKeyword, false},
		{"  \u25cf Console", KindPlain, clsKeyword, false},
		{"    error_page   500 502 503 504  /50x.html;", KindPlain, clsNone, false},
		{"      Expected: 1", KindPlain, clsKeyword, false},
		{"E       assert 9994 == 10000", KindPlain, clsTest, true},
		{"./thefuck/rules/x.py:9:5: E124 closing bracket does not match", KindPlain, clsCompiler, true},
		{"README.md:2186:Line longer than 80 characters.", KindPlain, clsCompiler, true},
		{"/x/gems/rake-12.0.0/exe/rake:27:in `<top (required)>'", KindPlain, clsNone, false},
		{"tests/test_materialize.py:143: in test_incremental_window", KindPlain, clsNone, false},
		{"  process didn't exit successfully: `rustc --crate-name x` (signal: 9, SIGKILL: kill)", KindPlain, clsInfra, true},
		{"[ERROR] Failed to execute goal x:y:1.0:go-offline on project p: Could not transfer artifact -> [Help 1]", KindPlain, clsError, true},
		{"[ERROR] -> [Help 1]", KindPlain, clsGeneric, false},
		{"  testThatUploadWorks, XCTAssertTrue failed", KindPlain, clsTest, true},
		{"Release \"karmada\" does not exist. Installing it now.", KindPlain, clsError, true}, // softened to half
	}
	for _, tc := range tests {
		f := classifyText(tc.text, tc.kind)
		anchor := f.score >= anchorScore && f.class != clsGeneric && f.class != clsHeader
		if f.class != tc.class || anchor != tc.anchor {
			t.Errorf("%q: class %v score %d (anchor %v); want %v anchor %v", tc.text, f.class, f.score, anchor, tc.class, tc.anchor)
		}
	}
}

func TestVocabularySkipsNames(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"see src/errors/handler.go", 0},
		{"libgpg-error installed", 0},
		{"Parsing Error.swift", 0},
		{"fatal error: x.h: No such file", 9},
		{"ValueError: bad", 3},
	}
	for _, tc := range tests {
		if got, _ := vocabScore(lowerASCII(nil, []byte(tc.text))); got != tc.want {
			t.Errorf("vocabScore(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}

// A sanitizer's report is the runtime's statement of why the process
// stopped: it outranks a positioned line worded with failure vocabulary,
// such as a skipped test's reason.
func TestSanitizerReportOutranksPositionedLines(t *testing.T) {
	skip := classifyText("test/functional/eval/let_spec.lua:64: fails on unix CI", KindPlain)
	for _, text := range []string{
		"= ==16563==ERROR: AddressSanitizer: SEGV on unknown address 0x000001d548d0 (pc 0x000000455084 T0)",
		"==9442== ERROR: AddressSanitizer: heap-use-after-free on address 0x614000000044",
		"SUMMARY: AddressSanitizer: heap-use-after-free a.cc:5 in main",
		"WARNING: ThreadSanitizer: data race (pid=9337)",
		"SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior a.cc:3:5 in",
	} {
		f := classifyText(text, KindPlain)
		if f.class != clsException || f.score <= skip.score {
			t.Errorf("%q: class %v score %d; want an exception above %d", text, f.class, f.score, skip.score)
		}
	}
	// the word alone is not a report
	if f := classifyText("Building with -fsanitize=address: AddressSanitizer: enabled", KindPlain); f.class == clsException {
		t.Errorf("a build setting classified as a sanitizer report: %v %d", f.class, f.score)
	}
}

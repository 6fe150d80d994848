package patch

import (
	"path"
	"strings"
)

// skipMarkers are the source-level ways to skip or narrow tests in the common
// frameworks, and the command-line flags that exclude tests by path. A patch
// may not add any of them.
var skipMarkers = []string{
	"t.Skip(", "t.Skipf(", "t.SkipNow(", "b.Skip(",
	"it.skip(", "describe.skip(", "test.skip(", "it.only(", "describe.only(", "test.only(",
	"context.skip(", "suite.skip(",
	"@pytest.mark.skip", "@pytest.mark.xfail", "pytest.skip(", "@unittest.skip", ".skipTest(",
	"@Disabled", "@Ignore",
	"--testPathIgnorePatterns", "--testPathIgnorePattern", "--deselect",
	"-DskipTests", "-Dmaven.test.skip", "-DskipITs",
}

// prefixedMarkers are skip or focus helpers written as a bare call (xit(,
// fdescribe(, PIt(): they only count when not part of a longer identifier.
var prefixedMarkers = []string{
	"xit(", "xdescribe(", "xtest(", "xcontext(", "fit(", "fdescribe(", "ftest(",
	"XIt(", "XDescribe(", "XContext(", "PIt(", "PDescribe(", "PContext(", "FIt(", "FDescribe(",
}

// assertionTokens are counted in test files: a patch may not lower the count.
var assertionTokens = []string{
	"assert", "expect(", "Expect(", "Eventually(", "require.", "t.Error", "t.Fatal",
	"assertThat", "verify(",
}

// checkTestMarkers rejects a change that adds a skip or focus marker anywhere,
// or that lowers the number of assertions in a test file.
func checkTestMarkers(p string, old, new []byte) error {
	if new == nil {
		return nil
	}
	oldText, newText := string(old), string(new)
	for _, m := range skipMarkers {
		if strings.Count(newText, m) > strings.Count(oldText, m) {
			return &ValidationError{Path: p, Line: firstNewLineWith(oldText, newText, m), Rule: RuleTestSkipped,
				Msg: "the patch adds " + m + ", which skips or narrows tests"}
		}
	}
	for _, m := range prefixedMarkers {
		if countBareCalls(newText, m) > countBareCalls(oldText, m) {
			return &ValidationError{Path: p, Line: firstNewLineWith(oldText, newText, m), Rule: RuleTestSkipped,
				Msg: "the patch adds " + m + ", which skips or focuses tests"}
		}
	}
	if old != nil && isTestFile(p) {
		for _, tok := range assertionTokens {
			if strings.Count(newText, tok) < strings.Count(oldText, tok) {
				return &ValidationError{Path: p, Rule: RuleTestRemoved, Msg: "the patch removes assertions (" + tok + ")"}
			}
		}
	}
	return nil
}

// countBareCalls counts occurrences of call that are not preceded by an
// identifier character or a dot.
func countBareCalls(text, call string) int {
	n := 0
	for i := 0; ; {
		j := strings.Index(text[i:], call)
		if j < 0 {
			return n
		}
		at := i + j
		if at == 0 || !isIdentByte(text[at-1]) {
			n++
		}
		i = at + len(call)
	}
}

// isIdentByte reports whether c can be part of an identifier or a member access.
func isIdentByte(c byte) bool {
	return c == '_' || c == '.' || c == '$' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// firstNewLineWith returns the 1-based line of the first line of newText that
// contains marker and does not occur in oldText, or 0.
func firstNewLineWith(oldText, newText, marker string) int {
	oldLines := make(map[string]bool)
	for _, l := range strings.Split(oldText, "\n") {
		oldLines[l] = true
	}
	for i, l := range strings.Split(newText, "\n") {
		if strings.Contains(l, marker) && !oldLines[l] {
			return i + 1
		}
	}
	return 0
}

// isTestFile reports whether a path names a test source by the usual
// conventions of Go, JavaScript, Python, Java, Ruby, bats and Chainsaw.
func isTestFile(p string) bool {
	base := path.Base(p)
	lower := strings.ToLower(base)
	ext := path.Ext(lower)
	stem := strings.TrimSuffix(lower, ext)
	switch {
	case strings.HasSuffix(lower, "_test.go"), strings.HasSuffix(lower, "_test.py"),
		strings.HasSuffix(lower, "_spec.rb"), ext == ".bats", lower == "chainsaw-test.yaml":
		return true
	case strings.HasPrefix(lower, "test_") && ext == ".py":
		return true
	case strings.HasSuffix(stem, ".test") || strings.HasSuffix(stem, ".spec"):
		return true
	case ext == ".java" && (strings.HasSuffix(base, "Test.java") || strings.HasSuffix(base, "Tests.java") || strings.HasSuffix(base, "IT.java")):
		return true
	case strings.Contains("/"+p, "/__tests__/"):
		return true
	}
	return false
}

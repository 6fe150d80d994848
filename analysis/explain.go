package analysis

import "strings"

// explanation is what the localiser says about the failing test, if any.
type explanation struct {
	cause   storedLine // the line that says why the test failed
	verdict storedLine // the runner's line naming the test, when it is not the cause
	test    string     // the failing test, innermost first
}

// explain names the failing test of the chosen cause and, when the cause is
// only the runner's verdict or header for that test, finds the line inside
// the test that says why it failed: the assertion or error in its output.
func (z *localizer) explain(best *block, reg region) explanation {
	cause := best.lines[best.best]
	ex := explanation{cause: cause}
	ft := z.tests.testOf(cause.n, reg)
	if ft == nil {
		ft = z.onlyFailure(reg)
	}
	if ft == nil {
		return ex
	}
	ex.test = z.tests.fullName(ft.name)
	if ft.n != cause.n {
		return ex
	}
	var why *storedLine
	switch {
	case ft.header:
		why = detailAfter(best, ft.n)
	case ft.bare:
		why = z.insideTest(ft)
		if why == nil {
			why = detailAfter(best, ft.n)
		}
	default:
		// a summary line with a message ("FAILED a.py::t - assert 1 == 2"):
		// the details printed under the test's own header say more
		why = z.detailsElsewhere(ft)
	}
	if why != nil {
		ex.cause, ex.verdict = *why, cause
	}
	return ex
}

// onlyFailure returns the failed test of the region when there is exactly
// one innermost failure in it, for causes printed outside any test's output.
func (z *localizer) onlyFailure(reg region) *failedTest {
	var found *failedTest
	inner := z.tests.innermost()
	for i := range inner {
		if inner[i].n < reg.first || inner[i].n > reg.last {
			continue
		}
		if found != nil && found.name != inner[i].name {
			return nil
		}
		found = &inner[i]
	}
	return found
}

// detailAfter returns the strongest line of b after line n, or the first
// non-blank one when none carries any evidence.
func detailAfter(b *block, n int) *storedLine {
	var best, first *storedLine
	for i := range b.lines {
		l := &b.lines[i]
		if l.n <= n || l.feat.flags&(fBlank|fFrame|fCommand|fNoise) != 0 {
			continue
		}
		if first == nil && wordy(l.text) {
			first = l
		}
		if l.feat.score > 0 && (best == nil || l.feat.score > best.feat.score) {
			best = l
		}
	}
	if best == nil {
		return first
	}
	return best
}

// insideTest returns the strongest line printed between a Go test's start
// and the start of the next test that is not one of its subtests, or nil.
func (z *localizer) insideTest(ft *failedTest) *storedLine {
	start, ok := z.tests.starts[ft.name]
	if !ok {
		return z.detailsElsewhere(ft)
	}
	end := ft.n
	for name, s := range z.tests.starts {
		if s > start && s < end && !strings.HasPrefix(name, ft.name+"/") {
			end = s
		}
	}
	var best *storedLine
	for _, b := range z.blocks {
		for i := range b.lines {
			l := &b.lines[i]
			if l.n > start && l.n < end && l.feat.score >= anchorScore && l.feat.class != clsTest &&
				(best == nil || l.feat.score > best.feat.score) {
				best = l
			}
		}
	}
	return best
}

// detailsElsewhere finds the details a runner printed for a test under a
// header of their own (cargo's "---- name stdout ----", pytest's "___ name
// ___") when another line (progress or summary) names the test.
func (z *localizer) detailsElsewhere(ft *failedTest) *storedLine {
	for _, h := range z.tests.failed {
		if !h.header || h.n == ft.n || !sameTest(h.name, ft.name) {
			continue
		}
		for _, b := range z.blocks {
			if b.first <= h.n && b.last >= h.n {
				return detailAfter(b, h.n)
			}
		}
	}
	return nil
}

// sameTest reports whether two names given to one test by one runner agree:
// "tests/a.py::test_b" and "test_b", "a::b::c" and "a::b::c".
func sameTest(a, b string) bool {
	return a == b || strings.HasSuffix(a, "::"+b) || strings.HasSuffix(b, "::"+a)
}

// testSignature prefixes a signature with the failing test's name, unless
// the signature already names it.
func testSignature(test, sig string) string {
	if test == "" || strings.Contains(sig, test) {
		return sig
	}
	return truncateUTF8(Normalize(strings.ToValidUTF8(test, "\uFFFD"))+": "+sig, maxSignatureBytes)
}

// wordy reports whether a line holds a word of three letters or more, as a
// statement does and a ruler or a bare number does not.
func wordy(s string) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		if isLetter(s[i]) {
			run++
			if run >= 3 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

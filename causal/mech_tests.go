package causal

import "github.com/polylane/polylane/analysis/history"

// Mechanisms of test failures.

var ruleTests = rule{ID: "test-failure/tests", Category: TestFailure, Catalogue: 1, Generic: true, Catalogued: true,
	Cause: res(`^--- FAIL: `, `^\s?FAIL\s`, `^\s*(Test Files|Tests)\s+\d+ failed\b`, `^FAILED \S+`, `\bAssertionError\b`, `Tests:\s+\d+ failed`, `^\s*● `, `✕`,
		`Exceeded timeout of \d+ ?ms for a (test|hook)`, `Timeout of \d+ms exceeded`, `Test timeout of \d+ms exceeded`,
		`Timed out retrying after \d+ms`, `Tests run: \d+, Failures: [1-9]`, `\[FAILED\]`, `WARNING: DATA RACE`,
		`^panic: `, `(?i)^\s*\d+ failing$`, `\b\d+ failed, \d+ passed`, `=+ \d+ failed`, `expected .* (to|but) `, `Error: expect\(`,
		`^=== FAIL: `, `^DONE \d+ tests(, \d+ skipped)?, \d+ failures?`, `<<< (FAILURE|ERROR)!`, `There are test failures`,
		`AssertionFailedError`, `^\s*Failure/Error: `, `^\d+ examples?, [1-9]\d* failures?`, `^Failed examples:`,
		`^\d+ (tests|properties|doctests)(, \d+ \w+)*, [1-9]\d* failures?`, `^\s*FAILED\s+Tests\\`,
		`^test result: FAILED\.`, `error: test failed, to rerun pass`, `^thread '[^']+' panicked at `,
		`Timed out \d+ms waiting for expect\(`, `^\s*✘\s+\d+ \[`, `^\s*\d+\) (\[[\w-]+\] › )?\S+:\d+:\d+ › `),
	Producer: roleEmitter, Fix: fixTestRerun, Transient: true,
	Summary: "A test failed in {emitter_desc}: '{cause_short}'{cause_cite}.{flaky_note}",
	Values:  map[string]summaryValue{"flaky_note": valueFlakyNote}}

// valueFlakyNote says that a test class that comes and goes is flaky, and
// where its nondeterminism lies when the log says: a data race, a
// deadlock or a crash is in the code under test, and a value the test
// asserted differently from run to run is in the test or the code it
// tests; neither is in the harness, so neither is rerun.
func valueFlakyNote(x *explainer) string {
	if x.in.Verdict.Kind != history.Flaky {
		return ""
	}
	note := " The same class comes and goes across the window with green runs in between" + cite(x.ids["runs"]...)
	switch {
	case x.productBug():
		return note + ": the race detector or the runtime found a data race, deadlock or crash in the code under test, so the nondeterminism is in the product, not in the harness, and a rerun would hide a real bug."
	case !x.waitRanOut():
		return note + ": the test got a different value than it asserted, not a wait that ran out, so the nondeterminism is in the test or the code it tests, not in the harness; its fix belongs there, not in a rerun."
	}
	return note + ", so the test is flaky rather than broken: it waited for something that did not happen in time."
}

package causal

import "testing"

func TestReadTestHeader(t *testing.T) {
	for _, c := range []struct {
		line, id, file string
		n              int
	}{
		{"--- FAIL: TestQueueDrains (0.02s)", "TestQueueDrains", "", 0},
		{"    --- FAIL: TestQueue/drains_on_close (0.00s)", "TestQueue/drains_on_close", "", 0},
		{"=== FAIL: ./internal/queue TestQueueDrains (0.02s)", "TestQueueDrains", "", 0},
		{"FAILED tests/test_queue.py::TestQueue::test_drain - AssertionError: 3 != 2", "TestQueue::test_drain", "tests/test_queue.py", 0},
		{"not ok 4 server restarts", "server restarts", "", 0},
		{"not ok 2 - parses the header", "parses the header", "", 0},
		{"[ERROR] com.acme.QueueIT.drains -- Time elapsed: 2.0 s <<< FAILURE!", "com.acme.QueueIT.drains", "", 0},
		{"Error:  drains(com.acme.QueueTest)  Time elapsed: 0.1 s  <<< ERROR!", "drains(com.acme.QueueTest)", "", 0},
		{"  ● Queue › drains on close", "Queue › drains on close", "", 0},
		{" FAIL  src/queue.test.ts > Queue > drains on close", "Queue > drains on close", "src/queue.test.ts", 0},
		{"  1) [chromium] › e2e/login.spec.ts:14:7 › signs in ──────────", "signs in", "e2e/login.spec.ts", 14},
		{"rspec ./spec/models/queue_spec.rb:12 # Queue drains on close", "Queue drains on close", "./spec/models/queue_spec.rb", 12},
		{"---- queue::tests::drains stdout ----", "queue::tests::drains", "", 0},
		{"@acme/queue: FAIL src/queue.test.ts > Queue > drains", "Queue > drains", "src/queue.test.ts", 0},
		{"@acme/queue:   ● Queue › drains", "Queue › drains", "", 0},
	} {
		got, h := readTestHeader(c.line)
		if got == nil || h == nil {
			t.Errorf("%q: no test read", c.line)
			continue
		}
		if got.ID != c.id || got.File != c.file || got.Line != c.n {
			t.Errorf("%q: read %+v, want id %q file %q line %d", c.line, *got, c.id, c.file, c.n)
		}
	}
	for _, line := range []string{
		"ok 3 server starts",
		"FAIL\tgithub.com/acme/queue\t0.02s",
		"Tests run: 12, Failures: 1, Errors: 0, Skipped: 0",
		"npm ERR! Test failed.  See above for more details.",
	} {
		if got, _ := readTestHeader(line); got != nil {
			t.Errorf("%q read as the failed test %+v", line, *got)
		}
	}
}

func TestGoTimedOutTest(t *testing.T) {
	lines := []logLine{
		{N: 1, Text: "panic: test timed out after 10m0s"},
		{N: 2, Text: "\trunning tests:"},
		{N: 3, Text: "\t\tTestDebouncer (10m0s)"},
		{N: 4, Text: "\t\tTestDebouncer/case_2 (10m0s)"},
		{N: 5, Text: ""},
		{N: 6, Text: "goroutine 7 [running]:"},
	}
	got := goTimedOutTest(lines)
	if got == nil || got.ID != "TestDebouncer/case_2" {
		t.Fatalf("goTimedOutTest = %+v, want TestDebouncer/case_2", got)
	}
	if got := goTimedOutTest(lines[2:]); got != nil {
		t.Errorf("a running-tests list without the timeout panic named %+v", *got)
	}
}

// TestGoVerboseTestFrame: with go test -v a test's output comes between its
// "=== RUN" and "--- FAIL" lines, so its file and line are read above the
// header; without -v, below it.
func TestGoVerboseTestFrame(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
	}{
		{"verbose", []string{"=== RUN   TestOther", "    other_test.go:9: unrelated", "--- PASS: TestOther (0.00s)",
			"=== RUN   TestDrain", "    drain_test.go:48: 2 jobs left, want 0", "--- FAIL: TestDrain (0.01s)", "FAIL"}},
		{"quiet", []string{"--- FAIL: TestDrain (0.01s)", "    drain_test.go:48: 2 jobs left, want 0", "FAIL"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ls []logLine
			for i, s := range tc.lines {
				ls = append(ls, logLine{N: i + 1, Text: s})
			}
			x := &explainer{facts: facts{log: &stepLog{Lines: ls, Cause: -1}}}
			x.locs = scanLocations(ls, 0)
			got := x.failedTest()
			if got == nil || got.ID != "TestDrain" || got.Printed != "drain_test.go:48" {
				t.Fatalf("failed test = %+v, want TestDrain at drain_test.go:48", got)
			}
		})
	}
}

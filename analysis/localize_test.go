package analysis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLocalizeStructure checks the structural choices of the localiser on
// small plain CI logs: where the cause lies and which lines come with it.
func TestLocalizeStructure(t *testing.T) {
	tests := []struct {
		log      string
		causeHas string   // text of the first cause line
		lines    []string // texts some returned line must hold
		notLines []string // texts no returned line may hold
	}{
		// nothing failure-like before the exit line: the exit line names the command
		{"exit-only.log", `The command "test/run !" exited with 1.`, []string{"Vim: Warning"}, nil},
		// a linter failing on warnings: the positioned warnings are the cause
		{"lint-warnings.log", "warning: C", []string{"Object+Combine.swift:88:42", "Object+Combine.swift:53:9"}, nil},
		// warnings treated as errors: the warning block is the cause, the -Werror line context
		{"werror.log", "Notebook.hs:94:10: Warning:", []string{"Failing due to -Werror.", "No explicit implementation"}, nil},
		// commands keep running after one fails: both failures are returned
		{"two-commands.log", "E302 expected 2 blank lines", []string{"AssertionError: assert 'fix' == 'fuck'"}, nil},
		// a Jenkins pipeline: the failing sh step, not the error words of an earlier one
		{"jenkins-pipeline.log", "internal/cart/total.go:42:9: undefined: applyVoucher", nil, []string{"error budget"}},
		// a failure marked in the progress listing and restated with its location below
		{"xcpretty.log", "testThatUploadRequestWithInvalidURLThrows, XCTAssertTrue failed", []string{"SessionTests.swift:550"}, []string{"\u2713 testThatDataRequestSucceeds"}},
		// pip gave up on the connection and then found no version: the connection failure is the cause
		{"pip-retries.log", "Retrying (Retry(total=0", []string{"Could not find a version that satisfies the requirement urllib3"}, nil},
		// no retries before it: a package that does not exist is the cause
		{"pip-missing.log", "No matching distribution found for reqeusts-oauth", nil, []string{"Retrying"}},
		// npm's report of a failed script and its pointers to the debug log
		// are passed over: the script's own last line is the cause
		{"npm-lifecycle.log", "Style differences found in the file above", []string{"src/styles/cart.css"}, nil},
		// npm 7+ relays a failed install script's output under "npm ERR!":
		// the relayed traceback's exception is the cause
		{"npm-relay.log", "ModuleNotFoundError: No module named 'distutils'", nil, nil},
		// an error the script swallowed with `|| true` (xtrace prints "+ true"):
		// the test failure at the end is the cause
		{"tolerated-error.log", "2 jobs left after close", nil, []string{"No such image"}},
	}
	for _, tc := range tests {
		t.Run(tc.log, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "localize", tc.log))
			if err != nil {
				t.Fatal(err)
			}
			res, err := Analyze(strings.NewReader(string(b)), Options{})
			if err != nil {
				t.Fatal(err)
			}
			cause, ok := res.Cause()
			if !ok || !strings.Contains(cause.Text, tc.causeHas) {
				t.Errorf("cause = %q, want %q", cause.Text, tc.causeHas)
			}
			for _, want := range tc.lines {
				if !hasLine(res, want) {
					t.Errorf("no returned line holds %q: %+v", want, res.Lines)
				}
			}
			for _, bad := range tc.notLines {
				if hasLine(res, bad) {
					t.Errorf("returned line holds %q", bad)
				}
			}
		})
	}
}

func hasLine(res *Result, s string) bool {
	for _, l := range res.Lines {
		if strings.Contains(l.Text, s) {
			return true
		}
	}
	return false
}

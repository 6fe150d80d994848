package analysis

import (
	"strings"
	"testing"
)

// TestCausePrinciples checks principles of issue 21 on small logs shaped
// like real ones: the failing tool's own statement ranks above its
// wrapper's exit line, a CI cache's bookkeeping and a label that only
// introduces the next line.
func TestCausePrinciples(t *testing.T) {
	for _, tc := range []struct {
		name, log, want string
	}{
		{"structured logger's error level over the action's exit line",
			"##[group]restore cache\nCache not found for input keys: golangci-lint.cache-2759-120f6f, golangci-lint.cache-\n##[endgroup]\n" +
				"Running [golangci-lint run] in [] ...\nlevel=error msg=\"Timeout exceeded: try increasing it by passing --timeout option\"\n\n##[error]golangci-lint exit with code 4\n",
			`level=error msg="Timeout exceeded`},
		{"a cache miss is bookkeeping, not the cause",
			"Cache not found for input keys: node-cache-Linux-npm-3f2a\nnpm ERR! code E404\nnpm ERR! 404 Not Found - GET https://registry.npmjs.org/@acme%2fmissing - Not found\n##[error]Process completed with exit code 1.\n",
			"npm ERR! 404 Not Found"},
		{"a label introduces the indented line under it",
			"error: failed to build archive\n\nCaused by:\n  process didn't exit successfully: `rustc --crate-name foo` (signal: 9, SIGKILL: kill)\n##[error]Process completed with exit code 101.\n",
			"process didn't exit successfully"},
		{"a bare marker gives way to the statement after it",
			"  Running:  login.cy.js\n[FAILED] \n[FAILED] Cypress verification timed out.\n##[error]Process completed with exit code 1.\n",
			"Cypress verification timed out."},
		{"python -m names the module it could not find",
			"##[group]Run tox\n##[endgroup]\nROOT: provision> .tox/.tox/bin/python -m tox\n/home/runner/work/app/app/.tox/.tox/bin/python: No module named tox\n##[error]Process completed with exit code 1.\n",
			"No module named tox"},
		{"a mocha teardown hook's error follows the setup's failure",
			"  0 passing (1m)\n  2 failing\n\n  1) \"before all\" hook in \"{root}\":\n     browserType.launch: Executable doesn't exist at /home/runner/.cache/ms-playwright/chromium-1045/chrome-linux/chrome\n      at setupBrowser (src/setup.ts:89:28)\n\n  2) \"after all\" hook in \"{root}\":\n     TypeError: Cannot read properties of undefined (reading 'close')\n      at Context.<anonymous> (src/setup.ts:39:17)\n\n##[error]Process completed with exit code 2.\n",
			"Executable doesn't exist"},
		{"Maven's resume advice is help text",
			"[ERROR] Failed to execute goal on project core: Could not transfer artifact com.google.errorprone:error_prone_core:jar:2.18.0: Connection reset\n[ERROR] \n[ERROR] After correcting the problems, you can resume the build with the command\n[ERROR]   mvn <args> -rf :core\n##[error]Process completed with exit code 1.\n",
			"Could not transfer artifact"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Analyze(strings.NewReader(tc.log), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Lines) == 0 || !strings.Contains(causeText(res), tc.want) {
				t.Errorf("cause = %q, want it to contain %q", causeText(res), tc.want)
			}
		})
	}
}

// causeText is the text of the result's cause line.
func causeText(r *Result) string {
	for _, l := range r.Lines {
		if l.Role == RoleCause || l.Role == "" {
			return l.Text
		}
	}
	return ""
}

package repoconfig

import (
	"strings"
	"testing"
)

// FuzzParse: a repository's .github/polylane.yml is written by anyone with
// push access. Parsing never panics, every warning is one line, and the
// configuration stays within the schema's bounds whatever the file says.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "window: 50\nbranches: [main]\nfix_pull_requests: {automatic: false, labels: [ci]}\n",
		"window: -1\nwindow: 1e309\n", "a: &a [*a]\n", "mute:\n  - class: x\n    reason: \"\\u0000\"\n",
		"llm: {enabled: yes, include_logs: 'no'}\n", "conclusions: [failure, success, ../../etc]\n", "\t- :\n",
		strings.Repeat("- ", 500) + "x\n", "workflows: !!binary aGVsbG8=\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, warnings := Parse(data)
		for _, w := range warnings {
			if strings.ContainsAny(w, "\n\r") {
				t.Fatalf("warning spans lines: %q", w)
			}
		}
		if cfg.Window < 0 || cfg.CloseAfterRuns < 0 {
			t.Fatalf("window %d, close after %d", cfg.Window, cfg.CloseAfterRuns)
		}
	})
}

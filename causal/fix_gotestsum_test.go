package causal

import (
	"errors"
	"strings"
	"testing"

	"github.com/polylane/polylane/causal/harness"
	"github.com/polylane/polylane/causal/patch"
)

func TestGotestsumRerun(t *testing.T) {
	tests := []struct {
		name, line, want string
		noFix            bool
	}{
		{name: "packages after --", line: "\tgotestsum --format testname -- -race ./...",
			want: "\tgotestsum --format testname --rerun-fails=2 --packages=\"./...\" -- -race"},
		{name: "several packages and a flag value", line: "  - gotestsum --junitfile j.xml -- -run TestA ./cmd/... ./internal/... -count=1",
			want: "  - gotestsum --junitfile j.xml --rerun-fails=2 --packages=\"./cmd/... ./internal/...\" -- -run TestA -count=1"},
		{name: "only packages after --", line: "gotestsum -- ./...",
			want: "gotestsum --rerun-fails=2 --packages=\"./...\""},
		{name: "packages flag already set", line: "gotestsum --packages=./... -- -race",
			want: "gotestsum --packages=./... --rerun-fails=2 -- -race"},
		{name: "already reruns", line: "gotestsum --rerun-fails --packages=./...", noFix: true},
		{name: "no package named", line: "gotestsum --format dots", noFix: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := harness.ParseShell("Makefile", 2, strings.TrimLeft(strings.TrimPrefix(tt.line, "  - "), "\t"))
			if len(s.Commands) != 1 {
				t.Fatalf("%d commands", len(s.Commands))
			}
			n := &harness.Node{Kind: harness.NodeCommand, Cmd: s.Commands[0], Text: s.Commands[0].Text}
			content := "first\n" + tt.line + "\nlast\n"
			out, err := gotestsumRerun(n, patch.Site{Path: "Makefile", Content: []byte(content)}, 2, 2)
			if tt.noFix {
				if !errors.Is(err, errNoFix) {
					t.Fatalf("err = %v, want no fix; out %q", err, out)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := "first\n" + tt.want + "\nlast\n"; string(out) != want {
				t.Errorf("got\n%q\nwant\n%q", out, want)
			}
		})
	}
}

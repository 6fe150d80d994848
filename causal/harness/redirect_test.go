package harness

import (
	"slices"
	"testing"
)

func TestCommandOutputs(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		{`./bin/server --listen :9000 >"$LOG" 2>&1 &`, []string{`"$LOG"`}},
		{`make build >> build.log`, []string{"build.log"}},
		{`go test ./... &> out.txt`, []string{"out.txt"}},
		{`cmd 2>err.log >out.log`, []string{"err.log", "out.log"}},
		{`cat "$LOG" >&2`, nil},
		{`sort < in.txt`, nil},
		{`cmd 3>fd3.txt`, nil},
	}
	for _, tt := range tests {
		s := ParseShell("x.sh", 1, tt.src)
		if len(s.Commands) != 1 {
			t.Fatalf("%q: %d commands", tt.src, len(s.Commands))
		}
		if got := s.Commands[0].Outputs; !slices.Equal(got, tt.want) {
			t.Errorf("%q: outputs %q, want %q", tt.src, got, tt.want)
		}
	}
}

package patch

import (
	"strings"
	"testing"
)

func TestWrapRetryInRun(t *testing.T) {
	src := "FROM rust:1.80\nWORKDIR /app\nCOPY . .\nRUN cargo fetch --locked && \\\n    cargo build --release\n"
	s := Site{Path: "Dockerfile", Content: []byte(src), Host: HostDockerfile, Line: 4, EndLine: 5}
	out, err := WrapRetryInRun(s, 4, "cargo fetch --locked", Retry{Attempts: 3, Delay: 20, What: "cargo fetch"})
	if err != nil {
		t.Fatal(err)
	}
	want := `RUN (for attempt in 1 2 3; do cargo fetch --locked && exit 0; echo "cargo fetch failed (attempt ${attempt}/3), retrying in $((attempt * 20))s"; sleep $((attempt * 20)); done; exit 1) && \`
	if got := strings.Split(string(out), "\n")[3]; got != want {
		t.Errorf("line 4 = %q\nwant     %q", got, want)
	}
	if !strings.Contains(string(out), "    cargo build --release\n") {
		t.Error("the command chained after it changed")
	}
	if err := Validate("Dockerfile", []byte(src), out); err != nil {
		t.Errorf("the patched Dockerfile does not parse: %v", err)
	}
	exec := Site{Path: "Dockerfile", Content: []byte("FROM alpine\nRUN [\"apk\", \"add\", \"curl\"]\n"), Host: HostDockerfile, Line: 2, EndLine: 2}
	if _, err := WrapRetryInRun(exec, 2, "apk", Retry{}); err == nil {
		t.Error("an exec-form RUN was wrapped")
	}
	twice := Site{Path: "Dockerfile", Content: []byte("FROM alpine\nRUN apk update && apk update\n"), Host: HostDockerfile, Line: 2, EndLine: 2}
	if _, err := WrapRetryInRun(twice, 2, "apk update", Retry{}); err == nil {
		t.Error("a command written twice on its line was wrapped")
	}
}

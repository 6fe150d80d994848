package patch

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkUnifiedDiff measures a diff of a 2,000-line file with 20 scattered
// edits, about the size of a large Taskfile or workflow.
func BenchmarkUnifiedDiff(b *testing.B) {
	var old, new strings.Builder
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&old, "      - echo line %d\n", i)
		if i%100 == 50 {
			fmt.Fprintf(&new, "      - echo changed %d\n      - echo added %d\n", i, i)
			continue
		}
		fmt.Fprintf(&new, "      - echo line %d\n", i)
	}
	a, c := []byte(old.String()), []byte(new.String())
	b.ReportAllocs()
	for b.Loop() {
		if UnifiedDiff("Taskfile.yaml", a, c) == "" {
			b.Fatal("empty diff")
		}
	}
}

// BenchmarkValidateTaskfile measures validating a Taskfile change end to end
// (YAML structure, shell parse of every command, test and loop checks).
func BenchmarkValidateTaskfile(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("version: '3'\ntasks:\n")
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&sb, "  t%d:\n    cmds:\n      - go test ./pkg%d/...\n      - for i in 1 2 3; do curl -fsS https://x && break; sleep 2; done\n", i, i)
	}
	old := []byte(sb.String())
	new := []byte(strings.Replace(sb.String(), "  t50:\n    cmds:\n", "  t50:\n    cmds:\n      - echo retrying\n", 1))
	b.ReportAllocs()
	for b.Loop() {
		if err := Validate("Taskfile.yaml", old, new); err != nil {
			b.Fatal(err)
		}
	}
}

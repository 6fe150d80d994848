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

// typicalWorkflow is a workflow of the size most repositories have (about
// 45 lines: a matrix, a service container, actions with inputs,
// expressions).
const typicalWorkflow = `name: Go
on:
  pull_request:
  push:
    branches: [main, 'release/**']
    tags: ['v*']
concurrency:
  group: go-${{ github.ref }}
  cancel-in-progress: true
jobs:
  test:
    runs-on: ${{ matrix.os }}
    strategy:
      fail-fast: false
      matrix:
        os: [ubuntu-latest, macos-latest]
        go: ['1.25', '1.26']
    services:
      redis:
        image: redis:7
        ports: ['6379:6379']
    env:
      REDIS_URL: redis://localhost:6379
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-go@v5
        with:
          go-version: ${{ matrix.go }}
          cache: true
      - name: Vet
        run: go vet ./...
      - name: Test
        run: go test -race -count=1 ./...
      - name: Upload coverage
        if: ${{ matrix.os == 'ubuntu-latest' && github.event_name == 'push' }}
        uses: actions/upload-artifact@v4
        with:
          name: coverage-${{ matrix.go }}
          path: coverage.out
  lint:
    runs-on: ubuntu-latest
    needs: test
    steps:
      - uses: actions/checkout@v4
      - run: make lint
`

// BenchmarkValidateWorkflow measures validating a one-line change of a
// typical workflow end to end; BenchmarkActionlint the actionlint part
// alone (both versions linted).
func BenchmarkValidateWorkflow(b *testing.B) {
	old := []byte(typicalWorkflow)
	new := []byte(strings.Replace(typicalWorkflow, "    needs: test\n", "    needs: test\n    timeout-minutes: 15\n", 1))
	b.Run("validate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := Validate(".github/workflows/go.yml", old, new); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("actionlint", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := checkActionlint(".github/workflows/go.yml", old, new); err != nil {
				b.Fatal(err)
			}
		}
	})
}

package patch

import (
	"strconv"
	"strings"
	"testing"
)

// applyUnified applies a single-file diff from UnifiedDiff to old, as a
// reference applier for the fuzz test: it trusts the hunk headers and checks
// every context and removed line against old.
func applyUnified(t *testing.T, old, diff string) string {
	t.Helper()
	src := splitLines([]byte(old))
	var out strings.Builder
	pos := 0
	lines := strings.SplitAfter(diff, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if !strings.HasPrefix(l, "@@ ") {
			continue
		}
		f := strings.Fields(l)
		start, _, _ := strings.Cut(f[1][1:], ",")
		n, _ := strconv.Atoi(start)
		oldCount := rangeCount(f[1])
		if oldCount > 0 {
			n--
		}
		for ; pos < n; pos++ {
			out.WriteString(src[pos])
		}
		for i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "@@ ") && lines[i+1] != "" {
			i++
			body := lines[i][1:]
			noEOL := i+1 < len(lines) && strings.HasPrefix(lines[i+1], `\ No newline`)
			if noEOL {
				body = strings.TrimSuffix(body, "\n")
				i++
			}
			switch lines[i-boolInt(noEOL)][0] {
			case ' ', '-':
				if pos >= len(src) || src[pos] != body {
					t.Fatalf("hunk line %q does not match old line %d %q", body, pos+1, at(src, pos))
				}
				if lines[i-boolInt(noEOL)][0] == ' ' {
					out.WriteString(body)
				}
				pos++
			case '+':
				out.WriteString(body)
			}
		}
	}
	for ; pos < len(src); pos++ {
		out.WriteString(src[pos])
	}
	return out.String()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "<eof>"
}

func FuzzUnifiedDiff(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n")
	f.Add("a\nb", "a\nb\n")
	f.Add("", "x\ny")
	f.Add("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n", "0\n1\n2\n3\n4\n5\n6\n7\n8\n10\n11\n12\n")
	f.Fuzz(func(t *testing.T, old, new string) {
		if len(old) > 4096 || len(new) > 4096 {
			return
		}
		diff := UnifiedDiff("f", []byte(old), []byte(new))
		if old == new {
			if diff != "" {
				t.Fatalf("diff of equal inputs = %q", diff)
			}
			return
		}
		if got := applyUnified(t, old, diff); got != new {
			t.Fatalf("applying the diff gives %q, want %q\n%s", got, new, diff)
		}
	})
}

func FuzzValidate(f *testing.F) {
	f.Add(".github/workflows/ci.yml", "jobs:\n  a:\n    steps:\n      - run: go test ./...\n", "jobs:\n  a:\n    steps:\n      - run: until go test ./...; do sleep 1; done\n")
	f.Add("Makefile", "a:\n\techo $(X)\n", "a:\n\t-echo $$(X)\n")
	f.Add("Taskfile.yml", "version: '3'\ntasks:\n  a: echo {{.X}}\n", "version: '3'\ntasks:\n  a:\n    cmds: [{task: a}]\n")
	f.Add("hack/x.sh", "#!/bin/sh\nwhile read l; do :; done\n", "#!/bin/sh\nwhile :; do (( n++ )); done\n")
	f.Add("Dockerfile", "FROM a AS b\nRUN x \\\n", "FROM a AS b\nRUN <<EOF\nEOF\n")
	bomb := strings.Repeat("$(", 20000) + "true" + strings.Repeat(")", 20000)
	f.Add("hack/x.sh", "#!/bin/sh\ntrue\n", "#!/bin/sh\necho "+bomb+"\n")
	f.Add(".github/workflows/ci.yml", "on: push\n", "on: "+strings.Repeat("[", 20000)+strings.Repeat("]", 20000)+"\n")
	f.Add(".github/workflows/ci.yml", "on: "+strings.Repeat("[", 20000)+strings.Repeat("]", 20000)+"\n", "on: push\n")
	f.Fuzz(func(t *testing.T, p, old, new string) {
		_ = Validate(p, []byte(old), []byte(new)) // must not panic
	})
}

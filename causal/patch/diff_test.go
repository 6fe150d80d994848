package patch

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/polylane/polylane/causal/patch/patchtest"
)

// roundTrip applies diff with git to a tree holding old at path and checks the
// result is new (or that the file is gone when new is nil).
func roundTrip(t *testing.T, path string, old, new []byte, diff string) {
	t.Helper()
	repo := fstest.MapFS{"README": {Data: []byte("anchor\n")}}
	if old != nil {
		repo[path] = &fstest.MapFile{Data: old}
	}
	if err := patchtest.ApplyCheck(t, repo, diff); err != nil {
		t.Fatalf("git apply --check rejected the diff: %v\n%s", err, diff)
	}
	got, err := patchtest.Apply(t, repo, diff)
	if err != nil {
		t.Fatalf("git apply: %v\n%s", err, diff)
	}
	data, err := fs.ReadFile(got, path)
	switch {
	case new == nil && err == nil:
		t.Fatalf("%s still exists after a deleting diff", path)
	case new == nil:
		return
	case err != nil:
		t.Fatalf("read patched %s: %v", path, err)
	case string(data) != string(new):
		t.Fatalf("patched %s = %q, want %q\n%s", path, data, new, diff)
	}
}

func TestUnifiedDiffAppliesWithGit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		path     string
		old, new string
		nilOld   bool
		nilNew   bool
		hunks    int
	}{
		{name: "single change mid file", path: "Taskfile.yaml",
			old: "a\nb\nc\nd\ne\nf\ng\nh\ni\n", new: "a\nb\nc\nd\nE\nf\ng\nh\ni\n", hunks: 1},
		{name: "insert at start", path: "x.txt", old: "a\nb\n", new: "z\na\nb\n", hunks: 1},
		{name: "append at end", path: "x.txt", old: "a\nb\n", new: "a\nb\nc\n", hunks: 1},
		{name: "two distant hunks", path: "Makefile",
			old: "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n",
			new: "1\nX\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\nY\n20\n", hunks: 2},
		{name: "close changes merge", path: "x", old: "1\n2\n3\n4\n5\n6\n7\n8\n9\n",
			new: "1\nA\n3\n4\n5\n6\n7\nB\n9\n", hunks: 1},
		{name: "missing final newline kept", path: "x", old: "a\nb", new: "a\nc", hunks: 1},
		{name: "final newline added", path: "x", old: "a\nb", new: "a\nb\n", hunks: 1},
		{name: "final newline removed", path: "x", old: "a\nb\n", new: "a\nb", hunks: 1},
		{name: "crlf kept", path: "x", old: "a\r\nb\r\nc\r\n", new: "a\r\nB\r\nc\r\n", hunks: 1},
		{name: "new file", path: "hack/retry.sh", nilOld: true, new: "#!/bin/sh\necho hi\n", hunks: 1},
		{name: "new file without newline", path: "n.txt", nilOld: true, new: "one", hunks: 1},
		{name: "new empty file", path: "empty.txt", nilOld: true, new: "", hunks: 0},
		{name: "deleted file", path: "gone.txt", old: "x\ny\n", nilNew: true, hunks: 1},
		{name: "empty to content", path: "x", old: "", new: "a\n", hunks: 1},
		{name: "content to empty", path: "x", old: "a\n", new: "", hunks: 1},
		{name: "path with space", path: "dir one/file two.txt", old: "a\n", new: "b\n", hunks: 1},
		{name: "non-ascii path", path: "d/caf\u00e9.txt", old: "a\n", new: "b\n", hunks: 1},
		{name: "removed line starting with dashes", path: "x.yaml", old: "--- a\n-- b\nc\n", new: "c\n", hunks: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var old, new []byte
			if !tc.nilOld {
				old = []byte(tc.old)
			}
			if !tc.nilNew {
				new = []byte(tc.new)
			}
			diff := UnifiedDiff(tc.path, old, new)
			if got := strings.Count(diff, "\n@@ "); got != tc.hunks {
				t.Errorf("UnifiedDiff(%q) has %d hunks, want %d\n%s", tc.name, got, tc.hunks, diff)
			}
			roundTrip(t, tc.path, old, new, diff)
		})
	}
}

func TestUnifiedDiffEqualIsEmpty(t *testing.T) {
	t.Parallel()
	if d := UnifiedDiff("x", []byte("a\n"), []byte("a\n")); d != "" {
		t.Fatalf("UnifiedDiff of equal content = %q, want empty", d)
	}
}

func TestUnifiedDiffHunkHeaders(t *testing.T) {
	t.Parallel()
	old := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
	new := "1\n2\n3\n4\n5\nsix\n7\n8\n9\n10\n"
	want := "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -3,7 +3,7 @@\n 3\n 4\n 5\n-6\n+six\n 7\n 8\n 9\n"
	if got := UnifiedDiff("f", []byte(old), []byte(new)); got != want {
		t.Fatalf("UnifiedDiff = %q, want %q", got, want)
	}
}

// TestUnifiedDiffRandomEdits applies random edit scripts and checks git gets
// back exactly the new file each time.
func TestUnifiedDiffRandomEdits(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"a", "b", "c", "d", "retry", "sleep 10", "", "  - task: x", "}"}
	for i := 0; i < 25; i++ {
		oldLines := make([]string, rng.IntN(40))
		for j := range oldLines {
			oldLines[j] = words[rng.IntN(len(words))]
		}
		newLines := append([]string(nil), oldLines...)
		for k := rng.IntN(6) + 1; k > 0; k-- {
			pos := rng.IntN(len(newLines) + 1)
			switch rng.IntN(3) {
			case 0:
				newLines = append(newLines[:pos], append([]string{fmt.Sprintf("new %d", k)}, newLines[pos:]...)...)
			case 1:
				if pos < len(newLines) {
					newLines = append(newLines[:pos], newLines[pos+1:]...)
				}
			default:
				if pos < len(newLines) {
					newLines[pos] = words[rng.IntN(len(words))] + "!"
				}
			}
		}
		old := strings.Join(oldLines, "\n")
		new := strings.Join(newLines, "\n")
		if rng.IntN(2) == 0 {
			old, new = old+"\n", new+"\n"
		}
		if old == new {
			continue
		}
		roundTrip(t, "f.txt", []byte(old), []byte(new), UnifiedDiff("f.txt", []byte(old), []byte(new)))
	}
}

func TestUnifiedDiffBoundedOnHugeInput(t *testing.T) {
	t.Parallel()
	var a, b strings.Builder
	for i := 0; i < 50000; i++ {
		fmt.Fprintf(&a, "old line %d\n", i)
		fmt.Fprintf(&b, "new line %d\n", i)
	}
	start := time.Now()
	diff := UnifiedDiff("big.txt", []byte(a.String()), []byte(b.String()))
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Fatalf("UnifiedDiff on 50k changed lines took %v, want a bounded run", elapsed)
	}
	files := Count(diff)
	if len(files) != 1 || files[0].Added != 50000 || files[0].Removed != 50000 {
		t.Fatalf("Count(huge diff) = %+v, want 50000 added and removed", files)
	}
}

func TestMyersIsMinimal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		old, new string
		changes  int
	}{
		{"a\nb\nc\na\nb\nb\na\n", "c\nb\na\nb\na\nc\n", 5},
		{"x\ny\nz\n", "x\nz\n", 1},
		{"", "a\nb\n", 2},
	}
	for _, tc := range tests {
		ops := diffLines(splitLines([]byte(tc.old)), splitLines([]byte(tc.new)))
		n := 0
		for _, op := range ops {
			if op.kind != opEqual {
				n++
			}
		}
		if n != tc.changes {
			t.Errorf("diffLines(%q, %q) has %d changed lines, want %d", tc.old, tc.new, n, tc.changes)
		}
	}
}

package patch

import (
	"errors"
	"strings"
	"testing"
)

func TestApply(t *testing.T) {
	base := "0\n1\n2\n3\na\nb\nc\nd\ne\nf\ng\nh\n"
	edited := "0\n1\n2\n3\na\nb\nc\nD\ne\nf\ng\nh\n"
	diff := UnifiedDiff("f.txt", []byte(base), []byte(edited))
	tests := []struct {
		name    string
		old     string
		diff    string
		want    string
		wantErr error
	}{
		{name: "exact position", old: base, diff: diff, want: edited},
		{name: "file gained lines above", old: "x\ny\n" + base, diff: diff, want: "x\ny\n" + edited},
		{name: "file lost lines above", old: base[2:], diff: diff, want: edited[2:]},
		{name: "context changed", old: strings.Replace(base, "c\n", "C\n", 1), diff: diff, wantErr: ErrDoesNotApply},
		{name: "removed line changed", old: strings.Replace(base, "d\n", "dd\n", 1), diff: diff, wantErr: ErrDoesNotApply},
		{name: "already applied", old: edited, diff: diff, wantErr: ErrDoesNotApply},
		{name: "no newline at end", old: "one\ntwo", diff: UnifiedDiff("f", []byte("one\ntwo"), []byte("one\nthree")), want: "one\nthree"},
		{name: "adds a final newline", old: "one", diff: UnifiedDiff("f", []byte("one"), []byte("one\n")), want: "one\n"},
		{name: "CRLF kept", old: "a\r\nb\r\nc\r\n", diff: UnifiedDiff("f", []byte("a\r\nb\r\nc\r\n"), []byte("a\r\nB\r\nc\r\n")), want: "a\r\nB\r\nc\r\n"},
		{name: "new file", old: "", diff: UnifiedDiff("n", nil, []byte("x\ny\n")), want: "x\ny\n"},
		{name: "pure insertion", old: "1\n2\n3\n", diff: "@@ -2,0 +3,1 @@\n+new\n", want: "1\n2\nnew\n3\n"},
		{name: "empty context line without its space", old: "a\n\nb\n", diff: "@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n", want: "a\n\nc\n"},
		{name: "malformed header", old: base, diff: "@@ -x +1 @@\n", wantErr: errMalformed},
		{name: "count mismatch", old: base, diff: "@@ -1,2 +1,2 @@\n a\n-b\n", wantErr: errMalformed},
		{name: "stray line", old: base, diff: "@@ -1,1 +1,1 @@\n*a\n", wantErr: errMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Apply([]byte(tc.old), tc.diff)
			switch {
			case tc.wantErr == errMalformed:
				if err == nil || errors.Is(err, ErrDoesNotApply) {
					t.Fatalf("err = %v, want a malformed-diff error", err)
				}
			case tc.wantErr != nil:
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			case string(got) != tc.want:
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// errMalformed marks cases that must fail without ErrDoesNotApply.
var errMalformed = errors.New("malformed")

func TestApplyDeletion(t *testing.T) {
	diff := UnifiedDiff("gone.txt", []byte("x\n"), nil)
	got, err := Apply([]byte("x\n"), diff)
	if err != nil || got != nil {
		t.Fatalf("deletion: %q, %v", got, err)
	}
	if _, err := Apply([]byte("y\n"), diff); !errors.Is(err, ErrDoesNotApply) {
		t.Fatalf("deleting a changed file: %v", err)
	}
}

// TestApplyRoundTrip applies UnifiedDiff's output for many edits, with the
// file shifted by lines added above, as git apply would.
func TestApplyRoundTrip(t *testing.T) {
	var lines []string
	for i := range 60 {
		lines = append(lines, strings.Repeat("x", i%7)+"line\n")
	}
	old := strings.Join(lines, "")
	edits := []func([]string) []string{
		func(l []string) []string { return append([]string{"head\n"}, l...) },
		func(l []string) []string { return append(l[:10:10], append([]string{"mid\n"}, l[10:]...)...) },
		func(l []string) []string { return append(l[:5:5], l[9:]...) },
		func(l []string) []string { c := append([]string(nil), l...); c[20], c[50] = "A\n", "B\n"; return c },
		func(l []string) []string { return append(append([]string(nil), l...), "tail") },
	}
	for i, edit := range edits {
		newText := strings.Join(edit(append([]string(nil), lines...)), "")
		diff := UnifiedDiff("f", []byte(old), []byte(newText))
		for _, shift := range []string{"", "s1\ns2\ns3\n"} {
			got, err := Apply([]byte(shift+old), diff)
			if err != nil {
				t.Fatalf("edit %d shift %q: %v\n%s", i, shift, err, diff)
			}
			if string(got) != shift+newText {
				t.Fatalf("edit %d shift %q: wrong result\n%s", i, shift, diff)
			}
		}
	}
}

func TestFiles(t *testing.T) {
	diff := UnifiedDiff("Taskfile.yaml", []byte("a\n"), []byte("b\n")) +
		UnifiedDiff("new.sh", nil, []byte("echo\n")) +
		UnifiedDiff("old.sh", []byte("rm\n"), nil)
	files, err := Files(diff)
	if err != nil {
		t.Fatal(err)
	}
	want := []FileDiff{{Path: "Taskfile.yaml"}, {Path: "new.sh", Created: true}, {Path: "old.sh", Deleted: true}}
	if len(files) != len(want) {
		t.Fatalf("%d files, want %d", len(files), len(want))
	}
	for i, w := range want {
		f := files[i]
		if f.Path != w.Path || f.Created != w.Created || f.Deleted != w.Deleted || !strings.HasPrefix(f.Diff, "diff --git") {
			t.Errorf("file %d: %+v, want %+v", i, f, w)
		}
	}
	if _, err := Files("diff --git x y\n@@ -1 +1 @@\n-a\n+b\n"); err == nil {
		t.Error("a part without file names was accepted")
	}
}

func FuzzApply(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n", "x\na\nb\nc\n")
	f.Add("", "new\n", "")
	f.Add("one", "one\ntwo", "zero\none")
	f.Fuzz(func(t *testing.T, old, newText, target string) {
		if len(old)+len(newText)+len(target) > 4096 {
			return
		}
		diff := UnifiedDiff("f", []byte(old), []byte(newText))
		if diff == "" {
			return
		}
		got, err := Apply([]byte(old), diff)
		if err != nil || string(got) != newText {
			t.Fatalf("round trip: %q, %v\n%s", got, err, diff)
		}
		_, _ = Apply([]byte(target), diff) // any file: never panics
		_, _ = Apply([]byte(old), target)  // any diff text: never panics
	})
}

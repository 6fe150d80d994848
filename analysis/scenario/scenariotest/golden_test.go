package scenariotest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestDiffShowsTheChangedLines(t *testing.T) {
	long := strings.Repeat("x", 300)
	cases := []struct {
		name       string
		want, got  string
		has, hasnt []string
	}{
		{name: "equal", want: "a\n", got: "a\n", has: []string{"(no difference)"}},
		{name: "one line changed", want: "a\nb\nc\nd\ne\n", got: "a\nb\nc\nD\ne\n",
			has: []string{"@@ line 4 @@", "  b\n  c\n- d\n+ D"}, hasnt: []string{"  a", "  e", "- e"}},
		{name: "line added at the end", want: "a\n", got: "a\nb\n", has: []string{"@@ line 2 @@", "+ b"}, hasnt: []string{"- "}},
		{name: "long line cut around the change", want: long + "1" + long, got: long + "2" + long,
			has: []string{"- …" + strings.Repeat("x", 80) + "1", "+ …" + strings.Repeat("x", 80) + "2"}, hasnt: []string{long}},
		{name: "many lines counted", want: "", got: strings.Repeat("y\n", 20), has: []string{"+ … 12 more lines"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := Diff([]byte(tc.want), []byte(tc.got))
			for _, s := range tc.has {
				if !strings.Contains(d, s) {
					t.Errorf("diff lacks %q:\n%s", s, d)
				}
			}
			for _, s := range tc.hasnt {
				if strings.Contains(d, s) {
					t.Errorf("diff holds %q:\n%s", s, d)
				}
			}
		})
	}
}

func TestGoldenDirUpdateThenCompare(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"stale.json": "old", "repo/hand.txt": "kept", "logs/1.txt": "old log"} {
		if err := writeFile(filepath.Join(dir, name), []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string][]byte{"runs.json": []byte("{}\n"), "logs/1.txt": []byte("new log\n")}
	t.Setenv(UpdateEnv, "1")
	GoldenDir(t, dir, files, "repo")
	t.Setenv(UpdateEnv, "")
	GoldenDir(t, dir, files, "repo")
	have, err := listFiles(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"logs/1.txt", "repo/hand.txt", "runs.json"}; !slices.Equal(have, want) {
		t.Errorf("files after UPDATE=1 = %q, want %q", have, want)
	}
}

func TestCompareDirNamesEveryDifference(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"same.txt": "a\n", "changed.txt": "a\n", "extra.txt": "x", "repo/hand.txt": "kept"} {
		if err := writeFile(filepath.Join(dir, name), []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	have, err := listFiles(dir, []string{"repo"})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"same.txt": []byte("a\n"), "changed.txt": []byte("b\n"), "missing.txt": []byte("m")}
	problems, err := compareDir(dir, files, have)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"changed.txt differs:\n@@ line 1 @@\n- a\n+ b", "missing.txt is missing", "extra.txt is not generated any more"}
	if !slices.Equal(problems, want) {
		t.Errorf("problems = %q, want %q", problems, want)
	}
}

func TestGoldenWritesWithUpdate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "out.golden")
	t.Setenv(UpdateEnv, "1")
	Golden(t, path, []byte("rendered\n"))
	if got, err := os.ReadFile(path); err != nil || string(got) != "rendered\n" {
		t.Fatalf("golden file = %q, %v", got, err)
	}
	t.Setenv(UpdateEnv, "")
	Golden(t, path, []byte("rendered\n"))
}

package scenariotest

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Golden files are committed expected outputs. A golden test compares what
// the code produces with the committed file; with UPDATE=1 it writes what
// the code produces instead, and the diff is reviewed in the commit.

// UpdateEnv names the environment variable that makes golden tests write
// their files: UPDATE=1.
const UpdateEnv = "UPDATE"

// maxReported is how many differing files GoldenDir names before it only
// counts them.
const maxReported = 5

// Updating reports whether golden tests write their files (UPDATE=1)
// instead of comparing with them.
func Updating() bool { return os.Getenv(UpdateEnv) == "1" }

// Golden compares got with the committed file at path and fails t with a
// short diff when they differ. With UPDATE=1 it writes got to path,
// creating the directories it needs.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if Updating() {
		if err := writeFile(path, got); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file: %v (UPDATE=1 writes it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from what the test got (UPDATE=1 rewrites it):\n%s", path, Diff(want, got))
	}
}

// GoldenDir compares a generated directory with the committed one: every
// file of files (slash-separated paths under dir) must match, and dir must
// hold no other file outside the subdirectories named in keep (written by
// hand). With UPDATE=1 it writes files and removes the others.
func GoldenDir(t testing.TB, dir string, files map[string][]byte, keep ...string) {
	t.Helper()
	have, err := listFiles(dir, keep)
	if err != nil {
		t.Fatal(err)
	}
	if Updating() {
		if err := rewriteDir(dir, files, have); err != nil {
			t.Fatal(err)
		}
		return
	}
	problems, err := compareDir(dir, files, have)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) == 0 {
		return
	}
	more := ""
	if len(problems) > maxReported {
		more = fmt.Sprintf("\n… and %d more", len(problems)-maxReported)
		problems = problems[:maxReported]
	}
	t.Errorf("%s differs from its generator's output (UPDATE=1 rewrites it):\n%s%s", dir, strings.Join(problems, "\n"), more)
}

// compareDir lists how dir, holding the files have, differs from files.
func compareDir(dir string, files map[string][]byte, have []string) ([]string, error) {
	var problems []string
	for _, name := range slices.Sorted(maps.Keys(files)) {
		want, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			problems = append(problems, name+" is missing")
		case err != nil:
			return nil, fmt.Errorf("read golden file: %w", err)
		case !bytes.Equal(want, files[name]):
			problems = append(problems, name+" differs:\n"+Diff(want, files[name]))
		}
	}
	for _, name := range have {
		if _, ok := files[name]; !ok {
			problems = append(problems, name+" is not generated any more")
		}
	}
	return problems, nil
}

// listFiles returns the regular files under dir as slash-separated paths,
// leaving out those under keep; a missing dir has none.
func listFiles(dir string, keep []string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == dir {
			return fs.SkipAll
		}
		if err != nil {
			return fmt.Errorf("list %s: %w", dir, err)
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return fmt.Errorf("list %s: %w", dir, err)
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() && slices.Contains(keep, rel) {
			return fs.SkipDir
		}
		if d.Type().IsRegular() {
			out = append(out, rel)
		}
		return nil
	})
	return out, err
}

// rewriteDir writes files under dir and removes have's other files.
func rewriteDir(dir string, files map[string][]byte, have []string) error {
	for _, name := range have {
		if _, ok := files[name]; ok {
			continue
		}
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			return fmt.Errorf("remove stale golden file: %w", err)
		}
	}
	for name, data := range files {
		if path.IsAbs(name) || strings.HasPrefix(path.Clean(name), "../") {
			return fmt.Errorf("golden file %q is outside %s", name, dir)
		}
		if err := writeFile(filepath.Join(dir, filepath.FromSlash(name)), data); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(name string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return fmt.Errorf("write golden file: %w", err)
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		return fmt.Errorf("write golden file: %w", err)
	}
	return nil
}

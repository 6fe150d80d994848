package patch

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/polylane/polylane/analysis/scenario/scenariotest"
)

// readSide reads testdata/validate/<case>/<side>/<path>, nil when absent.
func readSide(t *testing.T, dir, side, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, side, filepath.FromSlash(p)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatalf("read %s %s: %v", side, p, err)
	}
	return data
}

// TestValidateCases runs every case under testdata/validate: old/ and new/
// hold the file, want its path and the expected rule (or "ok").
func TestValidateCases(t *testing.T) {
	t.Parallel()
	dirs, err := filepath.Glob("testdata/validate/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no validation cases: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			want, err := os.ReadFile(filepath.Join(dir, "want"))
			if err != nil {
				t.Fatalf("read want: %v", err)
			}
			lines := strings.Split(strings.TrimSpace(string(want)), "\n")
			p, rule := lines[0], lines[1]
			old, new := readSide(t, dir, "old", p), readSide(t, dir, "new", p)
			err = Validate(p, old, new)
			var ve *ValidationError
			switch {
			case rule == "ok" && err != nil:
				t.Fatalf("Validate(%s) = %v, want ok", p, err)
			case rule == "ok":
			case !errors.As(err, &ve):
				t.Fatalf("Validate(%s) = %v, want a %s ValidationError", p, err, rule)
			case ve.Rule != rule:
				t.Fatalf("Validate(%s) rule = %s (%v), want %s", p, ve.Rule, err, rule)
			}
		})
	}
}

func TestCheckPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path string
		ok   bool
	}{
		{"Taskfile.yaml", true},
		{".github/workflows/ci.yml", true},
		{"dir one/file.txt", true},
		{"", false},
		{"/etc/passwd", false},
		{"../outside", false},
		{"a/../../b", false},
		{"a/./b", false},
		{".git/config", false},
		{"a\\b", false},
		{"a\nb", false},
		{".", false},
	}
	for _, tc := range tests {
		err := CheckPath(tc.path)
		if (err == nil) != tc.ok {
			t.Errorf("CheckPath(%q) = %v, want ok=%v", tc.path, err, tc.ok)
		}
	}
}

func TestCheckPathInRefusesSymlinks(t *testing.T) {
	t.Parallel()
	repo := fstest.MapFS{
		"hack/run.sh":  {Data: []byte("echo\n")},
		"link":         {Data: []byte("/etc"), Mode: fs.ModeSymlink},
		"scripts":      {Data: []byte("../elsewhere"), Mode: fs.ModeSymlink},
		"Makefile":     {Data: []byte("all:\n")},
		"docs/file.md": {Data: []byte("x\n")},
	}
	tests := []struct {
		path string
		ok   bool
	}{
		{"hack/run.sh", true},
		{"hack/new.sh", true},
		{"new/dir/file", true},
		{"link", false},
		{"scripts/x.sh", false},
		{"Makefile/x", false},
	}
	for _, tc := range tests {
		err := CheckPathIn(repo, tc.path)
		if (err == nil) != tc.ok {
			t.Errorf("CheckPathIn(%q) = %v, want ok=%v", tc.path, err, tc.ok)
		}
	}
}

func TestKindOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path    string
		content string
		want    fileKind
	}{
		{".github/workflows/ci.yml", "", kindWorkflow},
		{"Taskfile.yaml", "", kindTaskfile},
		{"taskfiles/e2e.yml", "version: '3'\ntasks:\n  a: echo\n", kindTaskfile},
		{"deploy/app.yaml", "kind: Deployment\n", kindYAML},
		{"Makefile", "", kindMakefile},
		{"build/tools.mk", "", kindMakefile},
		{"hack/x.sh", "", kindShell},
		{"bin/run", "#!/usr/bin/env bash\n", kindShell},
		{"bin/tool", "#!/usr/bin/env python3\n", kindOther},
		{"images/api.Dockerfile", "", kindDockerfile},
		{"Dockerfile.test", "", kindDockerfile},
	}
	for _, tc := range tests {
		if got := kindOf(tc.path, []byte(tc.content)); got != tc.want {
			t.Errorf("kindOf(%q) = %d, want %d", tc.path, got, tc.want)
		}
	}
}

// TestValidateScenarioHarness checks that the example scenarios' own harness
// files validate against themselves with a harmless added line, so the checks
// do not reject real-world files.
func TestValidateScenarioHarness(t *testing.T) {
	t.Parallel()
	root := sharedScenarios(t)
	files := []string{
		"karmada-rollout/repo/Taskfile.yaml",
		"karmada-rollout/repo/.github/workflows/test-e2e.yml",
		"karmada-rollout/repo/hack/e2e/patch-cluster-secret.sh",
		"karmada-rollout/repo/Dockerfile",
		"npm-registry-flake/repo/Makefile",
		"npm-registry-flake/repo/.github/workflows/ci.yml",
	}
	for _, f := range files {
		old, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatalf("read %s: %v", f, err)
		}
		p := f[strings.Index(f, "/repo/")+len("/repo/"):]
		if err := Validate(p, old, append(append([]byte(nil), old...), "\n# checked by polylane\n"...)); err != nil {
			t.Errorf("Validate(%s) with a comment appended = %v, want ok", p, err)
		}
	}
}

// sharedScenarios returns the scenarios directory of the shared tree,
// skipping when it is absent (and failing when CI=true).
func sharedScenarios(t *testing.T) string {
	t.Helper()
	return scenariotest.Path(t, "scenarios")
}

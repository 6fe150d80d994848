package scenariotest

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDirFromEnvironment(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvDir, dir)
	if got := Dir(); got != dir {
		t.Errorf("Dir() = %q, want %q", got, dir)
	}
}

func TestDirDefaultIsBesideTheRepository(t *testing.T) {
	t.Setenv(EnvDir, "")
	got, err := filepath.Abs(Dir())
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(filepath.Dir(root), "shared"); got != want {
		t.Errorf("Dir() = %q, want %q", got, want)
	}
}

func TestPathAndOptional(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "scenarios", "one"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvDir, dir)
	t.Setenv("CI", "")
	cases := []struct {
		name    string
		elem    []string
		present bool
	}{
		{"present", []string{"scenarios", "one"}, true},
		{"missing", []string{"scenarios", "two"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := filepath.Join(append([]string{dir}, tc.elem...)...)
			p, ok := Optional(t, tc.elem...)
			if p != want || ok != tc.present {
				t.Errorf("Optional = %q, %v; want %q, %v", p, ok, want, tc.present)
			}
			reached := false
			t.Run("Path", func(t *testing.T) {
				if got := Path(t, tc.elem...); got != want {
					t.Errorf("Path = %q, want %q", got, want)
				}
				reached = true
			})
			if reached != tc.present {
				t.Errorf("Path returned = %v, want %v (a missing input skips)", reached, tc.present)
			}
		})
	}
}

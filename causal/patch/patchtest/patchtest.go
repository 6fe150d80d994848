// Package patchtest checks unified diffs against a real git: it copies a
// repository given as an fs.FS into a temporary directory, initialises a git
// repository there and runs git apply. It is for tests only.
package patchtest

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// CopyToDir writes every regular file of fsys under dir, keeping the
// executable bit. Symbolic links and other special files are skipped.
func CopyToDir(fsys fs.FS, dir string) error {
	return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("walk %s: %w", p, err)
		}
		target := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
		mode := os.FileMode(0o644)
		if info, err := d.Info(); err == nil && info.Mode()&0o111 != 0 {
			mode = 0o755
		}
		if err := os.WriteFile(target, data, mode); err != nil {
			return fmt.Errorf("write %s: %w", target, err)
		}
		return nil
	})
}

// Checkout copies repo into a fresh temporary directory and runs git init
// there. It returns the directory.
func Checkout(t testing.TB, repo fs.FS) string {
	t.Helper()
	dir := t.TempDir()
	if err := CopyToDir(repo, dir); err != nil {
		t.Fatalf("copy repository: %v", err)
	}
	if _, err := git(dir, nil, "init", "-q"); err != nil {
		t.Fatalf("git init: %v", err)
	}
	return dir
}

// ApplyCheck runs `git apply --check` for diff in a checkout of repo and
// returns git's complaint as an error, nil when the diff applies.
func ApplyCheck(t testing.TB, repo fs.FS, diff string) error {
	t.Helper()
	_, err := git(Checkout(t, repo), []byte(diff), "apply", "--check", "-")
	return err
}

// Apply applies diff with git apply in a checkout of repo and returns the
// patched tree as an fs.FS.
func Apply(t testing.TB, repo fs.FS, diff string) (fs.FS, error) {
	t.Helper()
	dir := Checkout(t, repo)
	if _, err := git(dir, []byte(diff), "apply", "-"); err != nil {
		return nil, err
	}
	return os.DirFS(dir), nil
}

// git runs one git command in dir with stdin and an isolated configuration.
func git(dir string, stdin []byte, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "HOME="+dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return out.String(), fmt.Errorf("git %s: %s", strings.Join(args, " "), strings.TrimSpace(out.String()))
		}
		return out.String(), fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return out.String(), nil
}

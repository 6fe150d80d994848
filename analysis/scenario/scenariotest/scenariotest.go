// Package scenariotest finds the shared data sets and example scenarios that
// tests and benchmarks read in place, never copied into the repository: the
// directory named by POLYLANE_SHARED_DIR, by default "shared" beside the
// repository root. What a test needs and cannot find skips it with one
// message, or fails it when CI=true.
//
// It also holds the golden-file helpers every package's tests use: Golden
// compares an output with its committed file, GoldenDir a generated
// directory with the committed one, and with UPDATE=1 both write instead.
// The package sits under analysis/, the bottom layer, so that tests of every
// layer (analysis, causal, server, cmd) can import it; it is for tests only.
package scenariotest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// EnvDir names the environment variable that locates the shared directory.
const EnvDir = "POLYLANE_SHARED_DIR"

// Dir returns the shared directory: $POLYLANE_SHARED_DIR, else the "shared"
// directory beside the repository root (the nearest directory above the
// working directory that holds go.mod; tests run in their package's
// directory).
func Dir() string {
	if d := os.Getenv(EnvDir); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		return filepath.Join("..", "shared")
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return filepath.Join("..", "shared")
		}
		dir = parent
	}
}

// Path returns the path of elem under the shared directory. When it does not
// exist, Path skips tb, or fails it when CI=true.
func Path(tb testing.TB, elem ...string) string {
	tb.Helper()
	p, err := stat(tb, elem)
	if err != nil {
		tb.Skip(err)
	}
	return p
}

// Optional returns the path of elem under the shared directory and whether
// it exists, for tests that also have inputs of their own: when it is
// missing the test says so in its log and goes on, or fails when CI=true.
func Optional(tb testing.TB, elem ...string) (string, bool) {
	tb.Helper()
	p, err := stat(tb, elem)
	if err != nil {
		tb.Log(err)
		return p, false
	}
	return p, true
}

// stat joins elem under the shared directory and checks that it exists; a
// missing path fails tb when CI=true.
func stat(tb testing.TB, elem []string) (string, error) {
	tb.Helper()
	p, err := find(elem)
	if err != nil && os.Getenv("CI") == "true" {
		tb.Fatalf("%v (CI=true: the shared directory is required)", err)
	}
	return p, err
}

// find joins elem under the shared directory and checks that it exists.
func find(elem []string) (string, error) {
	p := filepath.Join(append([]string{Dir()}, elem...)...)
	_, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return p, fmt.Errorf("shared input %s not found (set %s)", p, EnvDir)
	}
	if err != nil {
		return p, fmt.Errorf("shared input (set %s): %w", EnvDir, err)
	}
	return p, nil
}

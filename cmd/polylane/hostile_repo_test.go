package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// outsideMarker ends every command and description of a file outside the
// scenario directory that the scenario's repository points at; it must
// never appear in what Polylane prints.
const outsideMarker = "OUTSIDE-THE-SCENARIO-7f3a"

// hostileScenario copies an in-repository scenario and makes its repo/
// hostile: Taskfile.yml (the file the diagnosis patches) becomes a
// symbolic link to a file outside the scenario directory, and the workflow
// gains a step that names ../../etc/passwd in every way a workflow can.
func hostileScenario(t *testing.T) string {
	t.Helper()
	dir := copyScenario(t, synthetic("rs-go-gotestsum-flake"))
	taskfile := filepath.Join(dir, "repo", "Taskfile.yml")
	original, err := os.ReadFile(taskfile)
	if err != nil {
		t.Fatal(err)
	}
	var marked []string
	for _, l := range strings.Split(strings.TrimRight(string(original), "\n"), "\n") {
		if trimmed := strings.TrimSpace(l); strings.HasPrefix(trimmed, "- ") || strings.HasPrefix(trimmed, "desc:") {
			l += " " + outsideMarker
		}
		marked = append(marked, l)
	}
	outside := filepath.Join(t.TempDir(), "Taskfile.yml")
	if err := os.WriteFile(outside, []byte(strings.Join(marked, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(taskfile); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, taskfile); err != nil {
		t.Skipf("symbolic links are not available: %v", err)
	}
	workflow := filepath.Join(dir, "repo", ".github", "workflows", "ci.yml")
	wf, err := os.ReadFile(workflow)
	if err != nil {
		t.Fatal(err)
	}
	leak := "\n  leak:\n    runs-on: ubuntu-latest\n    steps:\n      - name: Leak\n        working-directory: ../../etc\n" +
		"        run: cat ../../etc/passwd && task -t ../../etc/passwd test && source ../../../etc/passwd\n" +
		"      - uses: ./../../etc/passwd\n"
	wf = append(wf, leak...)
	if err := os.WriteFile(workflow, wf, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// copyScenario copies a scenario directory into a temporary one.
func copyScenario(t *testing.T, src string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "scenario")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestDiagnoseStaysInTheScenario diagnoses a scenario whose repository
// files try to reach outside it: nothing of the linked file, nor of
// /etc/passwd, shows in any output format, and the diagnosis still runs.
func TestDiagnoseStaysInTheScenario(t *testing.T) {
	dir := hostileScenario(t)
	for _, format := range []string{"json", "markdown", "text"} {
		code, out, errOut := runCLI("diagnose", "--scenario", dir, "--format", format)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", format, code, errOut)
		}
		for _, leak := range []string{"OUTSIDE-THE-SCENARIO", "root:x:0:0", "/bin/bash\n"} {
			if strings.Contains(out, leak) || strings.Contains(errOut, leak) {
				t.Errorf("%s output shows %q from outside the scenario", format, leak)
			}
		}
	}
}

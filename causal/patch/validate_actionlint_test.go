package patch

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lintedWorkflow has a shell script and a Python script, which the
// actionlint command would hand to shellcheck and pyflakes, and an error
// (an undefined job in needs) for the check to find.
const lintedWorkflow = `name: CI
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    needs: [missing]
    steps:
      - run: echo $UNQUOTED && ls *
      - shell: python
        run: import os; print(undefined_name)
`

// TestActionlintRunsNoProgram: the check never starts shellcheck or
// pyflakes, found on PATH or not. Stand-ins on PATH record a run; with
// PATH empty the result is the same.
func TestActionlintRunsNoProgram(t *testing.T) {
	bin := t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	for _, name := range []string{"shellcheck", "pyflakes"} {
		script := "#!/bin/sh\necho " + name + " >> " + marker + "\n"
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	results := map[string]string{}
	for _, path := range []string{bin, ""} {
		t.Setenv("PATH", path)
		err := Validate(".github/workflows/ci.yml", nil, []byte(lintedWorkflow))
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Rule != RuleActionlint || ve.Line != 4 {
			t.Fatalf("PATH=%q: Validate = %v, want the actionlint error of line 4", path, err)
		}
		results[path] = err.Error()
	}
	if results[bin] != results[""] {
		t.Errorf("the result depends on PATH:\n%s\n%s", results[bin], results[""])
	}
	if ran, err := os.ReadFile(marker); err == nil {
		t.Fatalf("the check ran %s", strings.TrimSpace(string(ran)))
	}
}

// TestActionlintReadsNoFile: the check sees only the bytes it is given.
// In a working directory that is a repository whose actionlint.yaml
// allows the runner label and whose local action requires an input, the
// label is still unknown and the missing input is not noticed: neither
// file was read.
func TestActionlintReadsNoFile(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		".git/HEAD":                        "ref: refs/heads/main\n",
		".github/actionlint.yaml":          "self-hosted-runner:\n  labels: [gpu-box]\n",
		".github/actions/setup/action.yml": "name: setup\ninputs:\n  token:\n    required: true\nruns:\n  using: node20\n  main: index.js\n",
	}
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	workflow := "on: push\njobs:\n  e2e:\n    runs-on: [self-hosted, gpu-box]\n    steps:\n      - uses: ./.github/actions/setup\n"
	var kinds []string
	for _, e := range lintErrors(".github/workflows/e2e.yml", []byte(workflow)) {
		kinds = append(kinds, e.Kind)
	}
	if strings.Join(kinds, ",") != "runner-label" {
		t.Fatalf("errors of kinds %v, want only runner-label (the config and the action file unread)", kinds)
	}
}

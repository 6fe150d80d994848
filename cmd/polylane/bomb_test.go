package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// nestingBombs are about 400 KB of shell that nests 40,000 to 200,000
// levels deep, one per construct a parser recurses on.
var nestingBombs = map[string]string{
	"parentheses":   strings.Repeat("( ", 200000) + "true" + strings.Repeat(" )", 200000),
	"braces":        strings.Repeat("{ ", 80000) + "true" + strings.Repeat("; }", 80000),
	"substitutions": "echo " + strings.Repeat("$(", 133000) + "true" + strings.Repeat(")", 133000),
	"arithmetic":    "echo $((" + strings.Repeat("(", 200000) + "1" + strings.Repeat(")", 200000) + "))",
	"if blocks":     strings.Repeat("if true; then ", 20000) + "true" + strings.Repeat("; fi", 20000),
	"unary minus":   "echo $((" + strings.Repeat("- ", 200000) + "1))",
}

// bombSite puts a bomb in one kind of harness file of a copy of the
// rs-go-gotestsum-flake scenario, whose failing step "Test" runs `task
// test`, and returns the file that must be reported as not analysed.
type bombSite struct {
	name  string
	plant func(t *testing.T, repo, bomb string) string
}

var bombSites = []bombSite{
	{"workflow run block", func(t *testing.T, repo, bomb string) string {
		replaceIn(t, repo, ".github/workflows/ci.yml", "run: task test", "run: task test; "+bomb)
		return ".github/workflows/ci.yml"
	}},
	{"Taskfile command", func(t *testing.T, repo, bomb string) string {
		replaceIn(t, repo, "Taskfile.yml", "      - gotestsum", "      - |\n        "+bomb+"\n      - gotestsum")
		return "Taskfile.yml"
	}},
	{"Makefile recipe", func(t *testing.T, repo, bomb string) string {
		replaceIn(t, repo, ".github/workflows/ci.yml", "run: task test", "run: make test")
		writeIn(t, repo, "Makefile", "test:\n\tgo test ./...\n\t"+bomb+"\n")
		return "Makefile"
	}},
	{"called script", func(t *testing.T, repo, bomb string) string {
		replaceIn(t, repo, ".github/workflows/ci.yml", "run: task test", "run: ./ci/test.sh")
		writeIn(t, repo, "ci/test.sh", "#!/bin/sh\nset -e\ngo test ./...\n"+bomb+"\n")
		return "ci/test.sh"
	}},
}

// TestHostileNestingBombs diagnoses scenarios whose harness nests
// hundreds of thousands of levels deep: before the nesting check such a
// file overflowed the parser's stack, which kills the process. Each must
// finish (exit 0, within 10 s and 200 MB without the race detector) and
// name the file it did not analyse, in the JSON and in the comment.
func TestHostileNestingBombs(t *testing.T) {
	for _, site := range bombSites {
		for kind, bomb := range nestingBombs {
			t.Run(site.name+"/"+kind, func(t *testing.T) {
				dir := copyScenario(t, synthetic("rs-go-gotestsum-flake"))
				file := site.plant(t, filepath.Join(dir, "repo"), bomb)
				checkBombDiagnosis(t, dir, file)
			})
		}
	}
	yamlBombs := map[string]func(repo string){
		"workflow flow nesting": func(repo string) {
			replaceIn(t, repo, ".github/workflows/ci.yml", "permissions:", "env:\n  X: "+strings.Repeat("[", 200000)+strings.Repeat("]", 200000)+"\npermissions:")
		},
		"Taskfile block nesting": func(repo string) {
			replaceIn(t, repo, "Taskfile.yml", "tasks:", "vars:\n  X: "+strings.Repeat("- ", 200000)+"x\ntasks:")
		},
		"package.json": func(repo string) {
			replaceIn(t, repo, ".github/workflows/ci.yml", "run: task test", "run: npm test")
			writeIn(t, repo, "package.json", `{"scripts": {"test": "go test ./..."}, "x": `+strings.Repeat("[", 200000)+strings.Repeat("]", 200000)+"}")
		},
	}
	files := map[string]string{"workflow flow nesting": ".github/workflows/ci.yml", "Taskfile block nesting": "Taskfile.yml", "package.json": "package.json"}
	for name, plant := range yamlBombs {
		t.Run(name, func(t *testing.T) {
			dir := copyScenario(t, synthetic("rs-go-gotestsum-flake"))
			plant(filepath.Join(dir, "repo"))
			checkBombDiagnosis(t, dir, files[name])
		})
	}
}

func checkBombDiagnosis(t *testing.T, dir, file string) {
	t.Helper()
	cmd := polylaneCmd(nil, "diagnose", "--scenario", dir, "--json")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if err != nil {
		t.Fatalf("diagnose: %v: %s", err, clipBytes(errOut.String()))
	}
	rss := int64(0)
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss << 10
	}
	t.Logf("%s: %v, %d MB resident", file, took.Round(time.Millisecond), rss>>20)
	if !raceDetector && (took > 10*time.Second || rss > 200<<20) {
		t.Errorf("took %v and %d MB resident; want under 10 s and 200 MB", took, rss>>20)
	}
	var d struct {
		NotAnalysed []struct{ File, Reason string } `json:"not_analysed"`
	}
	if err := json.Unmarshal(out.Bytes(), &d); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	found := false
	for _, s := range d.NotAnalysed {
		found = found || (s.File == file && strings.Contains(s.Reason, "nests deeper than"))
	}
	if !found {
		t.Errorf("not_analysed = %+v, want %s", d.NotAnalysed, file)
	}
	code, md, _ := runCLI("diagnose", "--scenario", dir, "--format", "markdown")
	if code != exitOK || !strings.Contains(md, "Not analysed") || !strings.Contains(md, file) {
		t.Errorf("the comment does not name %s as not analysed (exit %d)", file, code)
	}
}

func replaceIn(t *testing.T, repo, file, old, new string) {
	t.Helper()
	p := filepath.Join(repo, file)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s has no %q", file, old)
	}
	writeIn(t, repo, file, strings.Replace(string(data), old, new, 1))
}

func writeIn(t *testing.T, repo, file, content string) {
	t.Helper()
	p := filepath.Join(repo, file)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func clipBytes(s string) string {
	if len(s) > 500 {
		return s[:500] + "…"
	}
	return s
}

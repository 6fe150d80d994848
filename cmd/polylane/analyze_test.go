package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polylane/polylane/analysis/scenario/scenariotest"
)

// analyzeTestdata is the analysis package's test log directory.
var analyzeTestdata = filepath.Join("..", "..", "analysis", "testdata", "analyze")

func runAnalyzeCLI(stdin string, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = runMain(context.Background(), append([]string{"analyze"}, args...), strings.NewReader(stdin), &out, &errb, func(string) string { return "" })
	return code, out.String(), errb.String()
}

// checkAnalysisJSON asserts the polylane.analysis/v1 shape of contracts.md §4.
func checkAnalysisJSON(t *testing.T, out string) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if doc["schema"] != "polylane.analysis/v1" {
		t.Errorf("schema = %v", doc["schema"])
	}
	lines, ok := doc["lines"].([]any)
	if !ok {
		t.Fatalf("lines = %T, want an array", doc["lines"])
	}
	for i, l := range lines {
		m, _ := l.(map[string]any)
		n, nok := m["n"].(float64)
		_, tok := m["text"].(string)
		role, _ := m["role"].(string)
		if !nok || n < 1 || !tok || (role != "cause" && role != "context") || (i == 0) != (role == "cause") {
			t.Errorf("line %d = %v", i, l)
		}
	}
	if _, ok := doc["signature"].(string); !ok {
		t.Errorf("signature = %v", doc["signature"])
	}
	if s, ok := doc["step"]; ok {
		m, _ := s.(map[string]any)
		if _, ok := m["number"].(float64); !ok || m["name"] == nil {
			t.Errorf("step = %v", s)
		}
	}
	if e, ok := doc["exit_code"]; ok {
		if _, ok := e.(float64); !ok {
			t.Errorf("exit_code = %v", e)
		}
	}
	return doc
}

func TestAnalyzeCLI(t *testing.T) {
	log := filepath.Join(analyzeTestdata, "github-go-test.log")
	jobs := filepath.Join(analyzeTestdata, "github-go-test.jobs.json")
	passing := filepath.Join(analyzeTestdata, "passing.log")
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		stdin    string
		args     []string
		code     int
		outHas   string
		errHas   string
		json     bool
		stepName string
	}{
		{"help", "", []string{"--help"}, exitOK, "Usage: polylane analyze", "", false, ""},
		{"json", "", []string{log, "--json"}, exitOK, `"schema": "polylane.analysis/v1"`, "", true, "Run go test ./..."},
		{"flags after and before", "", []string{"--json", "--jobs", jobs, log}, exitOK, "expected total 10, got 12", "", true, "Unit tests"},
		{"job id", "", []string{"--jobs", jobs, "--job", "7001", log, "--json"}, exitOK, "Unit tests", "", true, "Unit tests"},
		{"baseline", "", []string{"--baseline", passing, "--baseline", passing, log, "--json"}, exitOK, "TestCheckoutTotal", "", true, "Run go test ./..."},
		{"stdin", string(data), []string{"-", "--json"}, exitOK, "expected total", "", true, "Run go test ./..."},
		{"text", "", []string{log}, exitOK, "signature:", "", false, ""},
		{"missing log", "", []string{"/nonexistent/log.txt"}, exitUsage, "", "polylane analyze: open log", false, ""},
		{"directory", "", []string{analyzeTestdata}, exitUsage, "", "is a directory", false, ""},
		{"no log", "", []string{"--json"}, exitUsage, "", "exactly one LOG", false, ""},
		{"two logs", "", []string{log, log}, exitUsage, "", "exactly one LOG", false, ""},
		{"bad jobs", "", []string{"--jobs", log, log}, exitUsage, "", "parse jobs", false, ""},
		{"unknown job", "", []string{"--jobs", jobs, "--job", "5", log}, exitUsage, "", "no job 5", false, ""},
		{"bad flag", "", []string{"--nope", log}, exitUsage, "", "flag provided but not defined", false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runAnalyzeCLI(tc.stdin, tc.args...)
			if code != tc.code || !strings.Contains(out, tc.outHas) || !strings.Contains(errOut, tc.errHas) {
				t.Fatalf("code %d stdout %q stderr %q; want code %d, stdout with %q, stderr with %q", code, out, errOut, tc.code, tc.outHas, tc.errHas)
			}
			if tc.code == exitUsage && strings.Count(strings.TrimSpace(errOut), "\n") > 0 && tc.name != "bad flag" {
				t.Errorf("error is not one line: %q", errOut)
			}
			if tc.json {
				doc := checkAnalysisJSON(t, out)
				step, _ := doc["step"].(map[string]any)
				if step["name"] != tc.stepName {
					t.Errorf("step = %v, want %q", step, tc.stepName)
				}
			}
		})
	}
}

// TestAnalyzeCLIPyTorchFixtures is the acceptance check of issue 3: every
// PyTorch fixture log yields contract-conforming JSON.
func TestAnalyzeCLIPyTorchFixtures(t *testing.T) {
	dir := scenariotest.Path(t, "data", "pytorch-fixtures", "clean")
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	if len(logs) == 0 {
		t.Fatalf("no PyTorch fixtures under %s", dir)
	}
	for _, log := range logs {
		code, out, errOut := runAnalyzeCLI("", log, "--json")
		if code != exitOK {
			t.Fatalf("%s: code %d: %s", log, code, errOut)
		}
		doc := checkAnalysisJSON(t, out)
		if lines := doc["lines"].([]any); len(lines) == 0 || strings.Contains(lines[0].(map[string]any)["text"].(string), "Process completed with exit code") {
			t.Errorf("%s: no cause line, or the generic exit-code line as cause", log)
		}
	}
}

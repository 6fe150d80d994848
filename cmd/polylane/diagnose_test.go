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

// synthetic is a scenario written by the diagnosis package's generator.
func synthetic(name string) string {
	return filepath.Join("..", "..", "causal", "diagnosis", "testdata", "scenarios", name)
}

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = runMain(context.Background(), args, strings.NewReader(""), &out, &errb, func(string) string { return "" })
	return code, out.String(), errb.String()
}

func TestDiagnoseHelp(t *testing.T) {
	code, out, errOut := runCLI("diagnose", "--help")
	if code != exitOK || !strings.Contains(out, "Usage: polylane diagnose --scenario DIR") || errOut != "" {
		t.Errorf("help: code %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestDiagnoseBadInput(t *testing.T) {
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "scenario.json"), []byte(`{"schema": "polylane.scenario/v1", "repository": {"full_name": "a/b"}, "trigger_run_id": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "runs.json"), []byte("{\n \"workflow_runs\": [\n {\"id\": }\n]}"), 0o644); err != nil {
		t.Fatal(err)
	}
	success := synthetic("regression-unit-test")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no scenario", []string{"diagnose"}, "--scenario DIR is required"},
		{"missing dir", []string{"diagnose", "--scenario", filepath.Join(bad, "nope")}, "scenario.json: file is missing"},
		{"bad runs.json", []string{"diagnose", "--scenario", bad}, "runs.json: invalid JSON at line 3"},
		{"green run", []string{"diagnose", "--scenario", success, "--run", "5000000"}, "did not fail"},
		{"bad window", []string{"diagnose", "--scenario", success, "--window", "0"}, "--window must be positive"},
		{"bad format", []string{"diagnose", "--scenario", success, "--format", "html"}, "unknown --format"},
		{"unknown flag", []string{"diagnose", "--scenaro", success}, "flag provided but not defined"},
	}
	for _, tt := range tests {
		code, out, errOut := runCLI(tt.args...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, tt.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: code %d, stdout %q, stderr %q; want exit 2 and one line with %q", tt.name, code, out, errOut, tt.want)
		}
	}
}

func TestDiagnoseJSON(t *testing.T) {
	code, out, errOut := runCLI("diagnose", "--scenario", synthetic("regression-unit-test"), "--json")
	if code != exitOK {
		t.Fatalf("code %d: %s", code, errOut)
	}
	var doc struct {
		Schema  string `json:"schema"`
		Verdict struct {
			Kind        string  `json:"kind"`
			FirstBadSHA *string `json:"first_bad_sha"`
		} `json:"verdict"`
		Chain *struct {
			Mechanism struct {
				Category string `json:"category"`
			} `json:"mechanism"`
		} `json:"chain"`
		Patch    *json.RawMessage `json:"patch"`
		Clusters []struct {
			Count int `json:"count"`
		} `json:"clusters"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if doc.Schema != "polylane.diagnosis/v1" || doc.Verdict.Kind != "regression" || doc.Verdict.FirstBadSHA == nil || doc.Clusters[0].Count != 5 {
		t.Errorf("document = %+v", doc)
	}
	// A regression in product code gets a chain that says so, and no patch.
	if doc.Chain == nil || doc.Chain.Mechanism.Category == "" || doc.Patch != nil {
		t.Errorf("document = %+v", doc)
	}
}

func TestDiagnoseText(t *testing.T) {
	code, out, errOut := runCLI("diagnose", "--scenario", synthetic("regression-unit-test"), "--window", "20")
	if code != exitOK {
		t.Fatalf("code %d: %s", code, errOut)
	}
	scenariotest.Golden(t, filepath.Join("testdata", "diagnose-regression.txt"), []byte(out))
}

func TestDiagnoseMarkdown(t *testing.T) {
	code, out, errOut := runCLI("diagnose", "--scenario", synthetic("regression-unit-test"), "--format", "markdown")
	if code != exitOK {
		t.Fatalf("code %d: %s", code, errOut)
	}
	for _, want := range []string{"<!-- polylane:assessment v1 ", "```mermaid\nflowchart TD", "#### Causal chain", "@polylane help"} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown output lacks %q:\n%s", want, out)
		}
	}
}

func TestDiagSafe(t *testing.T) {
	if got := diagSafe("a\x1b[31mred\x07\tb"); got != "a?[31mred? b" {
		t.Errorf("diagSafe = %q", got)
	}
}

package main

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/polylane/polylane/analysis/scenario/scenariotest"
)

// TestSecretInLogNeverRepublishedByDiagnose diagnoses a scenario whose
// failing Composer step prints the job's installation token in a clone URL
// (the cause line) and a personal access token in a header: no output of
// `polylane diagnose` (JSON, text, markdown) or `polylane analyze` holds
// either token, the redacted form names the kind, the document records
// where the log printed it, and the comment tells the maintainers to rotate
// it.
func TestSecretInLogNeverRepublishedByDiagnose(t *testing.T) {
	dir := synthetic("secret-in-log")
	tokens := scenariotest.PrintedTokens(t, dir)
	outputs := map[string]string{}
	for _, format := range []string{"json", "text", "markdown"} {
		code, out, errOut := runCLI("diagnose", "--scenario", dir, "--format", format)
		if code != exitOK {
			t.Fatalf("diagnose --format %s: code %d: %s", format, code, errOut)
		}
		outputs["diagnose --format "+format] = out + errOut
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "logs", "*.txt"))
	for _, log := range logs {
		for _, args := range [][]string{{log}, {log, "--json"}} {
			code, out, errOut := runAnalyzeCLI("", args...)
			if code != exitOK {
				t.Fatalf("analyze %v: code %d: %s", args, code, errOut)
			}
			outputs["analyze "+strings.Join(args, " ")] = out + errOut
		}
	}
	names := make([]string, 0, len(outputs))
	for name := range outputs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		out := outputs[name]
		for _, tok := range tokens {
			// the random part, which markdown escaping leaves alone
			if strings.Contains(out, tok[4:]) {
				t.Errorf("%s prints the token %s…", name, tok[:8])
			}
		}
		if m := scenariotest.GitHubToken.FindString(out); m != "" {
			t.Errorf("%s prints a GitHub token %s…", name, m[:8])
		}
	}
	for _, name := range []string{"diagnose --format json", "diagnose --format text", "diagnose --format markdown"} {
		if !strings.Contains(outputs[name], "[redacted: GitHub token]") {
			t.Errorf("%s does not say a GitHub token was redacted:\n%.3000s", name, outputs[name])
		}
	}
	var doc struct {
		Failure struct {
			Lines []struct {
				N int `json:"n"`
			} `json:"lines"`
		} `json:"failure"`
		Redacted []struct {
			Kind string `json:"kind"`
			Line int    `json:"line"`
		} `json:"redacted_secrets"`
	}
	if err := json.Unmarshal([]byte(outputs["diagnose --format json"]), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Failure.Lines) == 0 {
		t.Fatal("the diagnosis has no failure line")
	}
	cause := doc.Failure.Lines[0].N
	found := false
	for _, r := range doc.Redacted {
		found = found || r.Kind == "GitHub token" && r.Line == cause
	}
	if !found {
		t.Errorf("redacted_secrets = %+v, want a GitHub token on line %d", doc.Redacted, cause)
	}
	md := outputs["diagnose --format markdown"]
	if !strings.Contains(md, "rotate") || !strings.Contains(md, "GitHub token") {
		t.Errorf("the comment does not ask to rotate the printed credential:\n%.4000s", md)
	}
}

package repoconfig

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	full := Config{
		Workflows:     []string{".github/workflows/e2e.yml", "Unit Tests", ".github/workflows/release-*.yml"},
		Branches:      []string{"main", "release/*"},
		Window:        50,
		Conclusions:   []string{"failure", "cancelled"},
		WorkflowFixes: true, FixLabels: []string{"ci", "polylane"}, CloseAfterRuns: 12,
		Muted: []MutedClass{{ID: "e2e-provision-1a2b"}, {ID: "unit-timeout-9f", Reason: "upstream mirror, tracked in #42"}},
		LLM:   true, LLMLogs: true,
	}
	invalid := Defaults()
	invalid.Conclusions = []string{"failure"}
	invalid.Muted = []MutedClass{{ID: "ok-class"}}
	invalid.LLM = true
	tests := []struct {
		file     string
		want     Config
		warnings []string // substrings, one per warning, in order
	}{
		{"full.yml", full, nil},
		{"empty.yml", Defaults(), nil},
		{"invalid.yml", invalid, []string{
			"line 1: window must be at most 1000, not 5000",
			"line 2: conclusions[1] must be one of failure, timed_out, cancelled, startup_failure, action_required, not \"exploded\"",
			"line 2: conclusions[2] repeats \"failure\"",
			"line 4: comments.pull_requests must be true or false, not \"yes\"",
			"line 5: comments.when is not a known key (known: default_branch, pull_requests)",
			"line 8: fix_pull_requests.labels must be a list, not \"ci\"",
			"line 9: fix_pull_requests.close_after_runs must be at least 0, not -1",
			"line 11: muted_classes[0] must not be empty",
			"line 13: muted_classes[2] needs the key id",
			"line 16: colour is not a known key",
		}},
		{"broken.yml", Defaults(), []string{"the file is not valid YAML (yaml: line"}},
		{"aliases.yml", aliasCase(), []string{"labels is not a known key", "fix_pull_requests.labels uses a YAML anchor or alias"}},
		{"scalar.yml", Defaults(), []string{"the file must be a mapping of keys to values, not \"just a string\"", "the defaults are used"}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			got, warnings := Parse(data)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("config:\n got  %+v\n want %+v", got, tc.want)
			}
			if len(warnings) != len(tc.warnings) {
				t.Fatalf("%d warnings, want %d:\n%s", len(warnings), len(tc.warnings), strings.Join(warnings, "\n"))
			}
			for i, w := range tc.warnings {
				if !strings.Contains(warnings[i], w) {
					t.Errorf("warning %d = %q, want it to contain %q", i, warnings[i], w)
				}
			}
		})
	}
}

func aliasCase() Config {
	c := Defaults()
	c.LLM = true
	return c
}

// TestParseBounds: a huge file is not read, and hostile bytes never panic.
func TestParseBounds(t *testing.T) {
	cfg, w := Parse(bytes.Repeat([]byte("# x\n"), MaxBytes))
	if !reflect.DeepEqual(cfg, Defaults()) || len(w) != 1 || !strings.Contains(w[0], "more than") {
		t.Fatalf("oversized file: %+v %v", cfg, w)
	}
	for _, in := range []string{"\x00\xff", "[[[[[[[[", "a: !!binary AAAA", "window: 0x10", "window: 1e3", "muted_classes: [{id: [1]}]",
		strings.Repeat("- ", 2000) + "x", "{? [a]: b}"} {
		_, _ = Parse([]byte(in))
	}
	if cfg, _ := Parse([]byte("window: 0x10")); cfg.Window != 16 {
		t.Errorf("hexadecimal window read as %d", cfg.Window)
	}
}

func TestMatching(t *testing.T) {
	cfg, _ := Parse([]byte("workflows: [e2e.yml, Unit Tests, '.github/workflows/rel-*.yml']\nbranches: [main, 'release/*']\nconclusions: [cancelled]\n"))
	workflows := []struct {
		file, name string
		want       bool
	}{
		{".github/workflows/e2e.yml", "E2E", true},
		{".github/workflows/unit.yml", "unit tests", true},
		{".github/workflows/rel-1.yml", "Release", true},
		{".github/workflows/lint.yml", "Lint", false},
	}
	for _, tc := range workflows {
		if got := cfg.WatchesWorkflow(tc.file, tc.name); got != tc.want {
			t.Errorf("WatchesWorkflow(%s, %s) = %v", tc.file, tc.name, got)
		}
	}
	for branch, want := range map[string]bool{"main": true, "release/1.2": true, "release/1/2": false, "feature/x": false} {
		if got := cfg.WatchesBranch(branch); got != want {
			t.Errorf("WatchesBranch(%s) = %v", branch, got)
		}
	}
	if !cfg.Counts("cancelled", []string{"failure"}) || cfg.Counts("failure", []string{"failure"}) {
		t.Error("the file's conclusions do not replace the server's")
	}
	if d := Defaults(); !d.Counts("failure", []string{"failure"}) || !d.WatchesBranch("x") || !d.WatchesWorkflow("a.yml", "A") {
		t.Error("defaults do not watch everything the server counts")
	}
}

// TestSchemaPublished keeps docs/polylane.schema.json equal to the
// embedded schema, and the schema within the keywords the validator knows.
func TestSchemaPublished(t *testing.T) {
	published, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "polylane.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(published, Schema()) {
		t.Fatal("docs/polylane.schema.json differs from server/worker/repoconfig/polylane.schema.json: copy it over")
	}
	s, err := root()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loadSchema([]byte(`{"type": "object", "patternProperties": {}}`)); err == nil {
		t.Fatal("a keyword the validator does not implement was accepted")
	}
	// Every documented default is what Defaults says.
	d := Defaults()
	checks := map[string]any{"comments.pull_requests": d.CommentOnPullRequests, "comments.default_branch": d.CommentOnDefaultBranch,
		"fix_pull_requests.automatic": d.AutomaticFixes, "fix_pull_requests.workflows": d.WorkflowFixes, "fix_pull_requests.close_after_runs": float64(d.CloseAfterRuns),
		"fix_pull_requests.verify_reruns": float64(d.VerifyReruns),
		"llm.enabled":                     d.LLM, "llm.include_logs": d.LLMLogs}
	for key, want := range checks {
		p := s
		for _, part := range strings.Split(key, ".") {
			p = p.Properties[part]
		}
		if p == nil || !reflect.DeepEqual(p.Default, want) {
			t.Errorf("schema default of %s is %v, Defaults has %v", key, p, want)
		}
	}
}

// TestReadmeDocumentsEveryKey fails when the README's table of the file
// misses a key of the schema.
func TestReadmeDocumentsEveryKey(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := root()
	if err != nil {
		t.Fatal(err)
	}
	var walk func(prefix string, s *schema)
	walk = func(prefix string, s *schema) {
		for name, p := range s.Properties {
			key := join(prefix, name)
			if !bytes.Contains(readme, []byte("| `"+key+"` |")) {
				t.Errorf("README.md has no row for `%s`", key)
			}
			walk(key, p)
		}
	}
	walk("", s)
}

// TestMutedClassWithBadIDIsDropped: an object whose required key had a bad
// value lacks that key once the value is pruned, so the object is dropped
// too; it used to stay and mute the class "" (found by the jsonschema oracle).
func TestMutedClassWithBadIDIsDropped(t *testing.T) {
	cfg, w := Parse([]byte("muted_classes:\n  - id: [1]\n  - ok\n"))
	if want := []MutedClass{{ID: "ok"}}; !reflect.DeepEqual(cfg.Muted, want) {
		t.Errorf("muted %+v, want %+v", cfg.Muted, want)
	}
	want := []string{"line 2: muted_classes[0].id must be a text, not a list", "line 2: muted_classes[0] needs the key id"}
	if len(w) != len(want) {
		t.Fatalf("warnings %q", w)
	}
	for i := range want {
		if !strings.HasPrefix(w[i], want[i]) {
			t.Errorf("warning %d = %q, want %q", i, w[i], want[i])
		}
	}
}

package analysis

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polylane/polylane/analysis/gha"
	"github.com/polylane/polylane/analysis/scenario/scenariotest"
)

// jobsFile is the jobs API response shape used by testdata.
type jobsFile struct {
	Jobs []gha.Job `json:"jobs"`
}

func readSteps(t *testing.T, path string) []gha.Step {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var jf jobsFile
	if err := json.Unmarshal(b, &jf); err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return jf.Jobs[0].Steps
}

// golden compares got with testdata/<name> (UPDATE=1 rewrites it).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	scenariotest.Golden(t, filepath.Join("testdata", name), got)
}

type scanDump struct {
	Lines []LogLine  `json:"lines"`
	Spans []StepSpan `json:"spans"`
}

func TestScannerGolden(t *testing.T) {
	tests := []struct {
		name, log, jobs string
	}{
		{"with-jobs", "scanner/basic.log", "scanner/basic.jobs.json"},
		{"markers-only", "scanner/basic.log", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var opts Options
			if tc.jobs != "" {
				opts.Steps = readSteps(t, filepath.Join("testdata", tc.jobs))
			}
			f, err := os.Open(filepath.Join("testdata", tc.log))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sc := NewScanner(f, opts)
			var d scanDump
			for sc.Scan() {
				d.Lines = append(d.Lines, sc.Line())
			}
			if err := sc.Err(); err != nil {
				t.Fatal(err)
			}
			d.Spans = sc.Spans()
			out, _ := json.MarshalIndent(d, "", " ")
			golden(t, "scanner/"+tc.name+".golden.json", append(out, '\n'))
		})
	}
}

func TestScannerFacts(t *testing.T) {
	f, err := os.Open("testdata/scanner/basic.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := NewScanner(f, Options{Steps: readSteps(t, "testdata/scanner/basic.jobs.json")})
	byN := map[int]LogLine{}
	for sc.Scan() {
		l := sc.Line()
		byN[l.N] = l
	}
	tests := []struct {
		n        int
		text     string
		kind     Kind
		step     int
		hasTime  bool
		stepName string
	}{
		{1, "Current runner version: '2.320.0'", KindPlain, 1, true, "Set up job"},
		{2, "##[group]Operating System", KindGroup, 1, true, "Set up job"},
		{9, "[command]/usr/bin/git version", KindCommand, 2, true, "Run actions/checkout@v4"},
		{12, "##[group]Run echo inner", KindGroup, 3, true, "Set up toolchain"},
		{13, "echo inner", KindScript, 3, true, "Set up toolchain"},
		{20, "Downloading 100%", KindPlain, 4, true, "Run make test"},
		{21, "FAIL: TestThing (0.01s)", KindPlain, 4, true, "Run make test"},
		{22, "no timestamp on this line with a NUL", KindPlain, 4, false, "Run make test"},
		{24, "##[error]Process completed with exit code 2.", KindError, 4, true, "Run make test"},
		{25, "Post job cleanup.", KindPostJob, 8, true, "Post Run actions/checkout@v4"},
		{27, "Cleaning up orphan processes", KindCleanup, 9, true, "Complete job"},
	}
	for _, tc := range tests {
		l, ok := byN[tc.n]
		if !ok {
			t.Fatalf("line %d missing", tc.n)
		}
		if l.Text != tc.text || l.Kind != tc.kind || l.Step.Number != tc.step || l.Step.Name != tc.stepName || l.Time.IsZero() == tc.hasTime {
			t.Errorf("line %d = %q %v step %d %q time %v; want %q %v step %d %q hasTime %v",
				tc.n, l.Text, l.Kind, l.Step.Number, l.Step.Name, l.Time, tc.text, tc.kind, tc.step, tc.stepName, tc.hasTime)
		}
	}
	if len(byN) != 27 {
		t.Errorf("read %d lines, want 27", len(byN))
	}
}

func TestParseTimestamp(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
		n    int
		ok   bool
	}{
		{"2024-07-08T16:48:09.3750041Z hello", time.Date(2024, 7, 8, 16, 48, 9, 375004100, time.UTC), 29, true},
		{"2024-07-08T16:48:09Z x", time.Date(2024, 7, 8, 16, 48, 9, 0, time.UTC), 21, true},
		{"2024-07-08T16:48:09.1Z", time.Date(2024, 7, 8, 16, 48, 9, 100000000, time.UTC), 22, true},
		{"2024-07-08T16:48:09.3750041Zx", time.Time{}, 0, false},
		{"2024-13-08T16:48:09.3750041Z x", time.Time{}, 0, false},
		{"2024-07-08 16:48:09.3750041Z x", time.Time{}, 0, false},
		{"hello world, not a time at all", time.Time{}, 0, false},
		{"2024-07-08T16:48:09.Z x", time.Time{}, 0, false},
	}
	for _, tc := range tests {
		got, n, ok := parseTimestamp([]byte(tc.in))
		if ok != tc.ok || n != tc.n || !got.Equal(tc.want) {
			t.Errorf("parseTimestamp(%q) = %v %d %v; want %v %d %v", tc.in, got, n, ok, tc.want, tc.n, tc.ok)
		}
	}
}

func TestCleanText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"\x1b[31;1mred\x1b[0m text", "red text"},
		{"\x1b]0;title\x07after", "after"},
		{"tab\tkept\x00nul\x01gone", "tab\tkeptnulgone"},
		{"dangling \x1b[", "dangling "},
		{"\x1b(Bcharset", "charset"},
	}
	for _, tc := range tests {
		if got := string(cleanText(nil, []byte(tc.in))); got != tc.want {
			t.Errorf("cleanText(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

func TestScannerTruncatesLongLines(t *testing.T) {
	long := strings.Repeat("x", 100000)
	in := "first\n" + long + "\nlast"
	sc := NewScanner(strings.NewReader(in), Options{MaxLineBytes: 1000})
	var got []LogLine
	for sc.Scan() {
		got = append(got, sc.Line())
	}
	if len(got) != 3 {
		t.Fatalf("got %d lines, want 3", len(got))
	}
	if len(got[1].Text) != 1000 || !got[1].Truncated || got[1].N != 2 {
		t.Errorf("long line: len %d truncated %v n %d", len(got[1].Text), got[1].Truncated, got[1].N)
	}
	if got[2].Text != "last" || got[2].N != 3 || got[2].Truncated {
		t.Errorf("last line = %+v", got[2])
	}
}

func TestScannerGHView(t *testing.T) {
	in := "build\tSet up job\t2025-03-01T10:00:00.1000000Z Current runner version\n" +
		"build\tRun make\t2025-03-01T10:00:01.1000000Z ##[group]Run make\n" +
		"build\tRun make\t2025-03-01T10:00:01.2000000Z boom\n"
	sc := NewScanner(strings.NewReader(in), Options{})
	var got []LogLine
	for sc.Scan() {
		got = append(got, sc.Line())
	}
	if len(got) != 3 || got[2].Text != "boom" || got[2].Step.Name != "Run make" || got[0].Step.Name != "Set up job" {
		t.Fatalf("gh view lines = %+v", got)
	}
}

// TestScannerOverlappingStepSeconds keeps a step header in its own step when
// the API's whole-second times make neighbouring steps overlap: a step
// "completed" at :39 while the next "started" at :38 (seen on real jobs).
// A composite action's inner header early in its step stays in that step.
func TestScannerOverlappingStepSeconds(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, "2023-04-13T02:46:"+s+"Z")
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	steps := []gha.Step{
		{Name: "Set up job", Number: 1, StartedAt: at("27"), CompletedAt: at("28"), Conclusion: "success"},
		{Name: "Run ./tools/setup-deps", Number: 2, StartedAt: at("29"), CompletedAt: at("39"), Conclusion: "success"},
		{Name: "Download binaries", Number: 3, StartedAt: at("38"), CompletedAt: at("41"), Conclusion: "success"},
		{Name: "Run tests", Number: 4, StartedAt: at("41"), CompletedAt: at("59"), Conclusion: "failure"},
	}
	log := strings.Join([]string{
		"2023-04-13T02:46:27.0037408Z Current runner version: '2.303.0'",
		"2023-04-13T02:46:29.5614047Z ##[group]Run ./tools/setup-deps",
		"2023-04-13T02:46:29.5740109Z ##[group]Run actions/setup-go@v3",
		"2023-04-13T02:46:30.1000000Z Setup go version spec 1.20",
		"2023-04-13T02:46:38.7338267Z ##[group]Run actions/download-artifact@v3",
		"2023-04-13T02:46:39.1000000Z Artifact download completed",
		"2023-04-13T02:46:41.0551197Z ##[group]Run make test",
		"2023-04-13T02:46:58.0000000Z ##[error]Process completed with exit code 2.",
	}, "\n") + "\n"
	sc := NewScanner(strings.NewReader(log), Options{Steps: steps})
	want := map[int]int{2: 2, 3: 2, 4: 2, 5: 3, 6: 3, 7: 4, 8: 4}
	for sc.Scan() {
		l := sc.Line()
		if w, ok := want[l.N]; ok && l.Step.Number != w {
			t.Errorf("line %d %q is in step %d, want %d", l.N, l.Text, l.Step.Number, w)
		}
	}
}

package causal_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/polylane/polylane/analysis/gha"

	"github.com/polylane/polylane/analysis"
	"github.com/polylane/polylane/analysis/history"
	"github.com/polylane/polylane/causal"
	"github.com/polylane/polylane/causal/patch/patchtest"
)

// caseSpec is the case.json of a synthetic case under testdata/cases.
type caseSpec struct {
	Workflow string `json:"workflow"`
	Job      string `json:"job"`
	// Steps are the job's step names after "Set up job", in order; Failing
	// is the failing one.
	Steps   []string `json:"steps"`
	Failing string   `json:"failing"`
	// Cause is a substring of the cause line in the log.
	Cause       string `json:"cause"`
	Verdict     string `json:"verdict"`
	FirstBadSHA string `json:"first_bad_sha"`
	// JobMinutes is how long the job ran (0: unknown).
	JobMinutes int `json:"job_minutes"`
	// Source is informational: the public thread or page that shows the
	// case's error wording in a real job. No test reads it.
	Source string `json:"source"`
	Want   struct {
		Mechanism string `json:"mechanism"`
		Rule      string `json:"rule"`
		// Family is the catalogued error family the cause line must be
		// recognised as; its sources are then cited as known elsewhere.
		Family       string  `json:"family"`
		ProducerFile *string `json:"producer_file"`
		ProducerLine []int   `json:"producer_line"`
		// GapContains is text the producer's gap (where the trace
		// stopped below it) must contain.
		GapContains  string   `json:"gap_contains"`
		Ambiguous    bool     `json:"ambiguous"`
		Patch        bool     `json:"patch"`
		PatchFiles   []string `json:"patch_files"`
		DiffContains []string `json:"diff_contains"`
		DiffLacks    []string `json:"diff_lacks"`
		Retried      *bool    `json:"retried"`
		UnitContains []string `json:"unit_contains"`
		// Test is the failed test the mechanism must name: its id, and its
		// file and line or, when unmapped, the location as printed.
		Test *causal.FailedTest `json:"test"`
		// WhyContains is text the why-this-fix paragraph must contain: a
		// near miss says why no patch fits.
		WhyContains string `json:"why_contains"`
		// UnitLacks is text the failed unit's summary must not contain.
		UnitLacks string `json:"unit_lacks"`
		// SummaryContains are texts the mechanism summary must contain.
		SummaryContains []string `json:"summary_contains"`
		BlastCallers    *int     `json:"blast_callers"`
		CIOnly          *bool    `json:"ci_only"`
	} `json:"want"`
}

// synthCase is a parsed case file.
type synthCase struct {
	spec caseSpec
	repo fstest.MapFS
	log  []string
}

// parseCase reads a txtar-like case file: sections start with "-- name --";
// "case.json", "log" and "repo/<path>" sections are recognised.
func parseCase(t *testing.T, path string) synthCase {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := synthCase{repo: fstest.MapFS{}}
	var name string
	var body []string
	flush := func() {
		text := strings.Join(body, "\n")
		switch {
		case name == "case.json":
			if err := json.Unmarshal([]byte(text), &c.spec); err != nil {
				t.Fatalf("%s: case.json: %v", path, err)
			}
		case name == "log":
			c.log = body
		case strings.HasPrefix(name, "repo/"):
			mode := os.FileMode(0o644)
			if strings.HasSuffix(name, ".sh") {
				mode = 0o755
			}
			c.repo[strings.TrimPrefix(name, "repo/")] = &fstest.MapFile{Data: []byte(text + "\n"), Mode: mode}
		}
	}
	for _, l := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if strings.HasPrefix(l, "-- ") && strings.HasSuffix(l, " --") && len(l) > 6 {
			if name != "" {
				flush()
			}
			name, body = strings.TrimSuffix(strings.TrimPrefix(l, "-- "), " --"), nil
			continue
		}
		body = append(body, l)
	}
	if name != "" {
		flush()
	}
	return c
}

// rawLog turns plain lines into a GitHub raw job log with timestamps.
func rawLog(lines []string) []byte {
	var b bytes.Buffer
	b.WriteString("\ufeff")
	t0 := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
	for i, l := range lines {
		ts := t0.Add(time.Duration(i) * 100 * time.Millisecond)
		fmt.Fprintf(&b, "%s %s\n", ts.Format("2006-01-02T15:04:05.0000000Z"), l)
	}
	return b.Bytes()
}

// input builds the causal input of a case.
func (c synthCase) input(t *testing.T) causal.Input {
	t.Helper()
	s := c.spec
	log := rawLog(c.log)
	job := gha.Job{ID: 700, RunID: 900, Name: s.Job, Status: "completed", Conclusion: "failure"}
	if s.JobMinutes > 0 {
		job.StartedAt = time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
		job.CompletedAt = job.StartedAt.Add(time.Duration(s.JobMinutes) * time.Minute)
	}
	job.Steps = append(job.Steps, gha.Step{Number: 1, Name: "Set up job", Status: "completed", Conclusion: "success"})
	var failing analysis.StepRef
	state := "success"
	for i, name := range s.Steps {
		concl := state
		if name == s.Failing {
			concl, state = "failure", "skipped"
			failing = analysis.StepRef{Number: i + 2, Name: name}
		}
		job.Steps = append(job.Steps, gha.Step{Number: i + 2, Name: name, Status: "completed", Conclusion: concl})
	}
	job.Steps = append(job.Steps, gha.Step{Number: len(s.Steps) + 2, Name: "Complete job", Status: "completed", Conclusion: "success"})
	causeN := 0
	for i, l := range c.log {
		if s.Cause != "" && strings.Contains(l, s.Cause) {
			causeN = i + 1
		}
	}
	if causeN == 0 {
		t.Fatalf("cause %q not in the log", s.Cause)
	}
	verdict := history.Verdict{Kind: s.Verdict, Confidence: 0.9}
	if s.FirstBadSHA != "" {
		sha := s.FirstBadSHA
		verdict.FirstBadSHA = &sha
	}
	if verdict.Kind == "" {
		verdict.Kind = history.Flaky
	}
	occ := []history.Occurrence{
		{RunID: 900, JobID: 700, Lines: []analysis.Line{{N: causeN, Text: c.log[causeN-1], Role: analysis.RoleCause}}},
		{RunID: 850, RunNumber: 41, JobID: 650, Lines: []analysis.Line{{N: causeN, Text: c.log[causeN-1], Role: analysis.RoleCause}}},
	}
	return causal.Input{
		Repo: c.repo, Repository: "acme/widget", Branch: "main",
		WorkflowName: "CI", WorkflowPath: s.Workflow, Job: job, Step: failing, RunID: 900,
		Result:  &analysis.Result{Lines: []analysis.Line{{N: causeN, Text: c.log[causeN-1], Role: analysis.RoleCause}}, Step: &failing},
		OpenLog: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(log)), nil },
		Verdict: verdict, Cadence: "3 failures in the last 50 main CI runs", Occurrences: occ,
	}
}

// TestSyntheticCases runs every case under testdata/cases.
func TestSyntheticCases(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "cases", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txtar")
		t.Run(name, func(t *testing.T) {
			c := parseCase(t, f)
			exp, err := causal.Explain(c.input(t))
			if err != nil {
				t.Fatalf("explain: %v", err)
			}
			checkCase(t, c, exp)
		})
	}
}

func checkCase(t *testing.T, c synthCase, exp *causal.Explanation) {
	t.Helper()
	w, ch := c.spec.Want, exp.Chain
	dump := func() string { b, _ := json.MarshalIndent(exp, "", "  "); return string(b) }
	if string(ch.Mechanism.Category) != w.Mechanism {
		t.Errorf("mechanism = %q (%s), want %q", ch.Mechanism.Category, ch.Mechanism.Rule, w.Mechanism)
	}
	if w.WhyContains != "" && !strings.Contains(exp.WhyThisFix, w.WhyContains) {
		t.Errorf("why this fix = %q, want it to contain %q", exp.WhyThisFix, w.WhyContains)
	}
	if w.Rule != "" && ch.Mechanism.Rule != w.Rule {
		t.Errorf("rule = %q, want %q", ch.Mechanism.Rule, w.Rule)
	}
	if w.Family != "" && (ch.Mechanism.Family != w.Family || len(ch.Mechanism.KnownElsewhere) == 0) {
		t.Errorf("family = %q (known elsewhere %v), want %q with its sources", ch.Mechanism.Family, ch.Mechanism.KnownElsewhere, w.Family)
	}
	if w.ProducerFile != nil && ch.Producer.File != *w.ProducerFile {
		t.Errorf("producer file = %q, want %q", ch.Producer.File, *w.ProducerFile)
	}
	if r := w.ProducerLine; len(r) == 2 && (ch.Producer.Line < r[0] || ch.Producer.Line > r[1]) {
		t.Errorf("producer line = %d, want within %v", ch.Producer.Line, r)
	}
	if w.GapContains != "" && !strings.Contains(ch.Producer.Gap, w.GapContains) {
		t.Errorf("producer gap = %q, want it to contain %q", ch.Producer.Gap, w.GapContains)
	}
	if w.Ambiguous != ch.Producer.Ambiguous {
		t.Errorf("ambiguous = %v, want %v", ch.Producer.Ambiguous, w.Ambiguous)
	}
	if w.Retried != nil && ch.FailedUnitToday.Retried != *w.Retried {
		t.Errorf("retried = %v, want %v", ch.FailedUnitToday.Retried, *w.Retried)
	}
	for _, s := range w.SummaryContains {
		if !strings.Contains(ch.Mechanism.Summary, s) {
			t.Errorf("mechanism summary %q lacks %q", ch.Mechanism.Summary, s)
		}
	}
	for _, s := range w.UnitContains {
		if !strings.Contains(ch.FailedUnitToday.Summary, s) {
			t.Errorf("failed unit %q lacks %q", ch.FailedUnitToday.Summary, s)
		}
	}
	if w.Test != nil && (ch.Mechanism.Test == nil || *ch.Mechanism.Test != *w.Test) {
		t.Errorf("failed test = %+v, want %+v", ch.Mechanism.Test, *w.Test)
	}
	if w.UnitLacks != "" && strings.Contains(ch.FailedUnitToday.Summary, w.UnitLacks) {
		t.Errorf("failed unit %q holds %q", ch.FailedUnitToday.Summary, w.UnitLacks)
	}
	if w.BlastCallers != nil && len(ch.BlastRadius.Callers) != *w.BlastCallers {
		t.Errorf("blast callers = %d (%s), want %d", len(ch.BlastRadius.Callers), ch.BlastRadius.Summary, *w.BlastCallers)
	}
	checkEvidence(t, ch)
	if (exp.Patch != nil) != w.Patch {
		t.Fatalf("patch = %v, want %v: %s\n%s", exp.Patch != nil, w.Patch, exp.WhyThisFix, dump())
	}
	if exp.Patch == nil {
		return
	}
	checkCasePatch(t, c, exp)
}

// checkCasePatch checks a case's patch: files, diff text, git apply and
// impact.
func checkCasePatch(t *testing.T, c synthCase, exp *causal.Explanation) {
	t.Helper()
	w := c.spec.Want
	var files []string
	for _, f := range exp.Patch.Files {
		files = append(files, f.Path)
	}
	if len(w.PatchFiles) > 0 && !slices.Equal(files, w.PatchFiles) {
		t.Errorf("patch files = %v, want %v", files, w.PatchFiles)
	}
	for _, s := range w.DiffContains {
		if !strings.Contains(exp.Patch.Diff, s) {
			t.Errorf("diff lacks %q:\n%s", s, exp.Patch.Diff)
		}
	}
	for _, s := range w.DiffLacks {
		if strings.Contains(exp.Patch.Diff, s) {
			t.Errorf("diff has %q:\n%s", s, exp.Patch.Diff)
		}
	}
	if err := patchtest.ApplyCheck(t, c.repo, exp.Patch.Diff); err != nil {
		t.Errorf("git apply --check: %v\n%s", err, exp.Patch.Diff)
	}
	if w.CIOnly != nil && (exp.Impact == nil || exp.Impact.CIOnly != *w.CIOnly) {
		t.Errorf("impact = %+v, want ci_only %v", exp.Impact, *w.CIOnly)
	}
	if testing.Verbose() {
		t.Logf("%s\n%s", exp.Chain.Mechanism.Summary, exp.Patch.Diff)
	}
}

// checkEvidence checks that every id a sentence cites exists and that
// evidence lines are positive.
func checkEvidence(t *testing.T, ch *causal.Chain) {
	t.Helper()
	ids := map[string]bool{}
	for _, e := range ch.Evidence {
		ids[e.ID] = true
		if (e.Kind == causal.EvidenceFile || e.Kind == causal.EvidenceLog) && e.Line <= 0 {
			t.Errorf("evidence %s has line %d", e.ID, e.Line)
		}
	}
	for _, id := range ch.Mechanism.Evidence {
		if !ids[id] {
			t.Errorf("mechanism cites %s, which is not in the evidence", id)
		}
	}
	for _, word := range strings.FieldsFunc(ch.Mechanism.Summary, func(r rune) bool { return r == ' ' || r == ',' || r == '(' || r == ')' }) {
		if len(word) > 1 && word[0] == 'E' && strings.Trim(word[1:], "0123456789") == "" && !ids[word] {
			t.Errorf("summary cites %s, which is not in the evidence", word)
		}
	}
}

// TestSyntheticCasesAnalyzed runs every case with the cause lines the
// analysis engine picks from the log, as the pipeline does, and checks the
// mechanism, the producer file and whether a patch is offered.
func TestSyntheticCasesAnalyzed(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "cases", "*.txtar"))
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txtar")
		t.Run(name, func(t *testing.T) {
			c := parseCase(t, f)
			in := c.input(t)
			res, err := analysis.Analyze(bytes.NewReader(rawLog(c.log)), analysis.Options{Steps: in.Job.Steps})
			if err != nil {
				t.Fatalf("analyze: %v", err)
			}
			in.Result = res
			exp, err := causal.Explain(in)
			if err != nil {
				t.Fatalf("explain: %v", err)
			}
			w, ch := c.spec.Want, exp.Chain
			var top string
			if len(res.Lines) > 0 {
				top = res.Lines[0].Text
			}
			if string(ch.Mechanism.Category) != w.Mechanism {
				t.Errorf("mechanism = %q, want %q (analysis cause %q)", ch.Mechanism.Category, w.Mechanism, top)
			}
			if w.ProducerFile != nil && ch.Producer.File != *w.ProducerFile {
				t.Errorf("producer file = %q, want %q (analysis cause %q)", ch.Producer.File, *w.ProducerFile, top)
			}
			if (exp.Patch != nil) != w.Patch {
				t.Errorf("patch = %v, want %v (analysis cause %q): %s", exp.Patch != nil, w.Patch, top, exp.WhyThisFix)
			}
		})
	}
}

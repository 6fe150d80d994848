package diagnosis

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/polylane/polylane/analysis"
	"github.com/polylane/polylane/analysis/scenario"
	"github.com/polylane/polylane/causal/catalogue"
	"github.com/polylane/polylane/causal/patch/patchtest"
)

// realCorpus is the corpus of CI failures taken from public repositories
// (testdata/real/README.md says how a case is built).
var realCorpus = filepath.Join("testdata", "real")

// Facts scored on every real case, in the order the table prints them.
const (
	factStep         = "failing step"
	factCause        = "cause line"
	factWindow       = "window"
	factClasses      = "classes"
	factVerdict      = "verdict"
	factPR           = "pull-request classification"
	factMechRight    = "mechanism right"
	factMechWrong    = "mechanism wrong"
	factMechUnknown  = "mechanism unknown"
	factProducerFile = "producer file"
	factProducerLine = "producer line"
	factPatchWhere   = "patch where the harness was fixed"
	factNoPatch      = "no patch where it was not"
	factPatchFiles   = "patch files as maintainers'"
	factPatchLike    = "patch like maintainers'"
	factPatchApplies = "patch applies"
	factCIOnly       = "ci_only"
)

var factOrder = []string{factStep, factCause, factWindow, factClasses, factVerdict, factPR, factMechRight, factMechWrong,
	factMechUnknown, factProducerFile, factProducerLine, factPatchWhere, factNoPatch, factPatchFiles, factPatchLike,
	factPatchApplies, factCIOnly}

// realTargets are the corpus goals of the "Real repositories" issues: a
// rate at least (or, for the wrong mechanism, at most) the target.
var realTargets = map[string]struct {
	rate float64
	most bool
}{
	factMechRight:    {0.90, false},
	factMechWrong:    {0.05, true},
	factProducerFile: {0.85, false},
	factPatchWhere:   {0.75, false},
	factNoPatch:      {1, false},
	factPatchApplies: {1, false},
}

// score is one fact of one case: scored (the case's expect.json states
// it) and held.
type score struct{ scored, held bool }

// caseResult is what one diagnosis of a real case got.
type caseResult struct {
	name, repo string
	facts      map[string]score
	line       string
	// why is the diagnosis' reason for its patch or for none.
	why string
}

// TestRealCorpus diagnoses every case of testdata/real twice: with the
// shipped catalogue, and leaving out every error family written from a
// case of the same repository (leave-one-repository-out), and scores each
// fact of its expect.json. `make bench-real` (POLYLANE_BENCH_REAL=1)
// prints the table and fails when a target is missed; without it the test
// checks only that every case diagnoses to a valid document.
func TestRealCorpus(t *testing.T) {
	entries, err := os.ReadDir(realCorpus)
	if err != nil {
		t.Skipf("no real corpus: %v", err)
	}
	var full, loro []caseResult
	repos := map[string]bool{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(realCorpus, e.Name())
		s, err := scenario.Load(os.DirFS(dir))
		if err != nil {
			t.Errorf("%s: %v", e.Name(), err)
			continue
		}
		repo := s.Repository.FullName
		repos[repo] = true
		for _, run := range []struct {
			cat *catalogue.Catalogue
			out *[]caseResult
		}{{catalogue.Default, &full}, {catalogue.Default.Without(repo), &loro}} {
			r, ok := diagnoseReal(t, dir, e.Name(), repo, run.cat)
			if ok {
				*run.out = append(*run.out, r)
			}
		}
	}
	if len(full) == 0 {
		t.Skip("the real corpus has no cases")
	}
	if os.Getenv("POLYLANE_BENCH_REAL") == "" {
		return
	}
	table := realTable(full, loro, len(repos)) + loroChanges(full, loro)
	fmt.Println(table)
	if out := os.Getenv("POLYLANE_BENCH_REAL_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(table+"\n"), 0o644); err != nil {
			t.Error(err)
		}
	}
	for _, f := range factOrder {
		tgt, ok := realTargets[f]
		if !ok {
			continue
		}
		held, n := tally(full, f)
		if n == 0 {
			continue
		}
		rate := float64(held) / float64(n)
		if (tgt.most && rate > tgt.rate) || (!tgt.most && rate < tgt.rate) {
			t.Errorf("%s: %d of %d (%.0f%%), target %s %.0f%%", f, held, n, 100*rate, map[bool]string{true: "at most", false: "at least"}[tgt.most], 100*tgt.rate)
		}
	}
}

// loroChanges lists the cases whose outcome changes when their
// repository's own families, rules and recipes are left out.
func loroChanges(full, loro []caseResult) string {
	by := map[string]caseResult{}
	for _, r := range loro {
		by[r.name] = r
	}
	var b strings.Builder
	for _, r := range full {
		if l, ok := by[r.name]; ok && l.line != r.line {
			if b.Len() == 0 {
				b.WriteString("\nCases that change when their repository's own families, rules and recipes are left out:\n\n")
			}
			b.WriteString("    " + l.line + "\n")
			if l.why != r.why && l.why != "" {
				b.WriteString("        " + truncate(l.why, 240) + "\n")
			}
		}
	}
	return b.String()
}

// diagnoseReal diagnoses one case with a catalogue and scores it.
func diagnoseReal(t *testing.T, dir, name, repo string, cat *catalogue.Catalogue) (caseResult, bool) {
	t.Helper()
	out, s, err := DiagnoseScenario(os.DirFS(dir), Options{Catalogue: cat})
	if err != nil {
		t.Errorf("%s: diagnose: %v", name, err)
		return caseResult{}, false
	}
	d := out.Diagnosis
	checkContract(t, d)
	if s.Expect == nil {
		t.Errorf("%s: no expect.json", name)
		return caseResult{}, false
	}
	r := caseResult{name: name, repo: repo, facts: scoreReal(t, d, s), why: d.WhyThisFix}
	got := "unknown"
	if d.Chain != nil {
		got = string(d.Chain.Mechanism.Category)
	}
	want := ""
	if s.Expect.Mechanism != nil {
		want = *s.Expect.Mechanism
	}
	r.line = fmt.Sprintf("%-48s mechanism %-19s (want %-19s) producer %s:%d patch %v", name, got, want,
		d.Chain.Producer.File, d.Chain.Producer.Line, d.Patch != nil)
	return r, true
}

// scoreReal scores each fact the case's expect.json states.
func scoreReal(t *testing.T, d *Diagnosis, s *scenario.Scenario) map[string]score {
	e := s.Expect
	f := map[string]score{}
	set := func(name string, held bool) { f[name] = score{true, held} }
	if e.TriggerStep != nil {
		set(factStep, d.Failure.Step.Name == *e.TriggerStep)
	}
	if e.CauseLineContains != nil {
		set(factCause, slices.ContainsFunc(d.Failure.Lines, func(l analysis.Line) bool { return strings.Contains(l.Text, *e.CauseLineContains) }))
	}
	if w := e.Window; w != nil {
		set(factWindow, (w.Runs == nil || *w.Runs == d.Window.Runs) && (w.Failed == nil || *w.Failed == d.Window.Failed))
	}
	if e.TriggerClusterCount != nil || e.ClustersInTriggerStep != nil {
		tc := d.TriggerCluster()
		inStep := 0
		for _, c := range d.Clusters {
			if tc != nil && c.Step == tc.Step {
				inStep++
			}
		}
		set(factClasses, tc != nil && (e.TriggerClusterCount == nil || *e.TriggerClusterCount == tc.Count) &&
			(e.ClustersInTriggerStep == nil || *e.ClustersInTriggerStep == inStep))
	}
	if e.Verdict != nil {
		set(factVerdict, d.Verdict.Kind == *e.Verdict)
	}
	if e.PRClassification != nil {
		set(factPR, d.PullRequest != nil && d.PullRequest.Classification == *e.PRClassification)
	}
	if e.Mechanism != nil || len(e.MechanismAny) > 0 {
		got := string(d.Chain.Mechanism.Category)
		right := (e.Mechanism != nil && got == *e.Mechanism) || slices.Contains(e.MechanismAny, got)
		unknown := !d.Chain.Mechanism.Category.Known()
		set(factMechRight, right)
		set(factMechWrong, !right && !unknown)
		set(factMechUnknown, unknown && !right)
	}
	if e.ProducerFile.Set {
		want := ""
		if e.ProducerFile.Value != nil {
			want = *e.ProducerFile.Value
		}
		set(factProducerFile, d.Chain.Producer.File == want)
		if r := e.ProducerLineRange; len(r) == 2 {
			set(factProducerLine, d.Chain.Producer.File == want && d.Chain.Producer.Line >= r[0] && d.Chain.Producer.Line <= r[1])
		}
	}
	if e.PatchExpected != nil {
		if *e.PatchExpected {
			set(factPatchWhere, d.Patch != nil)
		} else {
			set(factNoPatch, d.Patch == nil)
		}
	}
	if d.Patch == nil {
		return f
	}
	var files []string
	for _, pf := range d.Patch.Files {
		files = append(files, pf.Path)
	}
	switch {
	case len(e.PatchFilesAny) > 0:
		set(factPatchFiles, len(files) > 0 && !slices.ContainsFunc(files, func(p string) bool { return !slices.Contains(e.PatchFilesAny, p) }))
	case len(e.PatchFiles) > 0:
		set(factPatchFiles, slices.Equal(slices.Sorted(slices.Values(files)), slices.Sorted(slices.Values(e.PatchFiles))))
	}
	if len(e.PatchContainsAny) > 0 {
		set(factPatchLike, slices.ContainsFunc(e.PatchContainsAny, func(w string) bool { return strings.Contains(addedText(d.Patch.Diff), w) }))
	}
	set(factPatchApplies, patchtest.ApplyCheck(t, s.Repo(), d.Patch.Diff) == nil)
	if e.CIOnly != nil && d.Impact != nil {
		set(factCIOnly, d.Impact.CIOnly == *e.CIOnly)
	}
	return f
}

// addedText is the text a unified diff adds.
func addedText(diff string) string {
	var b strings.Builder
	for _, l := range strings.Split(diff, "\n") {
		if strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++") {
			b.WriteString(l[1:] + "\n")
		}
	}
	return b.String()
}

// tally counts the cases that hold a fact among those that state it.
func tally(results []caseResult, fact string) (held, scored int) {
	for _, r := range results {
		if s := r.facts[fact]; s.scored {
			scored++
			if s.held {
				held++
			}
		}
	}
	return held, scored
}

// realTable renders the per-fact table with the leave-one-repository-out
// column and the per-case lines.
func realTable(full, loro []caseResult, repos int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Real corpus: %d cases from %d repositories\n\n", len(full), repos)
	b.WriteString("| fact | cases | held | rate | leave one repository out | target |\n|---|--:|--:|--:|--:|---|\n")
	for _, f := range factOrder {
		held, n := tally(full, f)
		lh, ln := tally(loro, f)
		target := ""
		if tgt, ok := realTargets[f]; ok {
			target = fmt.Sprintf("%s %.0f%%", map[bool]string{true: "≤", false: "≥"}[tgt.most], 100*tgt.rate)
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %s | %s |\n", f, n, held, pct(held, n), pct(lh, ln), target)
	}
	b.WriteString("\nPer case (full catalogue):\n")
	lines := make([]string, len(full))
	for i, r := range full {
		lines[i] = r.line
	}
	sort.Strings(lines)
	b.WriteString(strings.Join(lines, "\n"))
	return b.String()
}

func pct(held, n int) string {
	if n == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(held)/float64(n))
}

// truncate shortens s to at most n bytes, at a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

package narrator

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polylane/polylane/analysis/history"
	"github.com/polylane/polylane/analysis/scenario/scenariotest"
	"github.com/polylane/polylane/causal"
	"github.com/polylane/polylane/causal/diagnosis"
)

// scenarioDirs lists the scenario directories the test reads in place: the
// shared examples and the diagnosis package's synthetic ones. Without the
// shared directory the shared part is left out, unless CI=true.
func scenarioDirs(t *testing.T) []string {
	t.Helper()
	roots := []string{filepath.Join("..", "..", "causal", "diagnosis", "testdata", "scenarios")}
	if shared, ok := scenariotest.Optional(t, "scenarios"); ok {
		roots = append([]string{shared}, roots...)
	}
	var dirs []string
	for _, root := range roots {
		entries, err := os.ReadDir(root)
		if err != nil {
			t.Fatalf("read scenarios: %v", err)
		}
		for _, e := range entries {
			if e.IsDir() {
				dirs = append(dirs, filepath.Join(root, e.Name()))
			}
		}
	}
	if len(dirs) == 0 {
		t.Skip("no scenario directories found")
	}
	return dirs
}

// faithfulWording words a diagnosis the way a well-behaved model would:
// only facts of the diagnosis, every required fact present.
func faithfulWording(d *diagnosis.Diagnosis) Wording {
	var s strings.Builder
	fmt.Fprintf(&s, "Step `%s` of the %s workflow failed", d.Failure.Step.Name, d.Run.Workflow)
	if cls := d.TriggerCluster(); cls != nil && d.Window.Runs > 0 {
		fmt.Fprintf(&s, " in %d of the last %d runs on `%s`", cls.Count, d.Window.Runs, d.Window.Branch)
	}
	s.WriteString(".")
	if c := d.Chain; c != nil && c.Mechanism.Category != causal.Unknown {
		fmt.Fprintf(&s, " The mechanism is %s (%s).", plainMechanism(c.Mechanism.Category), c.Mechanism.Category)
	}
	var why strings.Builder
	if p := d.Patch; p != nil {
		var files []string
		for _, f := range p.Files {
			files = append(files, "`"+path.Base(f.Path)+"`")
		}
		fmt.Fprintf(&s, " The proposed fix changes %s.", strings.Join(files, ", "))
		fmt.Fprintf(&why, "The fix changes %s. %s", strings.Join(files, " and "), p.Rationale)
	} else {
		why.WriteString("No harness patch is proposed.")
	}
	if d.Verdict.Kind == history.Regression && d.Verdict.FirstBadSHA != nil && len(*d.Verdict.FirstBadSHA) >= 7 {
		fmt.Fprintf(&why, " The failure started at commit %s.", (*d.Verdict.FirstBadSHA)[:7])
	}
	return Wording{Summary: s.String(), WhyFix: why.String()}
}

// questions are asked of every scenario.
var questions = []string{
	"why did it fail?", "which file produced it?", "is it retried today?", "how often does this happen?",
	"is it flaky or a regression?", "what does the fix change and is it safe for production?",
	"what else runs this?", "what is the airspeed velocity of an unladen swallow?", injection,
}

func TestScenarioDiagnoses(t *testing.T) {
	var accepted, total, detAccepted, detTotal int
	for _, dir := range scenarioDirs(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			out, _, err := diagnosis.DiagnoseScenario(os.DirFS(dir), diagnosis.Options{})
			if err != nil {
				t.Skipf("diagnose %s: %v", dir, err)
			}
			d := out.Diagnosis
			g := newGrounds(d)
			w := faithfulWording(d)
			total++
			if err := validateWording(g, d, w); err != nil {
				t.Errorf("a faithful wording was rejected: %v\nsummary: %s\nwhy: %s", err, w.Summary, w.WhyFix)
			} else {
				accepted++
			}
			bad := w
			bad.WhyFix += " The real culprit is hack/ci/not-in-the-repo.sh at line 31337."
			if validateWording(g, d, bad) == nil {
				t.Errorf("an invented file and line were accepted")
			}
			if d.Summary != "" && d.WhyThisFix != "" {
				detTotal++
				if err := validateWording(g, d, Wording{d.Summary, d.WhyThisFix}); err == nil {
					detAccepted++
				} else {
					t.Logf("the causal stage's own paragraphs would be rejected: %v", err)
				}
			}
			for _, q := range questions {
				a := DeterministicAnswer(d, q)
				if err := checkAnswerText(g, a.Text).err(); err != nil {
					t.Errorf("deterministic answer to %.30q fails validation: %v\n%s", q, err, a.Text)
				}
				if a.Grounded != (len(a.Cited) > 0) {
					t.Errorf("answer to %.30q: grounded %v with citations %v", q, a.Grounded, a.Cited)
				}
			}
			checkPromptWithoutLogs(t, d)
		})
	}
	t.Logf("faithful wordings accepted: %d of %d; causal-stage paragraphs accepted as wordings: %d of %d", accepted, total, detAccepted, detTotal)
}

// checkPromptWithoutLogs builds both prompts without the log opt-in and
// checks that no log line is in them and that they stay small.
func checkPromptWithoutLogs(t *testing.T, d *diagnosis.Diagnosis) {
	t.Helper()
	p, err := wordingPrompt(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	q, err := answerPrompt(d, "why?", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range []prompt{p, q} {
		if n := len(pr.system) + len(pr.user); n > 64<<10 {
			t.Errorf("%s prompt is %d bytes", pr.kind, n)
		}
		for _, l := range d.Failure.Lines {
			if len(l.Text) >= 16 && strings.Contains(pr.user, jsonEscaped(t, oneLine(l.Text))) {
				t.Errorf("%s prompt sends log line %d without the opt-in: %q", pr.kind, l.N, l.Text)
			}
		}
		if d.Chain == nil {
			continue
		}
		for _, e := range d.Chain.Evidence {
			if e.Kind == causal.EvidenceLog && len(e.Text) >= 16 && strings.Contains(pr.user, jsonEscaped(t, oneLine(e.Text))) {
				t.Errorf("%s prompt sends log evidence %s without the opt-in: %q", pr.kind, e.ID, e.Text)
			}
		}
	}
}

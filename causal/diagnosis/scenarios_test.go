package diagnosis

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/polylane/polylane/analysis"
	"github.com/polylane/polylane/analysis/scenario"
	"github.com/polylane/polylane/analysis/scenario/scenariotest"
)

// scenarioDirs lists the scenario directories under root.
func scenarioDirs(t *testing.T, root string) []string {
	t.Helper()
	entries, err := os.ReadDir(root)
	if err != nil {
		if os.IsNotExist(err) && os.Getenv("CI") != "true" {
			t.Skipf("no scenarios at %s (set POLYLANE_SHARED_DIR)", root)
		}
		t.Fatalf("read scenarios: %v", err)
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, filepath.Join(root, e.Name()))
		}
	}
	if len(dirs) == 0 {
		t.Fatalf("no scenario directories under %s", root)
	}
	return dirs
}

// TestScenarios runs the diagnose code path of the CLI on every scenario under
// the shared scenarios directory and checks every fact of its expect.json:
// the history facts (step, window, classes, verdict, cause line) and the
// causal ones (mechanism, producer, patch files, git apply --check, impact).
func TestScenarios(t *testing.T) {
	for _, dir := range scenarioDirs(t, scenariotest.Path(t, "scenarios")) {
		t.Run(filepath.Base(dir), func(t *testing.T) { checkScenario(t, dir) })
	}
}

// TestSyntheticScenarios does the same on the small scenarios of testdata/.
func TestSyntheticScenarios(t *testing.T) {
	for _, dir := range scenarioDirs(t, filepath.Join("testdata", "scenarios")) {
		t.Run(filepath.Base(dir), func(t *testing.T) { checkScenario(t, dir) })
	}
}

func checkScenario(t *testing.T, dir string) {
	out, s, err := DiagnoseScenario(os.DirFS(dir), Options{})
	if err != nil {
		t.Fatalf("diagnose: %v", err)
	}
	d := out.Diagnosis
	checkContract(t, d)
	if s.Expect == nil {
		t.Skip("no expect.json")
	}
	checkExpect(t, d, s.Expect)
	checkCausalExpect(t, d, s)
}

func checkExpect(t *testing.T, d *Diagnosis, e *scenario.Expect) {
	t.Helper()
	tc := d.Clusters[0]
	if e.TriggerStep != nil && d.Failure.Step.Name != *e.TriggerStep {
		t.Errorf("trigger_step = %q, want %q", d.Failure.Step.Name, *e.TriggerStep)
	}
	if w := e.Window; w != nil {
		if w.Runs != nil && d.Window.Runs != *w.Runs {
			t.Errorf("window.runs = %d, want %d", d.Window.Runs, *w.Runs)
		}
		if w.Failed != nil && d.Window.Failed != *w.Failed {
			t.Errorf("window.failed = %d, want %d", d.Window.Failed, *w.Failed)
		}
	}
	if e.TriggerClusterCount != nil && tc.Count != *e.TriggerClusterCount {
		t.Errorf("trigger_cluster_count = %d (runs %v), want %d", tc.Count, tc.Runs, *e.TriggerClusterCount)
	}
	if e.ClustersInTriggerStep != nil {
		n := 0
		for _, c := range d.Clusters {
			if c.Step == d.Failure.Step.Name {
				n++
			}
		}
		if n != *e.ClustersInTriggerStep {
			t.Errorf("clusters_in_trigger_step = %d, want %d", n, *e.ClustersInTriggerStep)
		}
	}
	if e.RangeTouching != nil {
		checkRangeTouching(t, d, e.RangeTouching)
	}
	if e.Verdict != nil && d.Verdict.Kind != *e.Verdict {
		t.Errorf("verdict = %q (%s), want %q", d.Verdict.Kind, d.Verdict.Reason, *e.Verdict)
	}
	if f := e.FirstBadSHA; f.Set {
		got, want := "<null>", "<null>"
		if d.Verdict.FirstBadSHA != nil {
			got = *d.Verdict.FirstBadSHA
		}
		if f.Value != nil {
			want = *f.Value
		}
		if got != want {
			t.Errorf("first_bad_sha = %s, want %s", got, want)
		}
	}
	if e.CauseLineContains != nil {
		found := slices.ContainsFunc(d.Failure.Lines, func(l analysis.Line) bool { return strings.Contains(l.Text, *e.CauseLineContains) })
		if !found {
			t.Errorf("no failure line contains %q: %+v", *e.CauseLineContains, d.Failure.Lines)
		}
	}
	if e.Pattern != nil && tc.Pattern != *e.Pattern {
		t.Errorf("pattern = %q, want %q", tc.Pattern, *e.Pattern)
	}
	checkPullRequestExpect(t, d, e)
	if t.Failed() {
		t.Logf("clusters: %+v", d.Clusters)
	}
}

// checkContract marshals the document and checks the fields contracts.md §2
// requires, with their JSON types.
func checkContract(t *testing.T, d *Diagnosis) {
	t.Helper()
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["schema"] != Schema {
		t.Errorf("schema = %v", doc["schema"])
	}
	if _, ok := doc["repository"].(string); !ok {
		t.Errorf("repository is not a string: %v", doc["repository"])
	}
	want := map[string][]string{
		"run":     {"id", "number", "attempt", "workflow", "workflow_path", "branch", "head_sha", "event", "html_url"},
		"failure": {"job", "step", "lines", "signature", "exit_code"},
		"window":  {"branch", "runs", "failed", "from", "to"},
		"verdict": {"kind", "first_bad_sha", "confidence"},
	}
	for obj, keys := range want {
		m, ok := doc[obj].(map[string]any)
		if !ok {
			t.Errorf("%s is not an object", obj)
			continue
		}
		for _, k := range keys {
			if _, ok := m[k]; !ok {
				t.Errorf("%s.%s is missing", obj, k)
			}
		}
	}
	for _, k := range []string{"chain", "patch", "impact"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("%s is missing (null is fine)", k)
		}
	}
	clusters, ok := doc["clusters"].([]any)
	if !ok || len(clusters) == 0 {
		t.Fatalf("clusters = %v", doc["clusters"])
	}
	for _, c := range clusters {
		m := c.(map[string]any)
		for _, k := range []string{"id", "step", "signature", "count", "runs", "first_seen", "last_seen", "contains_trigger", "pattern"} {
			if _, ok := m[k]; !ok {
				t.Errorf("clusters[].%s is missing", k)
			}
		}
		if runs, _ := m["runs"].([]any); float64(len(runs)) != m["count"] {
			t.Errorf("cluster %v: count %v != len(runs) %d", m["id"], m["count"], len(runs))
		}
	}
	if first := clusters[0].(map[string]any); first["contains_trigger"] != true {
		t.Errorf("first cluster does not contain the trigger")
	}
	if c := d.Verdict.Confidence; c < 0 || c > 1 {
		t.Errorf("confidence %v outside [0,1]", c)
	}
}

// checkPullRequestExpect checks the pull_request facts.
func checkPullRequestExpect(t *testing.T, d *Diagnosis, e *scenario.Expect) {
	t.Helper()
	if e.PRClassification == nil && e.SeenElsewhereMin == nil {
		return
	}
	pr := d.PullRequest
	if pr == nil {
		t.Errorf("no pull_request block (event %q)", d.Run.Event)
		return
	}
	if e.PRClassification != nil && pr.Classification != *e.PRClassification {
		t.Errorf("pull_request.classification = %q (%s), want %q", pr.Classification, pr.Reason, *e.PRClassification)
	}
	if m := e.SeenElsewhereMin; m != nil && pr.SeenInOtherPullRequests+pr.SeenOnBaseBranch < *m {
		t.Errorf("seen elsewhere = %d other pull requests + %d base, want at least %d", pr.SeenInOtherPullRequests, pr.SeenOnBaseBranch, *m)
	}
}

// checkRangeTouching checks the commits of the first bad range that the
// diagnosis names as touching the failing step.
func checkRangeTouching(t *testing.T, d *Diagnosis, want []string) {
	t.Helper()
	r := d.FirstBadRange
	if r == nil {
		t.Errorf("first_bad_range is absent (verdict %s: %s), want the touching commits %v", d.Verdict.Kind, d.Verdict.Reason, want)
		return
	}
	var got []string
	for _, c := range r.Touching {
		got = append(got, c.SHA)
	}
	if !slices.Equal(got, want) {
		t.Errorf("first_bad_range.touching = %v, want %v (reach %+v, %d commits)", got, want, r.Reach, r.Commits)
	}
}

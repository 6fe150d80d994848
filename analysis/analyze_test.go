package analysis

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polylane/polylane/analysis/scenario/scenariotest"
)

// analyzeTestFile analyses a log of testdata/analyze.
func analyzeTestFile(t *testing.T, name string, opts Options) *Result {
	t.Helper()
	return analyzeFile(t, filepath.Join("testdata", "analyze", name), opts)
}

// analyzeFile analyses the log at path.
func analyzeFile(t *testing.T, path string, opts Options) *Result {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := Analyze(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestAnalyzeGolden(t *testing.T) {
	tests := []struct {
		log, jobs string
		// facts that must hold whatever the golden says
		causeHas string
		step     string
		exit     int
	}{
		{"github-go-test.log", "github-go-test.jobs.json", "expected total 10, got 12", "Unit tests", 1},
		{"github-go-test.log", "", "expected total 10, got 12", "Run go test ./...", 1},
		{"github-reset.log", "", "connection reset by peer", "Run make e2e", 2},
		{"github-two-failures.log", "", "ETIMEDOUT", "Run ./scripts/build.sh", 1},
		{"travis-pytest.log", "", "AssertionError", "", 1},
		{"jenkins-maven.log", "", "cannot find symbol", "", 1},
		{"empty.log", "", "", "", -1},
	}
	for _, tc := range tests {
		name := strings.TrimSuffix(tc.log, ".log")
		if tc.jobs != "" {
			name += "+jobs"
		}
		t.Run(name, func(t *testing.T) {
			var opts Options
			if tc.jobs != "" {
				opts.Steps = readSteps(t, filepath.Join("testdata", "analyze", tc.jobs))
			}
			res := analyzeTestFile(t, tc.log, opts)
			cause, ok := res.Cause()
			if tc.causeHas != "" && (!ok || !strings.Contains(cause.Text, tc.causeHas)) {
				t.Errorf("cause = %q, want it to contain %q", cause.Text, tc.causeHas)
			}
			if strings.HasPrefix(cause.Text, "##[error]Process completed with exit code") {
				t.Errorf("cause is the generic exit-code line")
			}
			switch {
			case tc.step == "" && res.Step != nil:
				t.Errorf("step = %+v, want none", res.Step)
			case tc.step != "" && (res.Step == nil || res.Step.Name != tc.step):
				t.Errorf("step = %+v, want %q", res.Step, tc.step)
			}
			if (tc.exit < 0) != (res.ExitCode == nil) || res.ExitCode != nil && *res.ExitCode != tc.exit {
				t.Errorf("exit code = %v, want %d", res.ExitCode, tc.exit)
			}
			if ok && (res.Signature == "" || len(res.SignatureID) != 16) {
				t.Errorf("signature %q id %q", res.Signature, res.SignatureID)
			}
			out, err := json.MarshalIndent(res, "", " ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "analyze/"+name+".golden.json", append(out, '\n'))
		})
	}
}

func TestAnalyzeExtraFacts(t *testing.T) {
	res := analyzeTestFile(t, "github-reset.log", Options{})
	if res.Endpoint != "127.0.0.1:6443" || res.ErrorKind != "connection reset by peer" {
		t.Errorf("endpoint %q kind %q", res.Endpoint, res.ErrorKind)
	}
	if !strings.HasPrefix(res.Command, "task: [e2e:seed]") {
		t.Errorf("command = %q, want the task echoed before the cause", res.Command)
	}
	want := `error: Get "https://127.0.0.1:6443/api/v1/namespaces/default/pods/api-<pod>": read tcp 127.0.0.1:<port>->127.0.0.1:6443: read: connection reset by peer`
	if res.Signature != want {
		t.Errorf("signature = %q\nwant        %q", res.Signature, want)
	}
	if res.TotalLines != 22 || res.ExitLine != 20 {
		t.Errorf("total %d exit line %d", res.TotalLines, res.ExitLine)
	}
}

func TestAnalyzeBaselineDropsPassingLines(t *testing.T) {
	base := NewBaseline()
	f, err := os.Open("testdata/analyze/passing.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := base.Add(f); err != nil {
		t.Fatal(err)
	}
	if !base.Contains("2025-05-01T09:00:00.0000000Z Secret source: Actions") || base.Contains("npm ERR! code ETIMEDOUT") {
		t.Fatalf("baseline membership wrong (len %d)", base.Len())
	}
	res := analyzeTestFile(t, "github-two-failures.log", Options{Baseline: base})
	for _, l := range res.Lines {
		if base.Contains(l.Text) && l.Role == RoleContext && !strings.Contains(l.Text, "npm") {
			t.Errorf("line %d %q is in the baseline but was returned", l.N, l.Text)
		}
	}
	if c, _ := res.Cause(); !strings.Contains(c.Text, "ETIMEDOUT") {
		t.Errorf("cause = %q", c.Text)
	}
}

// sharedScenarioLog returns the path of a file of a shared scenario, read
// in place, or skips.
func sharedScenarioLog(t *testing.T, scenario, file string) string {
	t.Helper()
	return scenariotest.Path(t, "scenarios", scenario, file)
}

// TestAnalyzeScenarioLogs checks real GitHub Actions logs read in place.
func TestAnalyzeScenarioLogs(t *testing.T) {
	tests := []struct {
		scenario, jobs, log, causeHas, step string
	}{
		{"karmada-rollout", "jobs/19894337324.json", "logs/54649888023.txt", "127.0.0.1:32443", "Provision Kind + Karmada environment"},
		{"npm-registry-flake", "", "logs/54441784095.txt", "ECONNRESET", "Run make deps"},
	}
	for _, tc := range tests {
		t.Run(tc.scenario, func(t *testing.T) {
			var opts Options
			if tc.jobs != "" {
				b, err := os.ReadFile(sharedScenarioLog(t, tc.scenario, tc.jobs))
				if err != nil {
					t.Fatal(err)
				}
				var jf jobsFile
				if err := json.Unmarshal(b, &jf); err != nil {
					t.Fatal(err)
				}
				opts.Steps = jf.Jobs[0].Steps
			}
			res := analyzeFile(t, sharedScenarioLog(t, tc.scenario, tc.log), opts)
			c, _ := res.Cause()
			if !strings.Contains(c.Text, tc.causeHas) || res.Step == nil || res.Step.Name != tc.step {
				t.Errorf("cause %q step %+v; want %q in step %q", c.Text, res.Step, tc.causeHas, tc.step)
			}
		})
	}
}

// TestSignatureStableAcrossRuns: failures of one class read the same in every
// run, and different classes differ.
func TestSignatureStableAcrossRuns(t *testing.T) {
	sigs := map[string]map[string]bool{}
	for _, log := range []string{"53399875317", "53682203855", "53690743840", "54441784095", "53196471128", "53562361007"} {
		res := analyzeFile(t, sharedScenarioLog(t, "npm-registry-flake", "logs/"+log+".txt"), Options{})
		if sigs[res.ErrorKind] == nil {
			sigs[res.ErrorKind] = map[string]bool{}
		}
		sigs[res.ErrorKind][res.SignatureID] = true
	}
	if len(sigs["ECONNRESET"]) != 1 || len(sigs["ETIMEDOUT"]) != 1 || len(sigs) != 2 {
		t.Errorf("signature ids by error kind = %v; want one id per kind and two kinds", sigs)
	}
}

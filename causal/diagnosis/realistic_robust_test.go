package diagnosis

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/polylane/polylane/causal"
	"github.com/polylane/polylane/causal/patch/patchtest"
)

// robustCase is a variant of a realistic scenario that stresses the
// pipeline's input handling.
type robustCase struct {
	name string
	// spec names the realistic scenario the case starts from.
	spec   string
	adjust func(s *rsScenario)
	// adjustFiles changes the rendered scenario directory.
	adjustFiles func(files map[string][]byte)
	// mechanism is the category the pipeline must report ("" = any).
	mechanism causal.Category
	patch     bool
	budget    time.Duration
}

func TestRealisticRobustness(t *testing.T) {
	cases := []robustCase{
		{name: "repo without the workflow file", spec: "rs-operator-wait-before-create", adjust: func(s *rsScenario) {
			delete(s.files, s.path)
		}},
		{name: "failing uses step with an unknown message", mechanism: causal.Unknown, spec: "rs-kotlin-release-missing-secret",
			adjust: func(s *rsScenario) {
				s.failures['L'] = rsFailure{step: "Log in to Quay", out: func(*rsCtx) []string {
					return []string{"##[error]Invalid value 'quay.io/v2' for input 'registry': expected a host name"}
				}}
			}},
		{name: "windows runner with backslash paths", mechanism: causal.TransientNetwork, spec: "rs-windows-nuget"},
		{name: "log without group markers", mechanism: causal.TransientNetwork, patch: true, spec: "rs-python-pip-network",
			adjustFiles: func(files map[string][]byte) {
				for name, data := range files {
					if strings.HasPrefix(name, "logs/") {
						files[name] = dropLines(data, "##[group]", "##[endgroup]")
					}
				}
			}},
		{name: "20k-line failing log", mechanism: causal.ResourceExhaustion, patch: true, budget: 60 * time.Second, spec: "rs-rust-release-oom",
			adjustFiles: func(files map[string][]byte) {
				for name, data := range files {
					if strings.HasPrefix(name, "logs/") {
						files[name] = padBefore(data, "Caused by:", 20000)
					}
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkRobust(t, tc) })
	}
}

func checkRobust(t *testing.T, tc robustCase) {
	s := rsLoad(t, tc.spec)
	if tc.adjust != nil {
		tc.adjust(s)
	}
	files := s.render()
	delete(files, "expect.json")
	if tc.adjustFiles != nil {
		tc.adjustFiles(files)
	}
	dir := t.TempDir()
	if err := writeFiles(dir, files); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out, sc, err := DiagnoseScenario(os.DirFS(dir), Options{})
	if err != nil {
		t.Fatalf("diagnose: %v", err)
	}
	if took := time.Since(start); tc.budget > 0 && took > tc.budget {
		t.Errorf("diagnose took %v, budget %v", took, tc.budget)
	}
	d := out.Diagnosis
	checkContract(t, d)
	if d.Chain == nil {
		t.Fatal("no chain")
	}
	m := d.Chain.Mechanism
	if tc.mechanism != "" && m.Category != tc.mechanism {
		t.Errorf("mechanism = %q (%s), want %q", m.Category, m.Summary, tc.mechanism)
	}
	if m.Category == causal.Unknown && d.Patch != nil {
		t.Errorf("a patch without a mechanism: %s", d.Patch.Diff)
	}
	if (d.Patch != nil) != tc.patch {
		t.Errorf("patch present = %v, want %v (%s)", d.Patch != nil, tc.patch, d.WhyThisFix)
	}
	if d.Patch != nil {
		if err := patchtest.ApplyCheck(t, sc.Repo(), d.Patch.Diff); err != nil {
			t.Errorf("git apply --check: %v\n%s", err, d.Patch.Diff)
		}
	}
	checkFileEvidence(t, sc.Repo(), d.Chain)
	t.Logf("%s: %s", m.Category, m.Summary)
}

// checkFileEvidence checks that every file the chain cites exists and has
// the cited line: no claim about a file that is not there.
func checkFileEvidence(t *testing.T, repo fs.FS, c *causal.Chain) {
	t.Helper()
	cite := func(what, file string, line int) {
		if file == "" {
			return
		}
		data, err := fs.ReadFile(repo, file)
		if err != nil {
			t.Errorf("%s cites %s, which the repository does not have", what, file)
			return
		}
		if n := bytes.Count(data, []byte("\n")) + 1; line < 1 || line > n {
			t.Errorf("%s cites %s:%d, outside its %d lines", what, file, line, n)
		}
	}
	cite("producer", c.Producer.File, c.Producer.Line)
	for _, e := range c.Evidence {
		if e.Kind == causal.EvidenceFile {
			cite("evidence "+e.ID, e.File, e.Line)
		}
	}
}

// dropLines removes the log lines that contain any of marks.
func dropLines(data []byte, marks ...string) []byte {
	var out [][]byte
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		keep := true
		for _, m := range marks {
			if bytes.Contains(l, []byte(m)) {
				keep = false
			}
		}
		if keep {
			out = append(out, l)
		}
	}
	return bytes.Join(out, nil)
}

// padBefore inserts n timestamped compiler lines before the line holding
// mark (the log is unchanged without it).
func padBefore(data []byte, mark string, n int) []byte {
	i := bytes.Index(data, []byte(mark))
	if i < 0 {
		return data
	}
	i = bytes.LastIndexByte(data[:i], '\n') + 1
	stamp := string(data[i : i+28])
	var b bytes.Buffer
	b.Write(data[:i])
	for k := 0; k < n; k++ {
		fmt.Fprintf(&b, "%s warning: unused variable `tile_%d` in crates/render/src/gen/tiles_%d.rs:%d:9\n", stamp, k, k%97, k%400+1)
	}
	b.Write(data[i:])
	return b.Bytes()
}

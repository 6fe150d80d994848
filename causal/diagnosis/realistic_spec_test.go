package diagnosis

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"text/template"
	"time"

	"go.yaml.in/yaml/v3"
)

// The realistic scenarios are data: testdata/specs/<name>.txtar describes the
// scenario testdata/scenarios/<name>, and testdata/robust/ holds the specs
// that only TestRealisticRobustness renders. A spec is a txtar archive:
//
//   - the comment before the first file says what the scenario is about;
//   - spec.yaml is the repository, workflow, job, steps, history, failures
//     and the expert's expectations (rsSpec);
//   - step/<step name> is the output of a step when it succeeds, named as
//     the jobs API names it ("Run actions/setup-go@v5", "Unit tests");
//   - failure/<code> is the output of the failure with that history code,
//     before the runner's exit-code line;
//   - define/<name> is a template the others include with
//     {{template "name" arg}};
//   - repo/<path> is a file of the repository, verbatim.
//
// Outputs are text/template templates, one log line per line. Volatile parts
// come from the functions below, each drawing from the job's seeded
// generator in the order the template calls them (so reordering calls
// changes every later value):
//
//	n lo hi          an integer in [lo, hi]
//	secs lo hi d     a decimal in [lo, hi) with d decimals ("3.417")
//	hex n            n hex digits
//	pick a b ...     one of the arguments
//	coin             true or false
//	suffix           a Kubernetes pod-name suffix ("7c9f8d5b6-x2kqp")
//	startService s   the lines that start service container s
//	ws sha leg       the workspace, the run's commit, the matrix leg
//	runIndex         the run's position in the history
//	started s layout the run's start plus s seconds, formatted
//	esc              the escape character that starts an ANSI colour
//	add a b          a + b
//	repeat s n       s n times

// rsSpecDir holds the specs of the committed realistic scenarios.
var rsSpecDir = filepath.Join("testdata", "specs")

// rsSpec is spec.yaml.
type rsSpec struct {
	Repo       string   `yaml:"repo"`
	RepoID     int64    `yaml:"repo_id"`
	Workflow   string   `yaml:"workflow"`
	Path       string   `yaml:"path"`
	WorkflowID int64    `yaml:"workflow_id"`
	Job        string   `yaml:"job"`
	Matrix     []string `yaml:"matrix"`
	Runner     struct {
		Labels  []string `yaml:"labels"`
		Names   []string `yaml:"names"`
		Windows bool     `yaml:"windows"`
	} `yaml:"runner"`
	Services []struct {
		Name   string `yaml:"name"`
		Image  string `yaml:"image"`
		Health bool   `yaml:"health"`
		Port   string `yaml:"port"`
	} `yaml:"services"`
	// Env is the job's environment as the runner echoes it ("KEY: value").
	Env   []string `yaml:"env"`
	Steps []struct {
		Name   string   `yaml:"name"`
		Uses   string   `yaml:"uses"`
		With   []string `yaml:"with"`
		Run    []string `yaml:"run"`
		Env    []string `yaml:"env"`
		Shell  string   `yaml:"shell"`
		Post   bool     `yaml:"post"`
		Always bool     `yaml:"always"`
		Secs   [2]int   `yaml:"secs"`
	} `yaml:"steps"`
	History  string `yaml:"history"`
	Failures map[string]struct {
		Step string `yaml:"step"`
		Exit int    `yaml:"exit"`
		Secs [2]int `yaml:"secs"`
	} `yaml:"failures"`
	PRBranches     []string     `yaml:"pr_branches"`
	PRFail         string       `yaml:"pr_fail"`
	RerunFail      string       `yaml:"rerun_fail"`
	TriggerAttempt int          `yaml:"trigger_attempt"`
	Authors        []string     `yaml:"authors"`
	Messages       []string     `yaml:"messages"`
	Start          time.Time    `yaml:"start"`
	Expect         rsExpectSpec `yaml:"expect"`
}

// rsExpectSpec is the expert's reading of a scenario (rsExpect).
type rsExpectSpec struct {
	Classes      map[string]string `yaml:"classes"`
	Verdict      string            `yaml:"verdict"`
	Mechanism    string            `yaml:"mechanism"`
	MechanismAny []string          `yaml:"mechanism_any"`
	Cause        string            `yaml:"cause"`
	EngineCause  string            `yaml:"engine_cause"`
	Producer     *struct {
		File string `yaml:"file"`
		From string `yaml:"from"`
		To   string `yaml:"to"`
	} `yaml:"producer"`
	Patch         bool     `yaml:"patch"`
	PatchFiles    []string `yaml:"patch_files"`
	PatchFilesAny []string `yaml:"patch_files_any"`
	CIOnly        *bool    `yaml:"ci_only"`
	Affected      string   `yaml:"affected"`
	Pattern       string   `yaml:"pattern"`
}

// rsScenarios loads every committed realistic scenario's spec.
func rsScenarios(t testing.TB) []*rsScenario {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(rsSpecDir, "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no specs in %s: %v", rsSpecDir, err)
	}
	var out []*rsScenario
	for _, p := range paths {
		s, err := loadRSScenario(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// rsLoad loads one spec: a committed scenario's, or a file under
// testdata/robust.
func rsLoad(t testing.TB, name string) *rsScenario {
	t.Helper()
	path := filepath.Join(rsSpecDir, name+".txtar")
	if _, err := os.Stat(path); err != nil {
		path = filepath.Join("testdata", "robust", name+".txtar")
	}
	s, err := loadRSScenario(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// loadRSScenario reads one spec; the scenario is named after the file.
func loadRSScenario(path string) (*rsScenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read spec: %w", err)
	}
	name := strings.TrimSuffix(filepath.Base(path), ".txtar")
	s, err := parseRSSpec(name, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// parseRSSpec builds the scenario from its archive.
func parseRSSpec(name string, data []byte) (*rsScenario, error) {
	_, files := parseTxtar(data)
	s := &rsScenario{name: name, files: map[string]string{}}
	tmpl := template.New(name).Funcs(rsFuncs(nil))
	outs := map[string]bool{}
	var spec *rsSpec
	for _, f := range files {
		kind, rest, _ := strings.Cut(f.name, "/")
		var err error
		switch {
		case f.name == "spec.yaml":
			spec, err = decodeRSSpec(f.data)
		case kind == "repo" && rest != "":
			s.files[rest] = string(f.data)
		case kind == "define" && rest != "":
			_, err = tmpl.New(rest).Parse(strings.TrimSuffix(string(f.data), "\n"))
		case (kind == "step" || kind == "failure") && rest != "":
			outs[f.name] = true
			_, err = tmpl.New(f.name).Parse(string(f.data))
		default:
			err = fmt.Errorf("unknown file %q", f.name)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
	}
	if spec == nil {
		return nil, fmt.Errorf("no spec.yaml")
	}
	if err := s.apply(spec, tmpl, outs); err != nil {
		return nil, err
	}
	for name := range outs {
		return nil, fmt.Errorf("%s belongs to no step or failure", name)
	}
	return s, nil
}

func decodeRSSpec(data []byte) (*rsSpec, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var spec rsSpec
	if err := dec.Decode(&spec); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	return &spec, nil
}

// apply fills s from spec; the outputs named in outs are used up.
func (s *rsScenario) apply(spec *rsSpec, tmpl *template.Template, outs map[string]bool) error {
	out := func(name string) func(*rsCtx) []string {
		if !outs[name] {
			return nil
		}
		delete(outs, name)
		return rsOutput(s.name, tmpl, name)
	}
	s.repo, s.repoID, s.workflow, s.path, s.wfID = spec.Repo, spec.RepoID, spec.Workflow, spec.Path, spec.WorkflowID
	s.jobName, s.matrix, s.jobEnv, s.history = spec.Job, spec.Matrix, spec.Env, spec.History
	s.runner = rsRunner{labels: spec.Runner.Labels, names: spec.Runner.Names, windows: spec.Runner.Windows}
	for _, sv := range spec.Services {
		s.services = append(s.services, rsService{name: sv.Name, image: sv.Image, health: sv.Health, port: sv.Port})
	}
	seen := map[string]bool{}
	for _, st := range spec.Steps {
		step := rsStep{name: st.Name, uses: st.Uses, with: st.With, run: st.Run, env: st.Env, shell: st.Shell,
			post: st.Post, always: st.Always, secs: st.Secs}
		if step.uses == "" && len(step.run) == 0 {
			return fmt.Errorf("step %q neither uses an action nor runs a script", st.Name)
		}
		if seen[step.display()] {
			return fmt.Errorf("two steps are called %q", step.display())
		}
		seen[step.display()] = true
		step.out = out("step/" + step.display())
		s.steps = append(s.steps, step)
	}
	s.failures = map[byte]rsFailure{}
	for c, f := range spec.Failures {
		b, err := historyCode(c)
		if err != nil || b == 0 {
			return fmt.Errorf("failure %q is not one history code", c)
		}
		s.failures[b] = rsFailure{step: f.Step, exit: f.Exit, secs: f.Secs, out: out("failure/" + c)}
	}
	var err error
	if s.prFail, err = historyCode(spec.PRFail); err != nil {
		return fmt.Errorf("pr_fail: %w", err)
	}
	if s.rerunFail, err = historyCode(spec.RerunFail); err != nil {
		return fmt.Errorf("rerun_fail: %w", err)
	}
	s.prBranches, s.triggerAttempt, s.authors, s.messages, s.start = spec.PRBranches, spec.TriggerAttempt, spec.Authors, spec.Messages, spec.Start
	s.expect, err = spec.Expect.expect()
	return err
}

// expect converts the expectations.
func (e rsExpectSpec) expect() (rsExpect, error) {
	x := rsExpect{verdict: e.Verdict, mechanism: e.Mechanism, mechanismAny: e.MechanismAny, cause: e.Cause, engineCause: e.EngineCause,
		patch: e.Patch, patchFiles: e.PatchFiles, patchFilesAny: e.PatchFilesAny, ciOnly: e.CIOnly, pattern: e.Pattern, affected: e.Affected}
	if len(e.Classes) > 0 {
		x.classes = map[byte]string{}
		for c, class := range e.Classes {
			b, err := historyCode(c)
			if err != nil || b == 0 {
				return x, fmt.Errorf("class of %q: not one history code", c)
			}
			x.classes[b] = class
		}
	}
	if p := e.Producer; p != nil {
		x.producer = &rsAnchor{file: p.File, from: p.From, to: p.To}
	}
	return x, nil
}

// historyCode is the history code c names; "" is none.
func historyCode(c string) (byte, error) {
	switch len(c) {
	case 0:
		return 0, nil
	case 1:
		return c[0], nil
	}
	return 0, fmt.Errorf("%q is not one history code", c)
}

// rsOutput returns the output function of the template called name.
func rsOutput(scenario string, tmpl *template.Template, name string) func(*rsCtx) []string {
	return func(c *rsCtx) []string {
		t, err := tmpl.Clone()
		if err != nil {
			panic(fmt.Sprintf("%s: %s: %v", scenario, name, err))
		}
		var b strings.Builder
		if err := t.Funcs(rsFuncs(c)).ExecuteTemplate(&b, name, nil); err != nil {
			panic(fmt.Sprintf("%s: %s: %v", scenario, name, err))
		}
		if b.Len() == 0 {
			return nil
		}
		return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	}
}

// rsFuncs are the template functions over c (nil when parsing).
func rsFuncs(c *rsCtx) template.FuncMap {
	return template.FuncMap{
		"n":      c.n,
		"secs":   c.secs,
		"hex":    c.hex,
		"pick":   c.pick,
		"suffix": c.suffix,
		"coin":   func() bool { return c.rng.IntN(2) == 0 },
		"startService": func(name string) (string, error) {
			for _, svc := range c.s.services {
				if svc.name == name {
					return strings.Join(c.startService(svc), "\n"), nil
				}
			}
			return "", fmt.Errorf("no service %q", name)
		},
		"ws":       func() string { return c.ws },
		"sha":      func() string { return c.r.sha },
		"leg":      func() string { return c.leg },
		"runIndex": func() int { return c.r.index },
		"started": func(secs int, layout string) string {
			return c.r.started.Add(time.Duration(secs) * time.Second).Format(layout)
		},
		"esc":        func() string { return "\x1b" },
		"add":        func(a, b int) int { return a + b },
		"repeat":     strings.Repeat,
		"fields":     strings.Fields,
		"split":      strings.Split,
		"replace":    strings.ReplaceAll,
		"trimPrefix": strings.TrimPrefix,
	}
}

// txtarFile is one file of a txtar archive.
type txtarFile struct {
	name string
	data []byte
}

// parseTxtar splits a txtar archive (golang.org/x/tools/txtar's format)
// into its comment and its files: a line "-- name --" starts a file, which
// runs to the next such line.
func parseTxtar(data []byte) (comment []byte, files []txtarFile) {
	var cur *txtarFile
	for len(data) > 0 {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		if name, ok := txtarMarker(line); ok {
			files = append(files, txtarFile{name: name})
			cur = &files[len(files)-1]
			data = rest
			continue
		}
		n := len(line)
		if n < len(data) {
			n++ // the newline
		}
		if cur == nil {
			comment = append(comment, data[:n]...)
		} else {
			cur.data = append(cur.data, data[:n]...)
		}
		data = data[n:]
	}
	return comment, files
}

func txtarMarker(line []byte) (string, bool) {
	s := string(line)
	if !strings.HasPrefix(s, "-- ") || !strings.HasSuffix(s, " --") || len(s) < 7 {
		return "", false
	}
	return strings.TrimSpace(s[3 : len(s)-3]), true
}

// TestRealisticSpecMistakesAreCaught: a spec that names an output no step
// or failure has, misspells a field or breaks a template does not load.
func TestRealisticSpecMistakesAreCaught(t *testing.T) {
	const spec = "-- spec.yaml --\nrepo: a/b\nsteps:\n  - name: Unit tests\n    run: [make test]\nfailures:\n  T: {step: Unit tests, exit: 2}\n"
	cases := []struct{ name, archive, want string }{
		{"output of no step", spec + "-- step/Unit test --\nok\n", "step/Unit test belongs to no step or failure"},
		{"output of no failure", spec + "-- failure/U --\nFAIL\n", "failure/U belongs to no step or failure"},
		{"unknown section", spec + "-- steps/Unit tests --\nok\n", `unknown file "steps/Unit tests"`},
		{"misspelt field", "-- spec.yaml --\nrepo: a/b\nhistroy: ..\n", "field histroy not found"},
		{"two-letter code", "-- spec.yaml --\nfailures:\n  TT: {step: Unit tests}\n", `failure "TT" is not one history code`},
		{"broken template", spec + "-- failure/T --\n{{n 1\n", "failure/T"},
		{"no spec", "-- step/Unit tests --\nok\n", "no spec.yaml"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseRSSpec("rs-x", []byte(tc.archive))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
	s, err := parseRSSpec("rs-x", []byte(spec+"-- step/Unit tests --\nok {{n 1 1}}\n\n-- failure/T --\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := &rsCtx{rng: s.rng("test")}
	if got := s.steps[0].out(c); !slices.Equal(got, []string{"ok 1", ""}) {
		t.Errorf("step output = %q, want two lines, the second empty", got)
	}
	if s.failures['T'].out == nil || s.failures['T'].out(c) != nil {
		t.Errorf("an empty failure section must give a failure without lines")
	}
}

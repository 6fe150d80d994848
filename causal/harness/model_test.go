package harness

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseWorkflow(t *testing.T) {
	src := `name: CI
defaults:
  run:
    shell: bash
jobs:
  test:
    name: Unit tests
    runs-on: ubuntu-latest
    timeout-minutes: 20
    services:
      db:
        image: postgres:16
        options: --health-cmd pg_isready
        ports: ["5432:5432"]
    steps:
      - uses: actions/checkout@v4
      - run: |
          make deps
          make test
        continue-on-error: false
      - name: Lint
        if: always()
        working-directory: web
        timeout-minutes: 5
        run: npm run lint
`
	wf, err := ParseWorkflow("ci.yml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if wf.DefaultShell != "bash" || len(wf.Jobs) != 1 {
		t.Fatalf("workflow = %+v", wf)
	}
	j := wf.Jobs[0]
	if j.Name != "Unit tests" || j.TimeoutMinutes.Int() != 20 || j.TimeoutMinutes.Line != 9 {
		t.Errorf("job = %+v", j)
	}
	if len(j.Services) != 1 || j.Services[0].Image.Text != "postgres:16" || j.Services[0].Image.Line != 12 || j.Services[0].Ports[0] != "5432:5432" {
		t.Errorf("services = %+v", j.Services[0])
	}
	tests := []struct {
		display string
		line    int
		runLine int
		endLine int
	}{
		{"Run actions/checkout@v4", 16, 0, 16},
		{"Run make deps", 17, 18, 20},
		{"Lint", 21, 25, 25},
	}
	for i, tt := range tests {
		s := j.Steps[i]
		if s.DisplayName() != tt.display || s.Line != tt.line || s.RunLine != tt.runLine || s.EndLine != tt.endLine {
			t.Errorf("step %d = %q line %d run %d end %d, want %+v", i, s.DisplayName(), s.Line, s.RunLine, s.EndLine, tt)
		}
	}
	if s := j.Steps[2]; s.If != "always()" || s.WorkingDirectory != "web" || s.TimeoutMinutes.Int() != 5 {
		t.Errorf("lint step = %+v", s)
	}
	for _, name := range []string{"Lint", "lint", "Run make deps"} {
		if _, _, err := wf.FindStep("Unit tests", name, 0); err != nil {
			t.Errorf("FindStep(%q): %v", name, err)
		}
	}
	if _, _, err := wf.FindStep("Unit tests", "Initialize containers", 2); err == nil {
		t.Error("a runner step must not match a workflow step by number")
	}
}

func TestParseTaskfile(t *testing.T) {
	src := `version: '3'
vars:
  CELLS: a b c
includes:
  ops:
    taskfile: ./ops/Taskfile.yml
    dir: ./ops
tasks:
  short: echo short
  list: [echo one, echo two]
  full:
    desc: full form
    internal: true
    deps: [short, {task: list, vars: {X: 1}}]
    cmds:
      - for: {var: CELLS}
        cmd: echo {{.ITEM}}
      - task: list
      - defer: echo bye
      - cmd: exit 1
        ignore_error: true
`
	tf, err := ParseTaskfile("Taskfile.yml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(tf.Includes) != 1 || tf.Includes[0].Path != "./ops/Taskfile.yml" || tf.Includes[0].Namespace != "ops" {
		t.Errorf("includes = %+v", tf.Includes)
	}
	if got := strings.Join(tf.Order, ","); got != "short,list,full" {
		t.Errorf("order = %s", got)
	}
	full := tf.Tasks["full"]
	if !full.Internal || len(full.Deps) != 2 || full.Deps[1].Task != "list" || len(full.Cmds) != 4 {
		t.Fatalf("full = %+v", full)
	}
	if items := tf.ForItems(full, full.Cmds[0]); strings.Join(items, " ") != "a b c" || full.Cmds[0].ShellLine != 17 {
		t.Errorf("for entry = %+v items %v", full.Cmds[0], items)
	}
	if full.Cmds[1].Call == nil || full.Cmds[1].Call.Task != "list" || !full.Cmds[2].Defer || !full.Cmds[3].IgnoreError {
		t.Errorf("cmds = %+v %+v %+v", full.Cmds[1], full.Cmds[2], full.Cmds[3])
	}
	if s := tf.Tasks["short"]; len(s.Cmds) != 1 || s.Cmds[0].Shell != "echo short" || s.Cmds[0].Line != 9 {
		t.Errorf("short = %+v", s.Cmds[0])
	}
}

func TestParseMakefile(t *testing.T) {
	src := "NPM ?= npm\nFLAGS := --ci\nFLAGS += -q\nexport GOFLAGS=-mod=mod\ninclude rules.mk\n\n.PHONY: deps test\n" +
		"deps: ## install\n\t@$(NPM) ci $(FLAGS)\n\n" +
		"test: deps\n\t-$(NPM) test \\\n\t  -- --runInBand\n\techo $$HOME $@\n" +
		"ifeq ($(CI),true)\nci: ; echo ci\nendif\n" +
		"define BLOCK\nnot: a target\nendef\n"
	mf, err := ParseMakefile("Makefile", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if mf.Vars["FLAGS"].Text != "--ci -q" || mf.Vars["GOFLAGS"].Text != "-mod=mod" || !mf.Phony["deps"] {
		t.Errorf("vars = %+v phony %v", mf.Vars, mf.Phony)
	}
	if len(mf.Includes) != 1 || mf.Includes[0].Path != "rules.mk" {
		t.Errorf("includes = %+v", mf.Includes)
	}
	if _, ok := mf.Targets["not"]; ok {
		t.Error("a define block must not define targets")
	}
	deps := mf.Targets["deps"]
	if deps.Line != 8 || len(deps.Recipe) != 1 || !deps.Recipe[0].Silent || deps.Recipe[0].Shell != "npm ci --ci -q" || deps.Recipe[0].Source != "$(NPM) ci $(FLAGS)" {
		t.Errorf("deps = %+v %+v", deps, deps.Recipe[0])
	}
	test := mf.Targets["test"]
	if len(test.Recipe) != 2 || test.Recipe[0].Line != 12 || test.Recipe[0].EndLine != 13 || !test.Recipe[0].IgnoreErr {
		t.Fatalf("test recipe = %+v", test.Recipe[0])
	}
	if got := test.Recipe[1].Shell; got != "echo $HOME test" {
		t.Errorf("expanded = %q", got)
	}
	if ci := mf.Targets["ci"]; ci == nil || len(ci.Recipe) != 1 || ci.Recipe[0].Shell != "echo ci" {
		t.Errorf("inline recipe = %+v", ci)
	}
	if mf.DefaultTarget() != "deps" {
		t.Errorf("default = %s", mf.DefaultTarget())
	}
}

func TestParseHostileYAML(t *testing.T) {
	tests := []struct {
		name string
		src  string
	}{
		{"invalid", "jobs: [\n"},
		{"not a mapping", "- a\n- b\n"},
		{"alias bomb", "a: &a [x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b]\njobs: *c\ntasks: *c\n"},
		{"huge", "x: " + strings.Repeat("a", MaxFileBytes)},
		{"wrong types", "jobs:\n  a: 1\n  b:\n    steps: {x: 1}\ntasks:\n  t:\n    cmds: 5\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Neither parser may panic; errors are fine.
			_, _ = ParseWorkflow("w.yml", []byte(tt.src))
			_, _ = ParseTaskfile("Taskfile.yml", []byte(tt.src))
			_, _ = ParseMakefile("Makefile", []byte(tt.src))
		})
	}
	if _, err := ParseWorkflow("w.yml", []byte("jobs: [\n")); err == nil {
		t.Error("invalid YAML must be an error")
	}
}

func FuzzHarness(f *testing.F) {
	f.Add("version: '3'\ntasks:\n  a:\n    cmds:\n      - echo {{.X}} | tee y\n")
	f.Add("a: b\n\t$(X) -j$(nproc)\n")
	f.Add("jobs:\n  a:\n    steps:\n      - run: until x; do sleep 1; done\n")
	// Deeply nested input of every kind: each parse must refuse or finish.
	for _, bomb := range []string{
		strings.Repeat("( ", 20000) + "true" + strings.Repeat(" )", 20000),
		"echo $((" + strings.Repeat("- ", 20000) + "1))",
		"jobs: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000),
		strings.Repeat("- ", 20000) + "x",
		`{"scripts": ` + strings.Repeat(`{"a": `, 20000) + "1" + strings.Repeat("}", 20001),
		"a:\n\t" + strings.Repeat("{ ", 20000) + "true" + strings.Repeat("; }", 20000) + "\n",
	} {
		f.Add(bomb)
	}
	f.Fuzz(func(t *testing.T, src string) {
		_, _ = parsePackageJSON("package.json", []byte(src))
		_, _ = ParseWorkflow("w.yml", []byte(src))
		_, _ = ParseTaskfile("Taskfile.yml", []byte(src))
		_, _ = ParseMakefile("Makefile", []byte(src))
		_ = ParseShell("x.sh", 1, src)
		_ = ParseRecipe("Makefile", 1, src)
	})
}

func TestWorkflowMatrixKeys(t *testing.T) {
	src := `on: push
jobs:
  plain:
    runs-on: ubuntu-latest
    steps: [{run: "true"}]
  grid:
    runs-on: ${{ matrix.os }}
    strategy:
      matrix:
        os: [ubuntu-latest, macos-latest]
        node: [20, 22]
        exclude:
          - os: macos-latest
            node: 20
        include:
          - os: ubuntu-latest
            experimental: true
    steps: [{run: "true"}]
  computed:
    runs-on: ubuntu-latest
    strategy:
      matrix: ${{ fromJSON(needs.plan.outputs.matrix) }}
    steps: [{run: "true"}]
`
	wf, err := ParseWorkflow("ci.yml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, j := range wf.Jobs {
		got[j.ID] = fmt.Sprint(j.Matrix, j.MatrixDynamic)
	}
	want := map[string]string{"plain": "[] false", "grid": "[os node experimental] false", "computed": "[] true"}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("job %s: matrix %s, want %s", id, got[id], w)
		}
	}
}

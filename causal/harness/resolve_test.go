package harness

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

func mapFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for p, c := range files {
		m[p] = &fstest.MapFile{Data: []byte(c)}
	}
	return m
}

func resolve(t *testing.T, r *Repo, wfPath, step string) *Node {
	t.Helper()
	wf, err := r.Workflow(wfPath)
	if err != nil {
		t.Fatal(err)
	}
	j, s, err := wf.FindStep("", step, 0)
	if err != nil {
		t.Fatal(err)
	}
	return r.ResolveStep(wf, j, s)
}

// outline renders a tree as "kind file:line symbol" lines.
func outline(root *Node) []string {
	var out []string
	var walk func(n *Node, d int)
	walk = func(n *Node, d int) {
		label := n.Symbol
		if n.Kind == NodeCommand {
			label = n.Tool()
		}
		out = append(out, fmt.Sprintf("%s%s %s:%d %s", strings.Repeat(" ", d), n.Kind, n.File, n.Line, label))
		for _, c := range n.Children {
			walk(c, d+1)
		}
	}
	walk(root, 0)
	return out
}

func TestResolveStep(t *testing.T) {
	files := map[string]string{
		".github/workflows/ci.yml": `name: CI
on: push
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - name: Env
        run: task env
      - run: make -C web deps
      - name: Npm
        working-directory: web
        run: npm run e2e
`,
		"Taskfile.yml": `version: '3'
includes:
  infra: ./infra
tasks:
  env:
    deps: [tools]
    cmds:
      - task: infra:up
      - defer: echo cleanup
      - ./hack/setup.sh one
  tools:
    cmds:
      - go install tool@v1.2.3
`,
		"infra/Taskfile.yml": `version: '3'
tasks:
  up:
    cmds:
      - kind create cluster
      - task: up
`,
		"hack/setup.sh": `#!/bin/sh
set -e
wait_api() {
  kubectl get --raw /readyz
}
wait_api
`,
		"web/Makefile": `NPM ?= npm
include common.mk
deps: lint-deps
	$(NPM) ci
`,
		"web/common.mk": `lint-deps:
	@echo lint
`,
		"web/package.json": `{
  "scripts": {
    "e2e": "playwright test",
    "pree2e": "node setup.js"
  }
}
`,
	}
	r := NewRepo(mapFS(files))
	tests := []struct {
		step string
		want []string
	}{
		{"Env", []string{
			"step .github/workflows/ci.yml:8 Env",
			" command .github/workflows/ci.yml:9 task",
			"  task Taskfile.yml:5 env",
			"   task Taskfile.yml:11 tools",
			"    task-cmd Taskfile.yml:13 tools",
			"     command Taskfile.yml:13 go",
			"   task-cmd Taskfile.yml:8 env",
			"    task infra/Taskfile.yml:3 infra:up",
			"     task-cmd infra/Taskfile.yml:5 infra:up",
			"      command infra/Taskfile.yml:5 kind",
			"     task-cmd infra/Taskfile.yml:6 infra:up",
			"   task-cmd Taskfile.yml:9 env",
			"    command Taskfile.yml:9 echo",
			"   task-cmd Taskfile.yml:10 env",
			"    command Taskfile.yml:10 setup.sh",
			"     script hack/setup.sh:1 hack/setup.sh",
			"      command hack/setup.sh:2 set",
			"      command hack/setup.sh:6 wait_api",
			"       function hack/setup.sh:3 wait_api",
			"        command hack/setup.sh:4 kubectl",
		}},
		{"Run make -C web deps", []string{
			"step .github/workflows/ci.yml:10 Run make -C web deps",
			" command .github/workflows/ci.yml:10 make",
			"  target web/Makefile:3 deps",
			"   target web/common.mk:1 lint-deps",
			"    recipe web/common.mk:2 lint-deps",
			"     command web/common.mk:2 echo",
			"   recipe web/Makefile:4 deps",
			"    command web/Makefile:4 npm",
		}},
		{"Npm", []string{
			"step .github/workflows/ci.yml:11 Npm",
			" command .github/workflows/ci.yml:13 npm",
			"  package-script web/package.json:3 e2e",
			"   command web/package.json:4 node",
			"   command web/package.json:3 playwright",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.step, func(t *testing.T) {
			got := outline(resolve(t, r, ".github/workflows/ci.yml", tt.step))
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("tree:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestResolveHostile(t *testing.T) {
	deep := "version: '3'\ntasks:\n"
	for i := 0; i < 40; i++ {
		deep += fmt.Sprintf("  t%d:\n    cmds:\n      - task: t%d\n      - echo %d\n", i, i+1, i)
	}
	tests := []struct {
		name  string
		files map[string]string
		run   string
	}{
		{"task calls itself", map[string]string{"Taskfile.yml": "version: '3'\ntasks:\n  a:\n    cmds:\n      - task: a\n      - task a\n"}, "task a"},
		{"mutual tasks", map[string]string{"Taskfile.yml": "version: '3'\ntasks:\n  a:\n    deps: [b]\n  b:\n    deps: [a]\n"}, "task a"},
		{"deep chain", map[string]string{"Taskfile.yml": deep}, "task t0"},
		{"script sources itself", map[string]string{"x.sh": "./x.sh\n. ./x.sh\n"}, "./x.sh"},
		{"recursive make", map[string]string{"Makefile": "a: b\n\t$(MAKE) a\nb: a\n\tmake b\n"}, "make a"},
		{"invalid taskfile", map[string]string{"Taskfile.yml": "tasks: [unclosed\n"}, "task a"},
		{"huge script", map[string]string{"x.sh": strings.Repeat("a", MaxFileBytes+1)}, "./x.sh"},
		{"escaping path", map[string]string{"x.sh": "../../etc/passwd\n/bin/sh ../../x.sh\n"}, "./x.sh"},
		{"recipe needs itself", map[string]string{"Justfile": "a: a b\n    just a\nb: a\n    just b\n"}, "just a"},
		{"justfile imports itself", map[string]string{"Justfile": "import 'Justfile'\nmod m 'Justfile'\na:\n    just m::a\n"}, "just a"},
		{"image build builds itself", map[string]string{"Dockerfile": "FROM x AS a\nFROM a AS b\nCOPY --from=b / /\nRUN docker build .\n"}, "docker build ."},
		{"scripts source each other", map[string]string{"a.sh": ". ./b.sh\nf\n", "b.sh": ". ./a.sh\nf() { g; }\ng() { f; }\n"}, "./a.sh"},
		{"makefiles include each other", map[string]string{"Makefile": "include a.mk\n", "a.mk": "include Makefile\ninclude *.mk\nx:\n\t$(MAKE) -C . x\n"}, "make x"},
		{"compose runs compose", map[string]string{"compose.yaml": "services:\n  a:\n    build: .\n    command: docker compose up a\n", "Dockerfile": "FROM x\nRUN docker compose run a\n"}, "docker compose up"},
		{"unparseable files", map[string]string{"Justfile": "a:\n    echo $((\n", "compose.yaml": "services: [\n", "Dockerfile": "FROM x\nRUN if then fi ((\n"}, "just a; docker compose up; docker build ."},
		{"include fan-out", map[string]string{"Makefile": "include" + strings.Repeat(" x.mk", 80) + "\nall:\n\t$(MAKE) missing\n", "x.mk": "include" + strings.Repeat(" Makefile x.mk", 80) + "\n",
			"Justfile": strings.Repeat("import 'x.just'\n", 80) + "a:\n    just missing\n", "x.just": strings.Repeat("import 'Justfile'\nimport 'x.just'\n", 80)}, "make all; just a"},
		{"huge Dockerfile", map[string]string{"Dockerfile": "FROM x\nRUN " + strings.Repeat("a", MaxFileBytes) + "\n"}, "docker build ."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.files[".github/workflows/w.yml"] = "jobs:\n  j:\n    steps:\n      - name: S\n        run: " + tt.run + "\n"
			r := NewRepo(mapFS(tt.files))
			root := resolve(t, r, ".github/workflows/w.yml", "S")
			n := len(root.Flatten())
			if n > maxResolveNodes+10 {
				t.Errorf("%d nodes, above the bound", n)
			}
			depth := 0
			root.Walk(func(x *Node) bool {
				if d := len(x.Ancestors()); d > depth {
					depth = d
				}
				return true
			})
			if depth > 3*maxResolveDepth+6 {
				t.Errorf("tree depth %d, above the bound", depth)
			}
		})
	}
}

func TestLocateStepReusable(t *testing.T) {
	r := NewRepo(mapFS(map[string]string{
		".github/workflows/ci.yml":  "jobs:\n  e2e:\n    uses: ./.github/workflows/e2e.yml\n",
		".github/workflows/e2e.yml": "on: workflow_call\njobs:\n  run:\n    steps:\n      - name: Suites\n        run: make e2e\n",
	}))
	wf, _ := r.Workflow(".github/workflows/ci.yml")
	owner, job, step, err := r.LocateStep(wf, "e2e / run", "Suites", 3)
	if err != nil {
		t.Fatal(err)
	}
	if owner.Path != ".github/workflows/e2e.yml" || job.ID != "run" || step.RunLine != 6 {
		t.Errorf("located %s %s line %d", owner.Path, job.ID, step.RunLine)
	}
}

// TestResolveFollowsWorkingDirectory: a step's cd, pushd and popd move the
// directory later commands resolve from, a script's cd "$(dirname "$0")"
// moves to the script's own directory, and a job that checks the repository
// out under a path (by its own name or github.repository) has it there.
func TestResolveFollowsWorkingDirectory(t *testing.T) {
	files := map[string]string{
		".github/workflows/ci.yml": `on: push
jobs:
  it:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          repository: other/tool
          path: tool
      - uses: actions/checkout@v4
        with:
          repository: acme/widget
          path: src
      - name: Test
        run: |
          pushd src/ci
          ./run.sh
          popd
          cd src && make lint
          cd "$UNKNOWN" && ./nothing.sh
`,
		"ci/run.sh":     "#!/bin/sh\ncd \"$(dirname \"$0\")/..\"\n./hack/fetch.sh\n",
		"hack/fetch.sh": "#!/bin/sh\ncurl -fsSL https://example.org/x\n",
		"Makefile":      "lint:\n\tgolangci-lint run\n",
	}
	r := NewRepo(mapFS(files)).Named("acme/widget")
	got := outline(resolve(t, r, ".github/workflows/ci.yml", "Test"))
	want := []string{
		"step .github/workflows/ci.yml:14 Test",
		" command .github/workflows/ci.yml:16 pushd",
		" command .github/workflows/ci.yml:17 run.sh",
		"  script ci/run.sh:1 ci/run.sh",
		"   command ci/run.sh:2 dirname",
		"   command ci/run.sh:2 cd",
		"   command ci/run.sh:3 fetch.sh",
		"    script hack/fetch.sh:1 hack/fetch.sh",
		"     command hack/fetch.sh:2 curl",
		" command .github/workflows/ci.yml:18 popd",
		" command .github/workflows/ci.yml:19 cd",
		" command .github/workflows/ci.yml:19 make",
		"  target Makefile:1 lint",
		"   recipe Makefile:2 lint",
		"    command Makefile:2 golangci-lint",
		" command .github/workflows/ci.yml:20 cd",
		" command .github/workflows/ci.yml:20 nothing.sh",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("tree:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

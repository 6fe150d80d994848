package harness

import (
	"strings"
	"testing"
)

// graphCase is a repository, the run: of a step "S" (or a whole workflow
// when workflow is set), and the tree ResolveStep must build for it.
type graphCase struct {
	name     string
	files    map[string]string
	run      string
	workflow string
	want     []string
}

func runGraphCases(t *testing.T, cases []graphCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wf := tc.workflow
			if wf == "" {
				wf = "on: push\njobs:\n  j:\n    steps:\n      - name: S\n        run: " + tc.run + "\n"
			}
			tc.files[".github/workflows/w.yml"] = wf
			r := NewRepo(mapFS(tc.files)).Named("acme/widget")
			got := outline(resolve(t, r, ".github/workflows/w.yml", "S"))
			if strings.Join(got[1:], "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("tree:\n%s\nwant:\n%s", strings.Join(got[1:], "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestResolveImageBuilds: a docker build (and buildx, podman, compose) runs
// the RUN instructions of the stages its target needs, in dependency order,
// with their commands; a RUN that runs a script copied from the context
// resolves it; a missing Dockerfile ends the branch with a note.
func TestResolveImageBuilds(t *testing.T) {
	dockerfile := "FROM golang:1.26 AS deps\nWORKDIR /src\nCOPY . .\nRUN go mod download && \\\n    ./ci/fetch.sh\n" +
		"FROM deps AS build\nRUN go build -o /app ./cmd/app\n" +
		"FROM alpine AS unused\nRUN apk add curl\n" +
		"FROM alpine\nCOPY --from=build /app /app\nRUN [\"/app\", \"--check\"]\n"
	files := func() map[string]string {
		return map[string]string{"build/Dockerfile": dockerfile, "ci/fetch.sh": "#!/bin/sh\ncurl -fsSL https://example.org\n"}
	}
	runGraphCases(t, []graphCase{
		{name: "docker build -f", files: files(), run: "docker build -f build/Dockerfile -t app .", want: []string{
			" command .github/workflows/w.yml:6 docker",
			"  dockerfile build/Dockerfile:1 build/Dockerfile",
			"   stage build/Dockerfile:1 deps",
			"    instruction build/Dockerfile:4 deps",
			"     command build/Dockerfile:4 go",
			"     command build/Dockerfile:5 fetch.sh",
			"      script ci/fetch.sh:1 ci/fetch.sh",
			"       command ci/fetch.sh:2 curl",
			"   stage build/Dockerfile:6 build",
			"    instruction build/Dockerfile:7 build",
			"     command build/Dockerfile:7 go",
			"   stage build/Dockerfile:10 stage-3",
			"    instruction build/Dockerfile:12 stage-3",
			"     command build/Dockerfile:12 app",
		}},
		{name: "buildx with a target", files: files(), run: "docker buildx build --platform linux/amd64 --target unused -f build/Dockerfile .", want: []string{
			" command .github/workflows/w.yml:6 docker",
			"  dockerfile build/Dockerfile:1 build/Dockerfile",
			"   stage build/Dockerfile:8 unused",
			"    instruction build/Dockerfile:9 unused",
			"     command build/Dockerfile:9 apk",
		}},
		{name: "missing Dockerfile", files: files(), run: "podman build -f nope/Dockerfile .", want: []string{
			" command .github/workflows/w.yml:6 podman",
		}},
		{name: "compose build", files: map[string]string{
			"compose.yaml":   "services:\n  api:\n    build:\n      context: ./api\n      target: test\n    command: pytest -x\n  db:\n    image: postgres:16\n",
			"api/Dockerfile": "FROM python:3.12 AS base\nRUN pip install -r requirements.txt\nFROM base AS test\nRUN pip install pytest\n",
		}, run: "docker compose up --build --exit-code-from api", want: []string{
			" command .github/workflows/w.yml:6 docker",
			"  compose-service compose.yaml:2 api",
			"   dockerfile api/Dockerfile:1 api/Dockerfile",
			"    stage api/Dockerfile:1 base",
			"     instruction api/Dockerfile:2 base",
			"      command api/Dockerfile:2 pip",
			"    stage api/Dockerfile:3 test",
			"     instruction api/Dockerfile:4 test",
			"      command api/Dockerfile:4 pip",
			"   command compose.yaml:6 pytest",
			"  compose-service compose.yaml:7 db",
		}},
		{name: "docker run of a mounted script", files: map[string]string{"ci/build.sh": "#!/bin/bash\ncmake --build build --parallel\n"},
			run: "docker run --rm -v `pwd`:/src -w /src ubuntu:24.04 bash /src/ci/build.sh", want: []string{
				" command .github/workflows/w.yml:6 pwd",
				" command .github/workflows/w.yml:6 docker",
				"  script ci/build.sh:1 ci/build.sh",
				"   command ci/build.sh:2 cmake",
			}},
	})
}

// TestResolveBuildAction: a docker/build-push-action step builds its file:
// (or context's Dockerfile); an expression the file cannot resolve is
// taken from the inputs the runner evaluated; a composite action passes its
// inputs down.
func TestResolveBuildAction(t *testing.T) {
	files := map[string]string{
		".github/workflows/w.yml": "on: push\njobs:\n  j:\n    steps:\n      - name: Build\n        uses: docker/build-push-action@v6\n" +
			"        with:\n          context: ${{ inputs.context }}\n          file: ${{ inputs.context }}/Dockerfile\n" +
			"      - name: Composite\n        uses: ./.github/actions/image\n        with:\n          dir: server\n",
		".github/actions/image/action.yml": "runs:\n  using: composite\n  steps:\n    - uses: docker/build-push-action@v6\n      with:\n        context: ${{ inputs.dir }}\n",
		"server/Dockerfile":                "FROM rust:1\nRUN cargo build --release\n",
	}
	r := NewRepo(mapFS(files))
	wf, _ := r.Workflow(".github/workflows/w.yml")
	j, s, _ := wf.FindStep("", "Build", 0)
	got := outline(r.ResolveStepWith(wf, j, s, Evaluated{With: map[string]string{"context": "./server", "file": "./server/Dockerfile"}}))
	want := []string{
		"step .github/workflows/w.yml:5 Build",
		" dockerfile server/Dockerfile:1 server/Dockerfile",
		"  stage server/Dockerfile:1 stage-0",
		"   instruction server/Dockerfile:2 stage-0",
		"    command server/Dockerfile:2 cargo",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("evaluated inputs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if unresolved := outline(r.ResolveStep(wf, j, s)); len(unresolved) != 1 {
		t.Errorf("without evaluated inputs the expression must stay unresolved: %v", unresolved)
	}
	_, c, _ := wf.FindStep("", "Composite", 0)
	got = outline(r.ResolveStep(wf, j, c))
	if len(got) != 6 || !strings.Contains(got[2], "dockerfile server/Dockerfile") {
		t.Errorf("composite build:\n%s", strings.Join(got, "\n"))
	}
}

// TestResolveJust: just runs a recipe's dependencies, then each body line
// in its own shell; arguments fill parameters before the next recipe name;
// imports and modules define recipes; a shebang recipe is one script.
func TestResolveJust(t *testing.T) {
	justfile := "set shell := [\"bash\", \"-c\"]\nimport 'ci.just'\nmod docs\n\ngo := \"go\"\n\n" +
		"default: build\n\n# build it\nbuild: tools\n    {{go}} build ./...\n    @echo built\n\n" +
		"release-ci version: (tools)\n    goreleaser release --nightly --clean\n\n" +
		"gen:\n    #!/usr/bin/env bash\n    set -euo pipefail\n    buf generate\n"
	runGraphCases(t, []graphCase{
		{name: "recipe with args then another", files: map[string]string{
			"Justfile": justfile, "ci.just": "tools:\n    go install tool@v1\n", "docs/mod.just": "site:\n    hugo --minify\n",
		}, run: "just release-ci v1.2.3 gen docs::site", want: []string{
			" command .github/workflows/w.yml:6 just",
			"  just-recipe Justfile:14 release-ci",
			"   just-recipe ci.just:1 tools",
			"    just-line ci.just:2 tools",
			"     command ci.just:2 go",
			"   just-line Justfile:15 release-ci",
			"    command Justfile:15 goreleaser",
			"  just-recipe Justfile:17 gen",
			"   just-line Justfile:19 gen",
			"    command Justfile:19 set",
			"    command Justfile:20 buf",
			"  just-recipe docs/mod.just:1 site",
			"   just-line docs/mod.just:2 site",
			"    command docs/mod.just:2 hugo",
		}},
		{name: "default recipe and a variable", files: map[string]string{
			"Justfile": justfile, "ci.just": "tools:\n    go install tool@v1\n",
		}, run: "just", want: []string{
			" command .github/workflows/w.yml:6 just",
			"  just-recipe Justfile:7 default",
			"   just-recipe Justfile:10 build",
			"    just-recipe ci.just:1 tools",
			"     just-line ci.just:2 tools",
			"      command ci.just:2 go",
			"    just-line Justfile:11 build",
			"     command Justfile:11 go",
			"    just-line Justfile:12 build",
			"     command Justfile:12 echo",
		}},
	})
}

// TestResolveMakeAcrossFiles: make finds included files from the directory
// it runs in (wildcards too), their variables are in scope, and $(MAKE) -C
// and make -f reach other makefiles.
func TestResolveMakeAcrossFiles(t *testing.T) {
	runGraphCases(t, []graphCase{
		{name: "include, MAKE -C and -f", files: map[string]string{
			"Makefile":           "include tools/make/*.mk\n\nci:\n\t$(MAKE) -C sub test\n\t$(MAKE) -f build/olm.mk bundle\n",
			"tools/make/kube.mk": "KUBECTL ?= kubectl\nconformance:\n\t$(KUBECTL) apply -f x.yaml\n",
			"sub/Makefile":       "test:\n\tgo test ./...\n",
			"build/olm.mk":       "bundle:\n\toperator-sdk bundle validate ./bundle\n",
		}, run: "make ci conformance", want: []string{
			" command .github/workflows/w.yml:6 make",
			"  target Makefile:3 ci",
			"   recipe Makefile:4 ci",
			"    command Makefile:4 make",
			"     target sub/Makefile:1 test",
			"      recipe sub/Makefile:2 test",
			"       command sub/Makefile:2 go",
			"   recipe Makefile:5 ci",
			"    command Makefile:5 make",
			"     target build/olm.mk:1 bundle",
			"      recipe build/olm.mk:2 bundle",
			"       command build/olm.mk:2 operator-sdk",
			"  target tools/make/kube.mk:2 conformance",
			"   recipe tools/make/kube.mk:3 conformance",
			"    command tools/make/kube.mk:3 kubectl",
		}},
	})
}

// TestResolveShellCalls: a sourced file's functions are callable after the
// source; bash -c runs its script; scripts sourcing each other stop; a
// script that is not in the repository is named; bats runs a directory's
// test files.
func TestResolveShellCalls(t *testing.T) {
	runGraphCases(t, []graphCase{
		{name: "sourced functions", files: map[string]string{
			"ci/lib.sh": "retry_fetch() {\n  curl -fsSL \"$1\"\n}\n. ci/lib.sh\n",
			"ci/run.sh": "#!/bin/bash\nsource \"$(dirname \"$0\")/lib.sh\"\nretry_fetch https://example.org\n",
		}, run: "bash ci/run.sh && bash -c 'cd web && npm ci'", want: []string{
			" command .github/workflows/w.yml:6 bash",
			"  script ci/run.sh:1 ci/run.sh",
			"   command ci/run.sh:2 dirname",
			"   command ci/run.sh:2 source",
			"    script ci/lib.sh:1 ci/lib.sh",
			"     command ci/lib.sh:4 .",
			"   command ci/run.sh:3 retry_fetch",
			"    function ci/lib.sh:1 retry_fetch",
			"     command ci/lib.sh:2 curl",
			" command .github/workflows/w.yml:6 bash",
			"  command .github/workflows/w.yml:6 cd",
			"  command .github/workflows/w.yml:6 npm",
		}},
		{name: "package scripts through --prefix and run-s", files: map[string]string{
			"web/package.json": "{\n  \"scripts\": {\n    \"ci:all\": \"run-s lint:* test\",\n    \"lint:js\": \"eslint .\",\n    \"lint:css\": \"stylelint src\",\n    \"test\": \"jest --ci\"\n  }\n}\n",
		}, run: "npm --prefix web run ci:all", want: []string{
			" command .github/workflows/w.yml:6 npm",
			"  package-script web/package.json:3 ci:all",
			"   command web/package.json:3 run-s",
			"    package-script web/package.json:4 lint:js",
			"     command web/package.json:4 eslint",
			"    package-script web/package.json:5 lint:css",
			"     command web/package.json:5 stylelint",
			"    package-script web/package.json:6 test",
			"     command web/package.json:6 jest",
		}},
		{name: "bats directory and helm chart", files: map[string]string{
			"tests/a.bats":              "@test \"ready\" {\n  kubectl wait --for=condition=ready pod -l app=x\n}\n",
			"tests/b.bats":              "setup() {\n  kind get clusters\n}\n@test \"b\" {\n  run curl -fsS localhost\n}\n",
			"charts/app/Chart.yaml":     "name: app\n",
			"deploy/kustomization.yaml": "resources: []\n",
		}, run: "bats -o out tests/ && helm upgrade --install app ./charts/app -f v.yaml && kubectl apply -k deploy", want: []string{
			" command .github/workflows/w.yml:6 bats",
			"  script tests/a.bats:1 tests/a.bats",
			"   command tests/a.bats:2 kubectl",
			"  script tests/b.bats:1 tests/b.bats",
			"   command tests/b.bats:5 run",
			" command .github/workflows/w.yml:6 helm",
			"  chart charts/app/Chart.yaml:1 charts/app",
			" command .github/workflows/w.yml:6 kubectl",
			"  kustomization deploy/kustomization.yaml:1 deploy",
		}},
	})
}

// TestResolveCheckoutExpressions: a checkout path: written with an env
// expression or the workspace maps the working directory back to the
// repository; a retry action's command: input is a script of the step.
func TestResolveCheckoutExpressions(t *testing.T) {
	wf := "on: push\nenv:\n  repo_path: ${{ github.workspace }}/go/src/acme/widget\ndefaults:\n  run:\n    working-directory: ./go/src/acme/widget\n" +
		"jobs:\n  j:\n    steps:\n      - uses: actions/checkout@v4\n        with:\n          path: ${{ env.repo_path }}\n" +
		"      - name: S\n        run: ./hack/deploy.sh\n"
	retry := "on: push\njobs:\n  j:\n    steps:\n      - name: S\n        uses: nick-fields/retry@v3\n        with:\n          max_attempts: 3\n" +
		"          command: |\n            cd web\n            npm ci\n"
	runGraphCases(t, []graphCase{
		{name: "retry action command", workflow: retry, files: map[string]string{"web/package.json": "{}"}, want: []string{
			" command .github/workflows/w.yml:10 cd",
			" command .github/workflows/w.yml:11 npm",
		}},
		{name: "env path", workflow: wf, files: map[string]string{"hack/deploy.sh": "#!/bin/sh\nkubectl apply -f x.yaml\n"}, want: []string{
			" command .github/workflows/w.yml:14 deploy.sh",
			"  script hack/deploy.sh:1 hack/deploy.sh",
			"   command hack/deploy.sh:2 kubectl",
		}},
	})
}

// TestResolveEvaluatedScript: a run: line with an expression is read as
// the runner echoed it, so its call is followed, and a script whose echo
// has another number of lines is read as written.
func TestResolveEvaluatedScript(t *testing.T) {
	files := map[string]string{
		".github/workflows/w.yml": "on: push\njobs:\n  j:\n    steps:\n      - name: S\n        run: |\n          set -e\n          make test-${{ matrix.suite }}\n",
		"Makefile":                "test-unit:\n\tgo test ./...\n",
	}
	r := NewRepo(mapFS(files))
	wf, _ := r.Workflow(".github/workflows/w.yml")
	j, s, _ := wf.FindStep("", "S", 0)
	tests := []struct {
		echoed []string
		want   int
	}{
		{[]string{"set -e", "make test-unit"}, 6},
		{[]string{"make test-unit"}, 3},
		{nil, 3},
	}
	for _, tt := range tests {
		got := outline(r.ResolveStepWith(wf, j, s, Evaluated{Run: tt.echoed}))
		if len(got) != tt.want || tt.want == 6 && got[3] != "  target Makefile:1 test-unit" {
			t.Errorf("echo %q:\n%s", tt.echoed, strings.Join(got, "\n"))
		}
		if !strings.HasPrefix(got[2], " command .github/workflows/w.yml:8") {
			t.Errorf("the make command must stay on line 8: %s", got[2])
		}
	}
}

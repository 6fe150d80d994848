package causal

import (
	"testing"
	"testing/fstest"

	"github.com/polylane/polylane/analysis"
	"github.com/polylane/polylane/causal/harness"
)

// TestScanLocations: every marker a tool prints to name a file, line,
// target, recipe, script or stage is read as one location, and lines that
// only look alike are not.
func TestScanLocations(t *testing.T) {
	tests := []struct {
		line string
		want loc // Kind "" for no location
	}{
		{"make[1]: *** [tools/make/kube.mk:95: run-conformance] Error 2", loc{Kind: locMake, Level: 1, File: "tools/make/kube.mk", Line: 95, Symbol: "run-conformance"}},
		{"make: *** [build] Error 1", loc{Kind: locMake, Symbol: "build"}},
		{"make[2]: Entering directory '/home/runner/work/app/app/sub'", loc{Kind: locMakeDir, Level: 2, File: "/home/runner/work/app/app/sub"}},
		{"make: Nothing to be done for 'all'.", loc{}},
		{`task: Failed to run task "e2e": exit status 1`, loc{Kind: locTask, Symbol: "e2e"}},
		{"error: Recipe `release-ci` failed on line 80 with exit code 1", loc{Kind: locJust, Symbol: "release-ci", Line: 80}},
		{"> @acme/web@1.2.0 test:ci", loc{Kind: locScript, Service: "@acme/web", Symbol: "test:ci"}},
		{"> widget@0.1.0 build /home/runner/work/widget/widget", loc{Kind: locScript, Service: "widget", Symbol: "build", File: "/home/runner/work/widget/widget"}},
		{"#12 [compiler  7/13] RUN cargo build --release", loc{Kind: locVertex, Vertex: "12", Symbol: "compiler", Text: "RUN cargo build --release"}},
		{"#9 [api builder 3/7] RUN go mod download", loc{Kind: locVertex, Vertex: "9", Service: "api", Symbol: "builder", Text: "RUN go mod download"}},
		{"#5 [2/3] RUN apt-get update", loc{Kind: locVertex, Vertex: "5", Text: "RUN apt-get update"}},
		{" > [compiler  7/13] RUN cargo build --release:", loc{Kind: locVertex, Symbol: "compiler", Text: "RUN cargo build --release"}},
		{"Step 3/9 : RUN apt-get update", loc{Kind: locVertex, Text: "RUN apt-get update"}},
		{"Dockerfile:67", loc{Kind: locDockerfile, File: "Dockerfile", Line: 67}},
		{"build/Dockerfile.ci:3", loc{Kind: locDockerfile, File: "build/Dockerfile.ci", Line: 3}},
		{`ERROR: failed to solve: process "/bin/sh -c make deps" did not complete successfully: exit code: 2`, loc{Kind: locSolve, Text: "make deps"}},
		{"api-1  | Traceback (most recent call last):", loc{Kind: locService, Symbol: "api"}},
		{`  File "/app/tests/test_x.py", line 22, in test_y`, loc{Kind: locPython, File: "/app/tests/test_x.py", Line: 22, Symbol: "test_y"}},
		{"FAILED tests/test_hf_models.py::test_load - OSError", loc{Kind: locPytest, File: "tests/test_hf_models.py", Symbol: "tests/test_hf_models.py::test_load"}},
		{"tests/test_x.py:22: AssertionError", loc{Kind: locPython, File: "tests/test_x.py", Line: 22}},
		{"    server_test.go:84: unexpected status", loc{Kind: locGo, File: "server_test.go", Line: 84}},
		{"        \tError Trace:\t/home/runner/work/p/p/internal/x_test.go:84", loc{Kind: locGo, File: "/home/runner/work/p/p/internal/x_test.go", Line: 84}},
		{"--- FAIL: TestTimer (3.14s)", loc{Kind: locGo, Symbol: "TestTimer"}},
		{"github/resource.go:449:43: undefined: orgName", loc{Kind: locGo, File: "github/resource.go", Line: 449}},
		{"    at Object.<anonymous> (/home/runner/work/w/w/src/a.test.ts:12:5)", loc{Kind: locNode, File: "/home/runner/work/w/w/src/a.test.ts", Line: 12}},
		{"    at async run (file:///home/runner/work/w/w/.github/scripts/lib/registry.mjs:240:11)", loc{Kind: locNode, File: "/home/runner/work/w/w/.github/scripts/lib/registry.mjs", Line: 240}},
		{"    at async run (.github/scripts/lib/registry.mjs:240:11)", loc{Kind: locNode, File: ".github/scripts/lib/registry.mjs", Line: 240}},
		{"\tat org.acme.FooTest.testBar(FooTest.java:42)", loc{Kind: locJava, File: "org/acme/FooTest.java", Line: 42, Symbol: "org.acme.FooTest.testBar"}},
		{"\tat org.acme.Outer$Inner.run(Outer.java:7)", loc{Kind: locJava, File: "org/acme/Outer.java", Line: 7, Symbol: "org.acme.Outer$Inner.run"}},
		{"  --> src/main.rs:10:5", loc{Kind: locRust, File: "src/main.rs", Line: 10}},
		{"thread 'x' panicked at src/lib.rs:31:9:", loc{Kind: locRust, File: "src/lib.rs", Line: 31}},
		{"thread 'x' panicked at 'boom', src/lib.rs:31:9", loc{Kind: locRust, File: "src/lib.rs", Line: 31}},
		{"./hack/deploy.sh: line 12: kubectl: command not found", loc{Kind: locShell, File: "./hack/deploy.sh", Line: 12}},
		{"/home/runner/work/_temp/abc.sh: line 3: foo: unbound variable", loc{Kind: locShell, File: "/home/runner/work/_temp/abc.sh", Line: 3}},
		{"./ci/run.sh: 7: foo: not found", loc{Kind: locShell, File: "./ci/run.sh", Line: 7}},
		{"# (in test file tests/e2e.bats, line 367)", loc{Kind: locBats, File: "tests/e2e.bats", Line: 367}},
		{"#   (from function `retry' in file tests/helpers.bash, line 12,", loc{Kind: locBats, File: "tests/helpers.bash", Line: 12}},
		{"::error file=app/x.go,line=10,col=2::bad", loc{Kind: locAnnotation, File: "app/x.go", Line: 10}},
		{"+ kubectl apply -f deploy/", loc{Kind: locXtrace, Text: "kubectl apply -f deploy/"}},
		{"ok  \tgithub.com/acme/x\t0.12s", loc{}},
		{"Error: Process completed with exit code 2.", loc{}},
	}
	for _, tt := range tests {
		got := scanLocations([]logLine{{N: 7, Text: tt.line}}, 3)
		if tt.want.Kind == "" {
			if len(got) != 0 {
				t.Errorf("%q: got %+v, want none", tt.line, got)
			}
			continue
		}
		tt.want.N, tt.want.After = 7, true
		if len(got) == 0 || got[len(got)-1] != tt.want {
			t.Errorf("%q:\n got %+v\nwant %+v", tt.line, got, tt.want)
		}
	}
}

// TestScanLocationsContext: a BuildKit line's vertex prefix and a Compose
// service prefix are read before the line's own location, and npm's
// command line completes its script header.
func TestScanLocationsContext(t *testing.T) {
	lines := []logLine{
		{N: 1, Text: "> web@1.0.0 test"},
		{N: 2, Text: "> jest --ci"},
		{N: 3, Text: `#7 1.204   File "/src/ci/check.py", line 9, in <module>`},
		{N: 4, Text: "worker-1  | ./run.sh: line 4: boom"},
	}
	got := scanLocations(lines, 0)
	if len(got) != 4 || got[0].Text != "jest --ci" || got[1].Kind != locPython || got[1].File != "/src/ci/check.py" ||
		got[2].Kind != locService || got[2].Symbol != "worker" || got[3].Kind != locShell || got[3].Line != 4 {
		t.Errorf("got %+v", got)
	}
}

// TestPathMapper: the runner's workspace, the checkout path, container
// mounts, relative directories and an unknown absolute prefix all map to
// the repository file, and a path outside the repository maps to nothing.
func TestPathMapper(t *testing.T) {
	fsys := fstest.MapFS{}
	for _, p := range []string{"internal/runner/x_test.go", "server/src/main.rs", "tests/e2e.bats", "ci/run.sh", "a/util.py", "b/util.py", "org/acme/FooTest.java"} {
		fsys["src/"+p] = &fstest.MapFile{Data: []byte("x\n")}
		fsys[p] = &fstest.MapFile{Data: []byte("x\n")}
	}
	m := &pathMapper{repo: harness.NewRepo(fsys), checkout: "src", mounts: []harness.Mount{{Container: "/compiler", Repo: "server"}}}
	plain := &pathMapper{repo: harness.NewRepo(fsys)}
	tests := []struct {
		m    *pathMapper
		raw  string
		dirs []string
		want string
	}{
		{m, "/home/runner/work/poseidon/poseidon/src/internal/runner/x_test.go", nil, "internal/runner/x_test.go"},
		{plain, "/home/runner/work/poseidon/poseidon/internal/runner/x_test.go", nil, "internal/runner/x_test.go"},
		{plain, "/__w/app/app/ci/run.sh", nil, "ci/run.sh"},
		{plain, `D:\a\app\app\ci\run.sh`, nil, "ci/run.sh"},
		{plain, "/github/workspace/tests/e2e.bats", nil, "tests/e2e.bats"},
		{m, "/compiler/src/main.rs", nil, "server/src/main.rs"},
		{plain, "run.sh", []string{"ci"}, "ci/run.sh"},
		{plain, "/catalyst/ci/run.sh", nil, "ci/run.sh"},
		{plain, "/usr/lib/python3/util.py", nil, ""},
		{plain, "/usr/lib/python3.12/a/util.py", nil, "a/util.py"},
		{plain, "org/acme/FooTest.java", nil, "org/acme/FooTest.java"},
		{plain, "/etc/passwd", nil, ""},
		{plain, "../../etc/passwd", nil, ""},
	}
	for _, tt := range tests {
		if got := tt.m.repoPath(tt.raw, tt.dirs...); got != tt.want {
			t.Errorf("repoPath(%q) = %q, want %q", tt.raw, got, tt.want)
		}
	}
}

// TestStepWith: the with: inputs the runner prints under the failing
// step's header are read; a composite step's inner headers are not.
func TestStepWith(t *testing.T) {
	lines := []logLine{
		{N: 5, Kind: analysis.KindGroup, Text: "##[group]Run docker/build-push-action@v6"},
		{N: 6, Text: "with:"},
		{N: 7, Text: "  context: ./server"},
		{N: 8, Text: "  file: .//server/Dockerfile"},
		{N: 9, Text: "  build-args: A=1"},
		{N: 10, Text: "    B=2"},
		{N: 11, Text: "env:"},
		{N: 12, Text: "  REGISTRY: ghcr.io"},
		{N: 13, Kind: analysis.KindEndGroup, Text: "##[endgroup]"},
		{N: 14, Kind: analysis.KindGroup, Text: "##[group]Run actions/checkout@v4"},
		{N: 15, Text: "with:"},
		{N: 16, Text: "  path: other"},
		{N: 17, Kind: analysis.KindEndGroup, Text: "##[endgroup]"},
	}
	got := stepWith(lines)
	if len(got) != 3 || got["context"] != "./server" || got["file"] != ".//server/Dockerfile" || got["path"] != "" || got["REGISTRY"] != "" {
		t.Errorf("got %v", got)
	}
}

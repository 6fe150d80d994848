package diagnosis

import "fmt"

// causeScenarios check that a class is a cause: two wordings of one rate
// limit, one timeout that names a different tarball in every run, and an
// aggregate job that fails because the job it needs failed.
var causeScenarios = []genScenario{
	{name: "two-wordings-one-cause", workflow: "Images", steps: []string{"Build image"},
		history: "..D...E..X...D..E",
		failures: map[byte]genFailure{
			'D': {step: "Build image", exit: 1, output: []string{
				"#5 [internal] load metadata for docker.io/library/node:20-alpine",
				"ERROR: failed to solve: node:20-alpine: failed to copy: httpReadSeeker: failed open: unexpected status code https://registry-1.docker.io/v2/library/node/manifests/sha256:8e1b4c0d2f36a5e7c9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3c5: 429 Too Many Requests - Server message: toomanyrequests: You have reached your pull rate limit."}},
			'E': {step: "Build image", exit: 1, output: []string{
				"#5 [internal] load metadata for docker.io/library/node:20-alpine",
				"ERROR: failed to solve: node:20-alpine: failed to resolve source metadata for docker.io/library/node:20-alpine: failed to authorize: failed to fetch anonymous token: unexpected status from GET request to https://auth.docker.io/token?scope=repository%3Alibrary%2Fnode%3Apull&service=registry.docker.io: 429 Too Many Requests"}},
			'X': {step: "Build image", exit: 1, output: []string{
				"#9 [build 4/6] RUN npm run build",
				"#9 ERROR: process \"/bin/sh -c npm run build\" did not complete successfully: exit code: 2",
				"ERROR: failed to solve: process \"/bin/sh -c npm run build\" did not complete successfully: exit code: 2"}},
		},
		expect: map[string]any{"trigger_step": "Build image", "window": map[string]int{"runs": 17, "failed": 5},
			"trigger_cluster_count": 4, "clusters_in_trigger_step": 2, "verdict": "flaky", "first_bad_sha": nil,
			"cause_line_contains": "429 Too Many Requests", "pattern": "intermittent"}},
	{name: "url-variant", workflow: "Web", steps: []string{"Install packages"},
		history: "..U....V..W...U.V",
		failures: map[byte]genFailure{
			'U': yarnTimeout("@babel/core/-/core-7.24.0.tgz"),
			'V': yarnTimeout("typescript/-/typescript-5.4.2.tgz"),
			'W': yarnTimeout("@types/node/-/node-20.11.30.tgz"),
		},
		expect: map[string]any{"trigger_step": "Install packages", "window": map[string]int{"runs": 17, "failed": 5},
			"trigger_cluster_count": 5, "clusters_in_trigger_step": 1, "verdict": "flaky", "first_bad_sha": nil,
			"cause_line_contains": "ESOCKETTIMEDOUT", "pattern": "intermittent"}},
	{name: "gate-job", workflow: "CI", steps: goSteps, gate: "all-green",
		history:  "..G....A..G...G",
		failures: map[byte]genFailure{'A': searchFlake},
		repo: map[string]string{".github/workflows/ci.yml": goWorkflow + `  all-green:
    needs: [build]
    if: always()
    runs-on: ubuntu-latest
    steps:
      - name: Check results
        run: test "${{ needs.build.result }}" = success
`},
		expect: map[string]any{"trigger_step": "Unit tests", "window": map[string]int{"runs": 15, "failed": 4},
			"trigger_cluster_count": 4, "clusters_in_trigger_step": 1, "verdict": "flaky", "first_bad_sha": nil,
			"cause_line_contains": "TestSearchSuggestions", "pattern": "intermittent"}},
}

// generateMakefile generates code with a Python script, then formats it.
const generateMakefile = "generate:\n\tpython3 scripts/gen.py\n\tgofmt -w out\n"

var (
	// yamlMissing and yamlTooOld are the generator failing to import its
	// YAML library, in two wordings; diskFull is the same generator
	// running out of disk, another mechanism at the same line.
	yamlMissing = genTraceback(3, "import yaml", "ModuleNotFoundError: No module named 'yaml'")
	yamlTooOld  = genTraceback(3, "from yaml import CSafeLoader",
		"ImportError: cannot import name 'CSafeLoader' from 'yaml' (/usr/lib/python3/dist-packages/yaml/__init__.py)")
	diskFull = genTraceback(9, "out.write(data)", "OSError: [Errno 28] No space left on device: 'out/api.json'")
)

// genTraceback is scripts/gen.py, run by make, dying at line n of the
// statement stmt with the exception err.
func genTraceback(n int, stmt, err string) genFailure {
	return genFailure{step: "Generate code", exit: 2, output: []string{
		"python3 scripts/gen.py",
		"Traceback (most recent call last):",
		fmt.Sprintf(`  File "/home/runner/work/shop/shop/scripts/gen.py", line %d, in <module>`, n),
		"    " + stmt,
		err,
		"make: *** [Makefile:2: generate] Error 1"}}
}

// sameCauseScenarios: wordings the signature keeps apart are one class when
// the causal stage finds the same mechanism and the same producer for them,
// and stay two when the mechanism differs at the same producer.
var sameCauseScenarios = []genScenario{
	codegen("two-wordings-same-producer", yamlTooOld, 5, 1),
	codegen("same-producer-two-mechanisms", diskFull, 3, 2),
}

// codegen is a history of yamlMissing (three runs) and other (two runs)
// in the step "Generate code"; the trigger's class has count runs and the
// step classes classes.
func codegen(name string, other genFailure, count, classes int) genScenario {
	return genScenario{name: name, workflow: "Codegen", steps: []string{"Generate code"},
		history:  "..D...E..D....E..D",
		failures: map[byte]genFailure{'D': yamlMissing, 'E': other},
		repo:     generateRepo,
		expect: map[string]any{"trigger_step": "Generate code", "window": map[string]int{"runs": 18, "failed": 5},
			"trigger_cluster_count": count, "clusters_in_trigger_step": classes, "verdict": "flaky", "pattern": "intermittent",
			"mechanism": "dependency", "producer_file": "Makefile"}}
}

// generateRepo is the repository of the sameCauseScenarios.
var generateRepo = map[string]string{".github/workflows/ci.yml": `name: Codegen
on: [push]
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - name: Generate code
        run: make generate
`, "Makefile": generateMakefile, "scripts/gen.py": "import sys\n\nimport yaml\n"}

// rangeScenarios have a first bad commit that is a range: runs cancelled by
// newer pushes sit between the last green run and the first red one.
var rangeScenarios = []genScenario{
	// four cancelled runs; of the five commits in the range only run 5's
	// changed what the failing step tests (the failed test's package)
	{name: "range-one-commit-touches", workflow: "CI", steps: goSteps,
		history:  "...xxxxAAA",
		failures: map[byte]genFailure{'A': cartRegressionQuiet},
		changes: map[int][]string{3: {"docs/guide.md"}, 4: {"web/app.css", "web/index.html"},
			5: {"cart/discount.go", "docs/discounts.md"}, 6: {"deploy/values.yaml"}, 7: {"README.md"}},
		repo: map[string]string{".github/workflows/ci.yml": goWorkflow, "go.mod": "module github.com/acme/shop\n\ngo 1.22\n", "cart/cart.go": "package cart\n",
			"cart/cart_test.go": "package cart\n"},
		expect: map[string]any{"trigger_step": "Unit tests", "window": map[string]int{"runs": 10, "failed": 7},
			"verdict": "regression", "first_bad_sha": "@A", "cause_line_contains": "TestCartTotal",
			"range_touching": []int{5}}},
	// the same range where no commit changed what the step tests: the
	// range is named and no commit is singled out
	{name: "range-no-commit-touches", workflow: "CI", steps: goSteps,
		history:  "..xxAA",
		failures: map[byte]genFailure{'A': cartRegressionQuiet},
		changes:  map[int][]string{2: {"docs/guide.md"}, 3: {"web/app.css"}, 4: {"deploy/cart/values.yaml"}},
		repo: map[string]string{".github/workflows/ci.yml": goWorkflow, "go.mod": "module github.com/acme/shop\n\ngo 1.22\n", "cart/cart.go": "package cart\n",
			"cart/cart_test.go": "package cart\n"},
		expect: map[string]any{"trigger_step": "Unit tests", "verdict": "regression", "first_bad_sha": "@A",
			"range_touching": []int{}}},
}

// cartRegressionQuiet is cartRegression as go test prints it without -v:
// the test's file and line below its FAIL line.
var cartRegressionQuiet = genFailure{step: "Unit tests", exit: 2, output: []string{
	"--- FAIL: TestCartTotal (0.00s)",
	"    cart_test.go:42: total = 90, want 100 after discount",
	"FAIL",
	"FAIL\tgithub.com/acme/shop/cart\t0.012s",
	"make: *** [Makefile:12: test] Error 1"}}

// goWorkflow is the workflow of goSteps.
const goWorkflow = `name: CI
on: [push, pull_request]
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - name: Download modules
        run: make deps
      - name: Build
        run: make build
      - name: Unit tests
        run: make test
`

// yarnTimeout is yarn giving up on one tarball of the registry.
func yarnTimeout(tarball string) genFailure {
	return genFailure{step: "Install packages", exit: 1, output: []string{
		"[2/4] Fetching packages...",
		"info There appears to be trouble with your network connection. Retrying...",
		`error An unexpected error occurred: "https://registry.yarnpkg.com/` + tarball + `: ESOCKETTIMEDOUT".`,
		"info Visit https://yarnpkg.com/en/docs/cli/install for documentation about this command."}}
}

package diagnosis

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// The synthetic scenarios under testdata/scenarios are rendered from
// genScenarios; TestGeneratedScenariosMatchTheirGenerators checks them and
// UPDATE=1 writes them. Each is described by a history string, oldest run
// first, one code per run (the last run is the trigger):
//
//	.  push run, success           A B C  push run failing with that failure
//	a  failure A, log missing      j      failure A, jobs file missing
//	x  cancelled run               p      pull_request run on the same branch, failing with B
//	P  pull_request run, success   r      re-run whose attempt 2 succeeded
//	R  listed twice: attempt 1 failed (A), attempt 2 succeeded
//	T  attempt 2 failed with A, jobs listing (filter=all) holds attempt 1 failing with B
//	M  matrix: both jobs fail with A    m  matrix: only the second job fails with A
//	q  pull_request run of g.pr failing with A    Q  pull_request run of g.pr, success
//
// A failure's output may hold "{token}", which each run replaces with a
// token of its own (an installation token changes with every job).
type genScenario struct {
	name     string
	workflow string
	steps    []string
	matrix   bool
	history  string
	failures map[byte]genFailure
	expect   map[string]any
	// pr is the pull request that 'q' and 'Q' runs belong to; repo adds
	// files to the repository tree beside the Makefile.
	pr   genPR
	repo map[string]string
	// owners, when set, is aligned with history and says whose each run is:
	// 'm' the default branch (a push; its commit merges pull request
	// 100+i), 't' the trigger's pull request g.pr, '1'-'9' pull request
	// 10+d of a branch of the repository, 'f' and 'g' pull requests from
	// two forks whose branches share the name "patch-1" (GitHub lists no
	// pull request with a fork's runs), 'F' the trigger's pull request from
	// a third fork, also "patch-1". The history code says the outcome.
	owners string
	// gate names an aggregate job that checks the build job's result:
	// code 'G' fails the build job with failure A and the gate after it.
	gate string
	// changes, when set, writes commits.json: run i's commit follows run
	// i-1's and changes the paths changes[i] (or a note of its own).
	changes map[int][]string
}

// genPR is a pull request from a branch of the same repository.
type genPR struct {
	number int
	branch string
}

// genFailure is one failure: the step it happens in, the output printed
// before the runner's exit-code error, and the exit code.
type genFailure struct {
	step   string
	output []string
	exit   int
}

var (
	netReset = genFailure{step: "Download modules", exit: 1, output: []string{
		"go: downloading github.com/acme/lib v1.2.3",
		`go: github.com/acme/lib@v1.2.3: Get "https://proxy.golang.org/github.com/acme/lib/@v/v1.2.3.zip": read tcp 10.1.0.4:51234->142.250.1.1:443: read: connection reset by peer`,
		"make: *** [Makefile:5: deps] Error 1"}}
	netTimeout = genFailure{step: "Download modules", exit: 1, output: []string{
		"go: downloading github.com/acme/other v0.4.0",
		`go: github.com/acme/other@v0.4.0: Get "https://proxy.golang.org/github.com/acme/other/@v/v0.4.0.mod": dial tcp 142.250.1.1:443: i/o timeout`,
		"make: *** [Makefile:5: deps] Error 1"}}
	cartRegression = genFailure{step: "Unit tests", exit: 2, output: []string{
		"=== RUN   TestCartTotal",
		"    cart_test.go:42: TestCartTotal: total = 90, want 100 after discount",
		"--- FAIL: TestCartTotal (0.00s)",
		"FAIL",
		"FAIL\tgithub.com/acme/shop/cart\t0.012s",
		"make: *** [Makefile:12: test] Error 1"}}
	searchFlake = genFailure{step: "Unit tests", exit: 2, output: []string{
		"=== RUN   TestSearchSuggestions",
		"    search_test.go:88: TestSearchSuggestions: got 2 suggestion requests, want 1",
		"--- FAIL: TestSearchSuggestions (0.31s)",
		"FAIL",
		"FAIL\tgithub.com/acme/shop/search\t0.402s",
		"make: *** [Makefile:12: test] Error 1"}}
	compileError = genFailure{step: "Build", exit: 2, output: []string{
		"# github.com/acme/shop/api",
		"api/server.go:17:9: undefined: NewClient",
		"make: *** [Makefile:8: build] Error 1"}}
)

var goSteps = []string{"Download modules", "Build", "Unit tests"}

// dbFailure is a test that fails when its database connection breaks, in
// one of several wordings.
func dbFailure(err string) genFailure {
	return genFailure{step: "Unit tests", exit: 2, output: []string{
		"=== RUN   TestOrders",
		"    db_test.go:31: TestOrders: " + err,
		"--- FAIL: TestOrders (0.50s)",
		"FAIL",
		"FAIL\tgithub.com/acme/shop/orders\t0.612s",
		"make: *** [Makefile:12: test] Error 1"}}
}

var (
	deployRefused = genFailure{step: "Deploy preview", exit: 1, output: []string{
		"deployment.apps/web configured",
		`Error from server: Get "https://10.96.0.1:443/apis/apps/v1/namespaces/preview/deployments/web": dial tcp 10.96.0.1:443: connect: connection refused`,
		"make: *** [Makefile:20: deploy] Error 1"}}
	deployStuck = genFailure{step: "Deploy preview", exit: 1, output: []string{
		"deployment.apps/web configured",
		`Waiting for deployment "web" rollout to finish: 0 of 2 updated replicas are available...`,
		`error: deployment "web" exceeded its progress deadline`,
		"error: timed out waiting for the condition on deployments/web",
		"make: *** [Makefile:20: deploy] Error 1"}}
	heapOOM = genFailure{step: "Build", exit: 134, output: []string{
		"<--- Last few GCs --->",
		"FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
		" 1: 0xb7f7a0 node::Abort() [node]",
		"Aborted (core dumped)"}}
	killedOOM = genFailure{step: "Build", exit: 137, output: []string{
		"vite v5.4.0 building for production...",
		"transforming (1423) src/pages/Checkout.tsx",
		"/home/runner/work/_temp/4f1c2a.sh: line 1:  2345 Killed                  npm run build"}}
)

var genScenarios = []genScenario{
	{name: "regression-unit-test", workflow: "CI", steps: goSteps,
		history:  "....B.....C.......B....AABAAA",
		failures: map[byte]genFailure{'A': cartRegression, 'B': netReset, 'C': searchFlake},
		expect: map[string]any{"trigger_step": "Unit tests", "window": map[string]int{"runs": 29, "failed": 9},
			"trigger_cluster_count": 5, "clusters_in_trigger_step": 2, "verdict": "regression",
			"first_bad_sha": "@A", "cause_line_contains": "TestCartTotal", "pattern": "persistent"}},
	{name: "broken-build", workflow: "Build", steps: goSteps,
		history:  "AAAAAAAA",
		failures: map[byte]genFailure{'A': compileError},
		expect: map[string]any{"trigger_step": "Build", "window": map[string]int{"runs": 8, "failed": 8},
			"trigger_cluster_count": 8, "clusters_in_trigger_step": 1, "verdict": "broken",
			"first_bad_sha": nil, "cause_line_contains": "undefined: NewClient", "pattern": "persistent"}},
	{name: "new-workflow", workflow: "Nightly", steps: goSteps,
		history:  ".AA",
		failures: map[byte]genFailure{'A': compileError},
		expect: map[string]any{"trigger_step": "Build", "window": map[string]int{"runs": 3, "failed": 2},
			"trigger_cluster_count": 2, "clusters_in_trigger_step": 1, "verdict": "new", "first_bad_sha": nil}},
	{name: "missing-log", workflow: "CI", steps: goSteps,
		history:  "...A...a..B.j..A",
		failures: map[byte]genFailure{'A': netReset, 'B': netTimeout},
		expect: map[string]any{"trigger_step": "Download modules", "window": map[string]int{"runs": 16, "failed": 5},
			"trigger_cluster_count": 3, "clusters_in_trigger_step": 1, "verdict": "flaky", "first_bad_sha": nil,
			"cause_line_contains": "connection reset by peer", "pattern": "intermittent"}},
	{name: "rerun-attempt", workflow: "CI", steps: goSteps,
		history:  "..R..r..A..T.A.A",
		failures: map[byte]genFailure{'A': searchFlake, 'B': netReset},
		expect: map[string]any{"trigger_step": "Unit tests", "window": map[string]int{"runs": 16, "failed": 4},
			"trigger_cluster_count": 4, "clusters_in_trigger_step": 1, "verdict": "flaky", "first_bad_sha": nil,
			"cause_line_contains": "TestSearchSuggestions", "pattern": "intermittent"}},
	{name: "pr-same-branch", workflow: "CI", steps: goSteps,
		history:  "..A.p.pP.x.A..p.A",
		failures: map[byte]genFailure{'A': netTimeout, 'B': compileError},
		expect: map[string]any{"trigger_step": "Download modules", "window": map[string]int{"runs": 13, "failed": 4},
			"trigger_cluster_count": 3, "clusters_in_trigger_step": 1, "verdict": "flaky", "first_bad_sha": nil,
			"cause_line_contains": "i/o timeout", "pattern": "intermittent"}},
	{name: "flaky-wordings", workflow: "CI", steps: goSteps,
		history: "..D...E..C...F..D.E",
		failures: map[byte]genFailure{'C': searchFlake, 'D': dbFailure("dial tcp 127.0.0.1:5432: connect: connection refused"),
			'E': dbFailure("read tcp 127.0.0.1:40404->127.0.0.1:5432: read: connection reset by peer"), 'F': dbFailure("unexpected EOF")},
		expect: map[string]any{"trigger_step": "Unit tests", "window": map[string]int{"runs": 19, "failed": 6},
			"trigger_cluster_count": 5, "clusters_in_trigger_step": 2, "verdict": "flaky", "first_bad_sha": nil,
			"cause_line_contains": "TestOrders", "pattern": "intermittent"}},
	{name: "regression-after-flake", workflow: "Preview", steps: []string{"Build", "Deploy preview"},
		history:  "...N....N.....N...YYYY",
		failures: map[byte]genFailure{'N': deployRefused, 'Y': deployStuck},
		expect: map[string]any{"trigger_step": "Deploy preview", "window": map[string]int{"runs": 22, "failed": 7},
			"trigger_cluster_count": 4, "clusters_in_trigger_step": 2, "verdict": "regression", "first_bad_sha": "@Y",
			"pattern": "persistent"}},
	{name: "flaky-oom", workflow: "Web", steps: []string{"Build"},
		history:  "..O..K...X...O..K",
		failures: map[byte]genFailure{'O': heapOOM, 'K': killedOOM, 'X': compileError},
		expect: map[string]any{"trigger_step": "Build", "window": map[string]int{"runs": 17, "failed": 5},
			"trigger_cluster_count": 4, "clusters_in_trigger_step": 2, "verdict": "flaky", "first_bad_sha": nil,
			"pattern": "intermittent"}},
	{name: "matrix", workflow: "Test", steps: goSteps, matrix: true,
		history:  "..M...M..m..M",
		failures: map[byte]genFailure{'A': searchFlake},
		expect: map[string]any{"trigger_step": "Unit tests", "window": map[string]int{"runs": 13, "failed": 4},
			"trigger_cluster_count": 4, "clusters_in_trigger_step": 1, "verdict": "flaky", "first_bad_sha": nil,
			"cause_line_contains": "TestSearchSuggestions", "pattern": "intermittent"}},
}

// firstBadCode is the failure code named by the expected first_bad_sha
// ("@Y": the first run with code Y).
func (g genScenario) firstBadCode() byte {
	if s, ok := g.expect["first_bad_sha"].(string); ok && len(s) == 2 && s[0] == '@' {
		return s[1]
	}
	return 0
}

func (g genScenario) sha(i int) string {
	sum := sha1.Sum([]byte(fmt.Sprintf("%s/%d", g.name, i)))
	return hex.EncodeToString(sum[:])
}

// files renders the whole scenario directory.
func (g genScenario) files() map[string][]byte {
	files := map[string][]byte{}
	base := time.Date(2026, 9, 1, 8, 0, 0, 0, time.UTC)
	var runs []any // newest first
	firstA := ""
	for i := 0; i < len(g.history); i++ {
		code := g.history[i]
		id := int64(5000000 + i)
		at := base.Add(time.Duration(i) * 7 * time.Hour)
		if firstA == "" && code == g.firstBadCode() {
			firstA = g.sha(i)
		}
		entries := g.runEntries(i, id, code, at)
		for _, e := range entries {
			runs = append([]any{e}, runs...)
		}
		if jobs := g.jobs(i, id, code, at, files); jobs != nil && !strings.ContainsRune("j.PQr", rune(code)) {
			files[fmt.Sprintf("jobs/%d.json", id)] = mustJSON(map[string]any{"total_count": len(jobs), "jobs": jobs})
		}
	}
	files["runs.json"] = mustJSON(map[string]any{"total_count": len(runs), "workflow_runs": runs})
	files["scenario.json"] = mustJSON(map[string]any{
		"schema": "polylane.scenario/v1",
		"repository": map[string]any{"id": 99, "name": "shop", "full_name": "acme/shop", "owner": map[string]any{"login": "acme"},
			"default_branch": "main", "html_url": "https://github.com/acme/shop", "private": false},
		"installation_id": 7,
		"workflow":        map[string]any{"id": 42, "name": g.workflow, "path": ".github/workflows/ci.yml"},
		"trigger_run_id":  5000000 + len(g.history) - 1,
	})
	expect := map[string]any{}
	for k, v := range g.expect {
		if str, ok := v.(string); ok && strings.HasPrefix(str, "@") {
			v = firstA
		}
		if runs, ok := v.([]int); ok { // commits named by their run
			shas := []string{}
			for _, i := range runs {
				shas = append(shas, g.sha(i))
			}
			v = shas
		}
		expect[k] = v
	}
	if g.changes != nil {
		files["commits.json"] = g.commits()
	}
	files["expect.json"] = mustJSON(expect)
	files["repo/Makefile"] = []byte("deps:\n\tgo mod download\n\nbuild:\n\tgo build ./...\n\ntest:\n\tgo test ./...\n")
	for name, content := range g.repo {
		files["repo/"+name] = []byte(content)
	}
	return files
}

// commits renders commits.json: one commit per run, each after the one
// before, changing the paths g.changes names.
func (g genScenario) commits() []byte {
	var commits []any
	for i := range len(g.history) {
		c := map[string]any{"sha": g.sha(i), "message": fmt.Sprintf("change %d", i),
			"html_url": "https://github.com/acme/shop/commit/" + g.sha(i), "files": g.changes[i]}
		if g.changes[i] == nil {
			c["files"] = []string{fmt.Sprintf("notes/change-%d.md", i)}
		}
		if i > 0 {
			c["parents"] = []string{g.sha(i - 1)}
		}
		commits = append(commits, c)
	}
	return mustJSON(map[string]any{"commits": commits})
}

// runEntries returns the runs.json entries of one run (two for code R).
func (g genScenario) runEntries(i int, id int64, code byte, at time.Time) []map[string]any {
	event, conclusion, attempt, branch := "push", "failure", 1, "main"
	prs := []any{}
	switch code {
	case '.':
		conclusion = "success"
	case 'P':
		event, conclusion = "pull_request", "success"
	case 'p':
		event = "pull_request"
	case 'x':
		conclusion = "cancelled"
	case 'r':
		conclusion, attempt = "success", 2
	case 'T':
		attempt = 2
	case 'q', 'Q':
		event, branch = "pull_request", g.pr.branch
		if code == 'Q' {
			conclusion = "success"
		}
		repo := map[string]any{"id": 99, "name": "shop"}
		prs = append(prs, map[string]any{"id": 880000 + g.pr.number, "number": g.pr.number,
			"head": map[string]any{"ref": g.pr.branch, "sha": g.sha(i), "repo": repo},
			"base": map[string]any{"ref": "main", "sha": g.sha(0), "repo": repo}})
	}
	entry := func(conclusion string, attempt int) map[string]any {
		return map[string]any{
			"id": id, "name": g.workflow, "run_number": 100 + i, "run_attempt": attempt, "workflow_id": 42,
			"path": ".github/workflows/ci.yml", "head_sha": g.sha(i), "head_branch": branch, "event": event,
			"status": "completed", "conclusion": conclusion, "html_url": fmt.Sprintf("https://github.com/acme/shop/actions/runs/%d", id),
			"created_at": at.Format(time.RFC3339), "updated_at": at.Add(10 * time.Minute).Format(time.RFC3339),
			"run_started_at": at.Format(time.RFC3339), "pull_requests": prs,
			"head_commit": map[string]any{"id": g.sha(i), "message": fmt.Sprintf("change %d", i)},
		}
	}
	if code == 'R' {
		return []map[string]any{entry("failure", 1), entry("success", 2)}
	}
	e := entry(conclusion, attempt)
	if g.owners != "" {
		g.own(e, i)
	}
	return []map[string]any{e}
}

// own makes run i the run of its owner (see genScenario.owners).
func (g genScenario) own(e map[string]any, i int) {
	owner := g.owners[i]
	baseSHA := g.sha(0)
	for j := i - 1; j >= 0; j-- {
		if g.owners[j] == 'm' {
			baseSHA = g.sha(j)
			break
		}
	}
	repo := map[string]any{"id": 99, "name": "shop"}
	pr := func(number int, branch string) {
		e["event"], e["head_branch"] = "pull_request", branch
		e["pull_requests"] = []any{map[string]any{"id": 880000 + number, "number": number,
			"head": map[string]any{"ref": branch, "sha": g.sha(i), "repo": repo},
			"base": map[string]any{"ref": "main", "sha": baseSHA, "repo": repo}}}
		e["head_repository"] = map[string]any{"id": 99, "full_name": "acme/shop"}
	}
	fork := func(id int, login string) {
		e["event"], e["head_branch"], e["pull_requests"] = "pull_request", "patch-1", []any{}
		e["head_repository"] = map[string]any{"id": id, "full_name": login + "/shop"}
	}
	switch {
	case owner == 'm':
		e["head_commit"] = map[string]any{"id": g.sha(i), "message": fmt.Sprintf("Merge pull request #%d from acme/change-%d\n\nchange %d", 100+i, i, i)}
		e["head_repository"] = map[string]any{"id": 99, "full_name": "acme/shop"}
	case owner == 't':
		pr(g.pr.number, g.pr.branch)
	case owner >= '1' && owner <= '9':
		n := 10 + int(owner-'0')
		pr(n, fmt.Sprintf("feature-%d", n))
	case owner == 'f':
		fork(501, "ana")
	case owner == 'g':
		fork(502, "bo")
	case owner == 'F':
		fork(503, "cy")
	}
}

// jobs returns the jobs of a failed run and writes the logs of failed jobs.
func (g genScenario) jobs(i int, id int64, code byte, at time.Time, files map[string][]byte) []any {
	names := []string{"build"}
	if g.matrix {
		names = []string{"test (1.22)", "test (1.23)"}
	}
	var jobs []any
	add := func(n int, name string, attempt int, f *genFailure, cancelled bool) {
		jobID := id*10 + int64(n)
		jobs = append(jobs, g.job(jobID, id, attempt, name, at, f, cancelled))
		if f != nil && code != 'a' {
			files[fmt.Sprintf("logs/%d.txt", jobID)] = g.log(i, at, f)
		}
	}
	switch code {
	case 'T':
		b := g.failures['B']
		a := g.failures['A']
		add(0, names[0], 1, &b, false)
		add(1, names[0], 2, &a, false)
	case 'x':
		add(0, names[0], 1, nil, true)
	case 'M', 'm':
		a := g.failures['A']
		for n, name := range names {
			if code == 'M' || n == 1 {
				add(n, name, 1, &a, false)
			} else {
				add(n, name, 1, nil, false)
			}
		}
	case 'p':
		b := g.failures['B']
		add(0, names[0], 1, &b, false)
	case 'G':
		a := g.failures['A']
		add(0, names[0], 1, &a, false)
		gateFailure := genFailure{step: "Check results", exit: 1, output: []string{`test "failure" = success`}}
		jobID := id*10 + 1
		gjob := g.job(jobID, id, 1, g.gate, at.Add(6*time.Minute), &gateFailure, false)
		steps := []any{}
		for _, st := range gjob["steps"].([]any) {
			m := st.(map[string]any)
			if n := m["name"].(string); n == "Set up job" || n == "Check results" || n == "Complete job" {
				m["number"] = len(steps) + 1
				steps = append(steps, m)
			}
		}
		gjob["steps"] = steps
		jobs = append(jobs, gjob)
		files[fmt.Sprintf("logs/%d.txt", jobID)] = g.gateLog(at.Add(6 * time.Minute))
	default:
		a, ok := g.failures[code]
		if code == 'a' || code == 'j' || code == 'R' || code == 'q' {
			a, ok = g.failures['A'], true
		}
		if !ok {
			return nil
		}
		add(0, names[0], 1, &a, false)
	}
	return jobs
}

// job renders one job of the jobs API: steps before the failing one
// succeeded, the failing one failed, the later ones were skipped.
func (g genScenario) job(jobID, runID int64, attempt int, name string, at time.Time, f *genFailure, cancelled bool) map[string]any {
	all := append(append([]string{"Set up job", "Run actions/checkout@v4"}, g.steps...), "Post Run actions/checkout@v4", "Complete job")
	state := "success"
	var steps []any
	for n, s := range all {
		c := state
		switch {
		case cancelled && n == 2:
			c, state = "cancelled", "skipped"
		case f != nil && s == f.step:
			c, state = "failure", "skipped"
		case strings.HasPrefix(s, "Post ") || s == "Complete job":
			c = "success"
		}
		steps = append(steps, map[string]any{"name": s, "status": "completed", "conclusion": c, "number": n + 1,
			"started_at": at.Format(time.RFC3339), "completed_at": at.Add(time.Minute).Format(time.RFC3339)})
	}
	conclusion := "success"
	switch {
	case cancelled:
		conclusion = "cancelled"
	case f != nil:
		conclusion = "failure"
	}
	return map[string]any{"id": jobID, "run_id": runID, "run_attempt": attempt, "name": name, "status": "completed",
		"conclusion": conclusion, "started_at": at.Format(time.RFC3339), "completed_at": at.Add(5 * time.Minute).Format(time.RFC3339),
		"steps": steps}
}

// newLog starts a raw job log at time at: its buffer, and a function that
// appends one timestamped line.
func newLog(at time.Time) (*strings.Builder, func(string)) {
	b := &strings.Builder{}
	t := at
	line := func(s string) {
		t = t.Add(137 * time.Millisecond)
		fmt.Fprintf(b, "%s %s\n", t.Format("2006-01-02T15:04:05.0000000Z"), s)
	}
	b.WriteString("\ufeff")
	line("Current runner version: '2.320.0'")
	return b, line
}

// gateLog is the log of a gate job whose only step compares the needed
// job's result with success.
func (g genScenario) gateLog(at time.Time) []byte {
	b, line := newLog(at)
	line(`##[group]Run test "failure" = success`)
	line(`\x1b[36;1mtest "failure" = success\x1b[0m`)
	line("shell: /usr/bin/bash -e {0}")
	line("##[endgroup]")
	line("##[error]Process completed with exit code 1.")
	line("Cleaning up orphan processes")
	return []byte(b.String())
}

// commands are the run: lines of the workflow steps.
var commands = map[string]string{"Download modules": "make deps", "Build": "make build", "Unit tests": "make test", "Deploy preview": "make deploy",
	"Install dependencies": "composer install --no-interaction --prefer-dist --no-progress", "PHPUnit": "vendor/bin/phpunit",
	"Build image": "docker build -t shop .", "Install packages": "yarn install --frozen-lockfile", "Generate code": "make generate"}

// log renders the raw GitHub Actions job log of run i that fails in f.step.
func (g genScenario) log(i int, at time.Time, f *genFailure) []byte {
	b, line := newLog(at)
	line("##[group]Runner Image")
	line("  Image: ubuntu-24.04")
	line("##[endgroup]")
	line("##[group]Run actions/checkout@v4")
	line("with:")
	line("  repository: acme/shop")
	line("##[endgroup]")
	line("Syncing repository: acme/shop")
	for _, s := range g.steps {
		line("##[group]Run " + commands[s])
		line("\x1b[36;1m" + commands[s] + "\x1b[0m")
		line("shell: /usr/bin/bash -e {0}")
		line("##[endgroup]")
		if s != f.step {
			line(commands[s] + ": ok")
			continue
		}
		for _, o := range f.output {
			line(strings.ReplaceAll(o, "{token}", g.token(i)))
		}
		line(fmt.Sprintf("##[error]Process completed with exit code %d.", f.exit))
		break
	}
	line("Post job cleanup.")
	line("Cleaning up orphan processes")
	return []byte(b.String())
}

func mustJSON(v any) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

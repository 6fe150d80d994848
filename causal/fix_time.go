package causal

import (
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/polylane/polylane/analysis/history"
	"github.com/polylane/polylane/causal/harness"
	"github.com/polylane/polylane/causal/patch"
)

// timeoutFlag finds a command's timeout flag: the word as written and its
// value.
func timeoutFlag(n *harness.Node) (word, value string) {
	if n == nil || n.Cmd == nil {
		return "", ""
	}
	w := n.Cmd.Words
	for i, a := range w {
		switch {
		case strings.HasPrefix(a, "--timeout="):
			return a, strings.TrimPrefix(a, "--timeout=")
		case a == "--timeout" && i+1 < len(w):
			return a + " " + w[i+1], w[i+1]
		// docker compose up --wait's bound, in seconds
		case strings.HasPrefix(a, "--wait-timeout="):
			return a, strings.TrimPrefix(a, "--wait-timeout=")
		case a == "--wait-timeout" && i+1 < len(w):
			return a + " " + w[i+1], w[i+1]
		}
	}
	return "", ""
}

// timeoutValue returns the emitter's timeout as written, for sentences.
func timeoutValue(n *harness.Node) string {
	_, v := timeoutFlag(n)
	return v
}

// raised returns a longer bound for a timeout that is too short for a cold
// CI cluster, or "" when it is already generous.
func raised(v string) string {
	d, err := time.ParseDuration(v)
	seconds := false
	if err != nil {
		s, err2 := strconv.Atoi(v)
		if err2 != nil {
			return ""
		}
		// a bound written in seconds stays in seconds: some flags
		// (docker compose's --wait-timeout) take nothing else
		d, seconds = time.Duration(s)*time.Second, true
	}
	to := time.Duration(0)
	switch {
	case d < 5*time.Minute:
		to = 5 * time.Minute
	case d < 10*time.Minute:
		to = 10 * time.Minute
	default:
		return ""
	}
	if seconds {
		return strconv.Itoa(int(to / time.Second))
	}
	return strings.TrimSuffix(to.String(), "0s")
}

// doubled returns twice a Go duration, capped; "" when it is already at
// the cap or unreadable.
func doubled(v string, limit time.Duration) string {
	d, err := time.ParseDuration(v)
	if err != nil || d >= limit {
		return ""
	}
	d = min(2*d, limit)
	if d%time.Minute == 0 {
		return strconv.Itoa(int(d/time.Minute)) + "m"
	}
	return d.String()
}

// helmHookCases is the corpus case whose miss led to the hook timeout.
var helmHookCases = []string{"envoyproxy/gateway"}

// helmHookTimeout matches helm giving up on a chart hook.
var helmHookTimeout = regexp.MustCompile(`failed (pre|post)-(install|upgrade|delete|rollback): timed out`)

// fixRaiseTimeout gives a wait a realistic bound.
func fixRaiseTimeout(x *fixContext) (*fixPlan, error) {
	n := x.fixTarget()
	if n == nil {
		return nil, noFix("the command that timed out was not located")
	}
	site, err := x.siteOf(n)
	if err != nil {
		return nil, err
	}
	line, end := editLines(n, site)
	word, value := timeoutFlag(n)
	var out []byte
	var from, to string
	switch {
	case word != "":
		to = raised(value)
		if to == "" {
			return nil, noFix("the wait already allows %s; a longer bound would only hide a workload that never becomes ready", value)
		}
		from = value
		if _, err := strconv.Atoi(value); err == nil {
			from = value + " s"
		}
		flag, _, _ := strings.Cut(strings.Fields(word)[0], "=") // --timeout, --wait-timeout
		repl := flag + "=" + to
		if !strings.Contains(word, "=") {
			repl = flag + " " + to
		}
		out, err = patch.ReplaceWord(site.Content, line, end, word, repl)
	case subcommand(n) == "wait" && clusterClient(n):
		from, to = "30s (kubectl's default)", "5m"
		out, err = patch.AddArgs(site.Content, line, end, "wait", []string{"--timeout=5m"})
	case n.Tool() == "helm" && (strings.Contains(n.Text, "--wait") || (helmHookTimeout.MatchString(x.cause.Text) && !x.leftOut(helmHookCases))):
		// --timeout bounds each operation helm waits on, hook Jobs
		// included, with or without --wait (helm install --help).
		from, to = "5m (helm's default)", "10m"
		out, err = patch.AddArgs(site.Content, line, end, subcommandWord(n), []string{"--timeout", "10m"})
	default:
		return nil, noFix("`%s` has no timeout Polylane can raise", commandName(n))
	}
	if err != nil {
		return nil, noFix("%v", err)
	}
	rationale := fmt.Sprintf("`%s` gave up after %s%s. On a shared CI runner, pulling images and starting pods on a cold cluster regularly takes longer; the patch raises the bound to %s. The wait still fails if the workload never becomes ready, so a crash is not hidden.",
		commandName(n), from, cite(append(x.ids["cause"], x.ids["emitter"]...)...), to)
	return &fixPlan{Title: "Give " + commandName(n) + " a realistic timeout", Rationale: rationale, Edits: []patch.FileEdit{edit(site, out)}}, nil
}

// fixGoTestTimeout gives go test a longer -timeout (its default is 10m).
func fixGoTestTimeout(x *fixContext) (*fixPlan, error) {
	n := x.fixTarget()
	if n == nil || n.Tool() != "go" || subcommand(n) != "test" {
		return nil, noFix("the command that timed out is not go test")
	}
	if x.productBug() {
		return nil, noFix("the goroutine dump points at a deadlock or crash in the code under test")
	}
	site, err := x.siteOf(n)
	if err != nil {
		return nil, err
	}
	line, end := editLines(n, site)
	from, to := "10m (go test's default)", "20m"
	var out []byte
	if word, value := goTimeoutFlag(n); word != "" {
		to = doubled(value, 30*time.Minute)
		if to == "" {
			return nil, noFix("go test already allows %s; a longer bound would hide a hang", value)
		}
		from = value
		out, err = patch.ReplaceWord(site.Content, line, end, word, strings.Replace(word, value, to, 1))
	} else {
		out, err = patch.AddArgs(site.Content, line, end, subcommandWord(n), []string{"-timeout", to})
	}
	if err != nil {
		return nil, noFix("%v", err)
	}
	rationale := fmt.Sprintf("go test aborted the run after %s%s. The patch raises the bound to %s; a test that really hangs still fails, with its goroutine dump.", from, cite(x.ids["cause"]...), to)
	return &fixPlan{Title: "Give go test a longer timeout", Rationale: rationale, Edits: []patch.FileEdit{edit(site, out)}}, nil
}

// goTimeoutFlag finds go test's -timeout flag as written and its value.
func goTimeoutFlag(n *harness.Node) (string, string) {
	w := n.Cmd.Words
	for i, a := range w {
		switch {
		case strings.HasPrefix(a, "-timeout=") || strings.HasPrefix(a, "--timeout="):
			return a, a[strings.IndexByte(a, '=')+1:]
		case (a == "-timeout" || a == "--timeout") && i+1 < len(w):
			return a + " " + w[i+1], w[i+1]
		}
	}
	return "", ""
}

// fixRaiseJobTimeout raises a job or step time limit the run reached.
func fixRaiseJobTimeout(x *fixContext) (*fixPlan, error) {
	if x.wf == nil || x.job == nil {
		return nil, noFix("the failing job was not located")
	}
	v, what := x.timeLimit()
	limit := v.Int()
	if limit <= 0 {
		return nil, noFix("no explicit time limit is set, so the run hit GitHub's default; a hang needs diagnosis, not a longer limit")
	}
	if !x.ranToLimit(limit) {
		return nil, noFix("the job ended well before its %d-minute limit, so the cancellation did not come from the limit", limit)
	}
	next := (limit*3/2 + 4) / 5 * 5
	if next > 180 {
		return nil, noFix("the limit is already %d minutes; more time would hide a hang", limit)
	}
	content, err := x.repo.ReadFile(x.wf.Path)
	if err != nil {
		return nil, noFix("cannot read %s", x.wf.Path)
	}
	out, err := patch.SetKeyValue(content, v.Line, "timeout-minutes", strconv.Itoa(next))
	if err != nil {
		return nil, noFix("%v", err)
	}
	rationale := fmt.Sprintf("The %s ran into its %d-minute limit%s. The patch raises the limit to %d minutes; it stays bounded, so a real hang still ends the run.",
		what, limit, cite(x.ids["cause"]...), next)
	return &fixPlan{Title: fmt.Sprintf("Raise the time limit of the %s", what), Rationale: rationale, Edits: []patch.FileEdit{{Path: x.wf.Path, Old: content, New: out}}}, nil
}

// timeLimit returns the explicit time limit that applies to the failing
// step (its own, else its job's) and names its owner.
func (x *facts) timeLimit() (harness.Value, string) {
	if x.step != nil && x.step.TimeoutMinutes.Int() > 0 {
		return x.step.TimeoutMinutes, fmt.Sprintf("step %q", x.step.DisplayName())
	}
	if x.job != nil && x.job.TimeoutMinutes.Int() > 0 {
		return x.job.TimeoutMinutes, "job " + x.job.ID
	}
	return harness.Value{}, ""
}

// ranToLimit reports whether the job ran at least limit minutes (less one),
// when its times are known; unknown times count as reaching it.
func (x *facts) ranToLimit(limit int) bool {
	j := x.in.Job
	if j.StartedAt.IsZero() || j.CompletedAt.IsZero() {
		return true
	}
	return j.CompletedAt.Sub(j.StartedAt) >= time.Duration(limit-1)*time.Minute
}

var (
	rerunFailures = regexp.MustCompile(`pytest-rerunfailures`)
	productBug    = regexp.MustCompile(`DATA RACE|race detected|concurrent map|^panic: |nil pointer dereference|deadlock!|SIGSEGV`)
	testTimeout   = regexp.MustCompile(`^panic: test timed out`)
)

// fixTestRerun reruns failed tests with a bound when the runner supports it.
func fixTestRerun(x *fixContext) (*fixPlan, error) {
	if x.in.Verdict.Kind != history.Flaky && x.in.Verdict.Kind != history.New {
		return nil, noFix("the test fails consistently, so a rerun would only hide it")
	}
	n := x.fixTarget()
	if n == nil {
		return nil, noFix("the test command was not located")
	}
	if x.productBug() {
		return nil, noFix("a data race or crash is a bug in the code under test; rerunning would hide it")
	}
	if !x.waitRanOut() {
		return nil, noFix("the test failed on a value it asserted, not on a wait that ran out: whether the test or the code under test behaves nondeterministically, the fix belongs to the test's author, and a rerun would only hide it")
	}
	var after string
	var args []string
	switch n.Tool() {
	case "ginkgo":
		after, args = programWord(n), []string{"--flake-attempts=2"}
	case "mvn", "mvnw":
		after, args = programWord(n), []string{"-D" + x.mavenTestPlugin() + ".rerunFailingTestsCount=2"}
	case "pytest":
		if !x.repoMentions(rerunFailures, "requirements", "pyproject.toml", "setup.cfg", "tox.ini") {
			return nil, noFix("pytest-rerunfailures is not installed, and the flaky test itself needs the fix")
		}
		after, args = programWord(n), []string{"--reruns", "2", "--reruns-delay", "5"}
	case "playwright":
		after, args = "test", []string{"--retries=2"}
	case "cypress":
		after, args = "run", []string{"--config", "retries=2"}
	case "gotestsum":
		return gotestsumPlan(x.facts, n)
	default:
		return nil, noFix("`%s` has no bounded rerun of only the failed tests; the flaky test itself needs the fix", commandName(n))
	}
	site, out, err := x.addArgs(n, after, args)
	if err != nil {
		return nil, err
	}
	return rerunPlan(x.facts, n, site, out), nil
}

// mavenPlugin names the Maven plugin that runs tests in its log header
// ("[INFO] --- maven-failsafe-plugin:3.1.2:integration-test (default) @ it ---")
// and in the "Failed to execute goal" line.
var mavenPlugin = regexp.MustCompile(`(?:^\[INFO\] --- |Failed to execute goal \S*:)maven-(surefire|failsafe)-plugin:`)

// mavenTestPlugin is the prefix of the rerun property of the Maven plugin
// that ran the failing test: the one whose header comes last before the cause
// line, else the one named by the failed goal, else surefire. Failsafe, which
// runs integration tests, reads failsafe.rerunFailingTestsCount and ignores
// surefire's property (maven.apache.org/surefire/maven-failsafe-plugin/examples/rerun-failing-tests.html).
func (x *facts) mavenTestPlugin() string {
	if x.log == nil {
		return "surefire"
	}
	end := x.log.Cause
	if end < 0 || end > len(x.log.Lines) {
		end = len(x.log.Lines)
	}
	for i := end - 1; i >= 0; i-- {
		if m := mavenPlugin.FindStringSubmatch(x.log.Lines[i].Text); m != nil {
			return m[1]
		}
	}
	for _, l := range append(x.log.Lines[end:], x.log.Tail...) {
		if m := mavenPlugin.FindStringSubmatch(l.Text); m != nil {
			return m[1]
		}
	}
	return "surefire"
}

// rerunPlan is the plan of a bounded rerun of failed tests.
func rerunPlan(x *facts, n *harness.Node, site patch.Site, out []byte) *fixPlan {
	rationale := fmt.Sprintf("The failing test comes and goes across the window%s. The patch lets `%s` rerun only the tests that failed, at most twice, and the runner reports them as flaky, so the flake stays visible while it no longer fails the run. The test itself still deserves a fix.",
		cite(append(x.ids["cause"], x.ids["runs"]...)...), commandName(n))
	return &fixPlan{Title: "Rerun failed tests at most twice", Rationale: rationale, Edits: []patch.FileEdit{edit(site, out)}}
}

// gotestsumPlan reruns failed tests with gotestsum's --rerun-fails.
func gotestsumPlan(x *facts, n *harness.Node) (*fixPlan, error) {
	site, err := x.siteOf(n)
	if err != nil {
		return nil, err
	}
	line, end := editLines(n, site)
	out, err := gotestsumRerun(n, site, line, end)
	if err != nil {
		return nil, err
	}
	return rerunPlan(x, n, site, out), nil
}

// productBug reports whether the failing step shows a data race, a panic or
// a crash of the code under test.
func (x *facts) productBug() bool {
	bug := func(s string) bool { return productBug.MatchString(s) && !testTimeout.MatchString(s) }
	for _, t := range x.texts {
		if bug(t.Line.Text) {
			return true
		}
	}
	for _, l := range x.log.Lines {
		if bug(l.Text) {
			return true
		}
	}
	return false
}

// waitFailure is a test failing because a wait or deadline ran out, in the
// words of Go tests, Gomega, Awaitility, Jest, Mocha, Playwright and
// Cypress: the timing and asynchronous-wait flakes (Luo et al., FSE 2014,
// ≈45% of classified flaky-test fixes) for which a bounded rerun of the
// failed tests is the CI-side remedy (docs/mechanisms.md, Tier A #1). A
// failed assertion on a value ("Expecting empty but was", "expected 3, got
// 2") is none: the test or the code under test computed something else, and
// its maintainers fix the test (kroxylicious/kroxylicious#459 was fixed in
// the assertion, not with a rerun).
var waitFailure = regexp.MustCompile(`(?i)\btimed out\b|\btime ?out\b|Timeout(?:Exception|Error)\b|deadline exceeded|\bwithin \d+(?:\.\d+)?\s*(?:ms|s|sec|secs|seconds?|milliseconds?|m|min|minutes?)\b|exceeded timeout|timeout of \d+|did not (?:fire|finish|complete|become|appear|happen)`)

// waitRanOut reports whether the failed test's own lines (the cause and the
// lines just below it, where runners print the failure's message) say a
// wait or deadline ran out.
func (x *facts) waitRanOut() bool {
	for _, t := range x.texts {
		if t.Primary && waitFailure.MatchString(t.Line.Text) {
			return true
		}
	}
	if x.log == nil || x.log.Cause < 0 {
		return false
	}
	for i := max(0, x.log.Cause-2); i < len(x.log.Lines) && i <= x.log.Cause+8; i++ {
		if waitFailure.MatchString(x.log.Lines[i].Text) {
			return true
		}
	}
	return false
}

// repoMentions reports whether a top-level file whose name starts with one
// of prefixes contains re.
func (x *facts) repoMentions(re *regexp.Regexp, prefixes ...string) bool {
	entries, err := fs.ReadDir(x.in.Repo, ".")
	if err != nil {
		return false
	}
	for _, e := range entries {
		for _, p := range prefixes {
			if e.IsDir() || !strings.HasPrefix(e.Name(), p) {
				continue
			}
			if data, err := x.repo.ReadFile(e.Name()); err == nil && re.Match(data) {
				return true
			}
		}
	}
	return false
}

package causal

import (
	"fmt"
	"strings"

	"github.com/polylane/polylane/causal/harness"
	"github.com/polylane/polylane/causal/patch"
)

// native is a tool's own retry setting: the subcommands it applies to and the
// arguments to add after the program word, or the environment assignment to
// put before the command.
type native struct {
	subcommands []string
	args        []string
	env         string
	what        string
	// bare is set when the program alone (no subcommand) also fetches, as
	// `yarn` does.
	bare bool
	// cases are the corpus cases whose miss led to the entry, left out
	// when the benchmark scores them.
	cases []string
}

// nativeRetries lists the tools whose own retry settings cover a dropped
// connection or a 5xx from a registry.
var nativeRetries = map[string]native{
	"npm":     {subcommands: []string{"ci", "install", "i"}, args: []string{"--fetch-retries=5", "--fetch-retry-mintimeout=20000", "--fetch-retry-maxtimeout=120000"}, what: "npm's fetch retries (5 tries, backing off from 20 s to 120 s)"},
	"pip":     {subcommands: []string{"install", "download"}, args: []string{"--retries", "10", "--timeout", "60"}, what: "pip's own retries (10 tries, 60 s per read)"},
	"pip3":    {subcommands: []string{"install", "download"}, args: []string{"--retries", "10", "--timeout", "60"}, what: "pip's own retries (10 tries, 60 s per read)"},
	"curl":    {args: []string{"--retry", "5", "--retry-delay", "2", "--retry-connrefused"}, what: "curl's own retries (5 tries, 2 s apart, refused connections included)"},
	"wget":    {args: []string{"--tries=5", "--waitretry=5", "--retry-connrefused"}, what: "wget's own retries (5 tries)"},
	"mvn":     {args: []string{"-Dmaven.wagon.http.retryHandler.count=5", "-Dmaven.wagon.httpconnectionManager.ttlSeconds=25"}, what: "Maven's HTTP retry handler (5 retries, pooled connections recycled after 25 s)"},
	"mvnw":    {args: []string{"-Dmaven.wagon.http.retryHandler.count=5", "-Dmaven.wagon.httpconnectionManager.ttlSeconds=25"}, what: "Maven's HTTP retry handler (5 retries, pooled connections recycled after 25 s)"},
	"apt-get": {args: []string{"-o", "Acquire::Retries=5"}, what: "apt's own retries (Acquire::Retries=5)"},
	"apt":     {args: []string{"-o", "Acquire::Retries=5"}, what: "apt's own retries (Acquire::Retries=5)"},
	// yarn (classic) gives up on a slow download after 30 s; maintainers
	// raise its network timeout (vercel/vercel#5840,
	// microsoft/azuredatastudio#13347, pepakriz/gitlab-merger-bot#77).
	"yarn": {subcommands: []string{"install", "add"}, bare: true, args: []string{"--network-timeout", "600000"},
		what: "a longer network timeout for yarn's downloads (600 s instead of 30 s)", cases: []string{"kintone/js-sdk"}},
	// cargo retries a spurious network error twice by default; CI raises
	// it (wasmCloud/wasmCloud#5265, vectordotdev/vector#3253).
	"cargo": {subcommands: []string{"build", "fetch", "test", "check", "clippy", "install", "run", "update", "doc", "generate-lockfile"},
		env: "CARGO_NET_RETRY=10", what: "cargo's own retries of spurious network errors (CARGO_NET_RETRY=10 instead of 2)",
		cases: []string{"rocky-data/rocky", "TUM-Dev/NavigaTUM"}},
	// uv stops a download that stalls for 30 s and says to raise
	// UV_HTTP_TIMEOUT (astral-sh/uv#1912, invoke-ai/launcher#72).
	"uv": {subcommands: []string{"pip", "sync", "lock", "add", "run", "tool", "venv", "python"},
		env: "UV_HTTP_TIMEOUT=300", what: "a longer read timeout for uv's downloads (UV_HTTP_TIMEOUT=300 instead of 30 s)"},
	// GOPROXY with "|" falls back to the origin on any proxy error, where
	// "," falls back only on 404 and 410 (stackrox/stackrox#164,
	// kubevirt/project-infra#1885).
	"go": {subcommands: []string{"mod", "get", "install", "build", "test", "vet", "generate", "run", "list"},
		env: "GOPROXY='https://proxy.golang.org|direct'", what: "a fallback from the module proxy to the origin on any proxy error (GOPROXY=https://proxy.golang.org|direct)"},
}

// idempotent reports whether running a command twice is safe.
func idempotent(n *harness.Node) bool {
	text := " " + n.Text + " "
	sc := subcommand(n)
	if sc == "audit" || strings.HasSuffix(n.Tool(), "-audit") {
		// an auditor only reads (pip-audit, npm audit, cargo audit),
		// unless it is asked to fix what it finds
		return !strings.Contains(text, " fix ") && !strings.Contains(text, " --fix")
	}
	switch n.Tool() {
	case "kubectl", "oc", "karmadactl":
		switch sc {
		case "create":
			return strings.Contains(text, "--dry-run")
		case "apply", "get", "wait", "rollout", "patch", "label", "annotate", "delete", "scale", "set", "join", "describe", "logs":
			return true
		}
		return false
	case "helm":
		return sc == "repo" || sc == "dependency" || sc == "pull" || sc == "upgrade" || sc == "template" || sc == "fetch" || sc == "registry"
	case "docker", "podman":
		return sc == "pull" || sc == "build" || sc == "login" || sc == "push" || sc == "buildx"
	case "git":
		return sc == "clone" || sc == "fetch" || sc == "pull" || sc == "ls-remote" || sc == "submodule"
	case "go":
		return sc == "mod" || sc == "get" || sc == "install" || sc == "build" || sc == "vet" || sc == "generate" || sc == "work"
	case "npm", "yarn", "pnpm", "pip", "pip3", "poetry", "uv", "bundle", "gem", "cargo", "composer", "gradle", "gradlew", "mvn", "mvnw", "apt-get", "apt", "brew", "curl", "wget", "kind", "terraform", "tofu", "dotnet", "nuget", "conda", "mamba":
		return !strings.Contains(text, " >> ") && !strings.Contains(text, " publish ")
	}
	// Any other tool's pull or download verb fetches a named artifact into
	// a local store, which a second run finds or fetches again: the
	// convention of `docker pull`, `ollama pull`, `huggingface-cli
	// download` and model servers' `pull`. Nothing else of an unknown tool
	// is taken to be safe to repeat.
	return pullVerbs[sc] && !strings.Contains(text, " >> ")
}

// pullVerbs are the subcommands that only fetch into a local store.
var pullVerbs = map[string]bool{"pull": true, "download": true}

// testPrograms always run tests; testVerbs are subcommands that do.
var (
	testPrograms = map[string]bool{"jest": true, "vitest": true, "mocha": true, "pytest": true, "tox": true, "nox": true,
		"ginkgo": true, "gotestsum": true, "rspec": true, "phpunit": true, "ctest": true, "bats": true, "karma": true, "playwright": true, "cypress": true}
	testVerbs = map[string]bool{"test": true, "t": true, "verify": true, "e2e": true, "integration": true, "check": true}
)

// fetchVerbs are subcommands of package managers that only download and
// install: their arguments are package names ("gotest.tools/gotestsum@v1",
// "pytest-cov"), not tests.
var fetchVerbs = map[string]bool{"install": true, "i": true, "add": true, "get": true, "download": true, "mod": true,
	"ci": true, "fetch": true, "pull": true, "clone": true, "restore": true, "sync": true}

// lifecycleTools run tests as part of install-like goals (mvn install,
// gradle build), so their verbs say nothing.
var lifecycleTools = map[string]bool{"mvn": true, "mvnw": true, "gradle": true, "gradlew": true, "make": true, "gmake": true, "task": true}

// runsTestsCmd reports whether a command runs tests (directly, or through
// a target, task or script named like tests).
func runsTestsCmd(n *harness.Node) bool {
	tool, sc := n.Tool(), subcommand(n)
	if testPrograms[tool] || testVerbs[sc] {
		return true
	}
	if fetchVerbs[sc] && !lifecycleTools[tool] {
		return false
	}
	for _, a := range n.EffectiveArgs()[1:] {
		if !strings.HasPrefix(a, "-") && (strings.Contains(a, "test") || strings.Contains(a, "e2e")) {
			return true
		}
	}
	return false
}

// fixNetworkRetry makes a network fetch survive a dropped connection: the
// tool's own retry setting when it has one, else a bounded retry loop.
func fixNetworkRetry(x *fixContext) (*fixPlan, error) {
	n := x.fixTarget()
	gradle := gradleNode(n) || (n == nil && x.family != nil && x.family.Tool == "gradle") ||
		(x.step != nil && strings.HasPrefix(x.step.Uses, "gradle/"))
	if gradle && !x.leftOut(gradleRetriesCases) {
		return fixGradleRetries(x)
	}
	if x.checkoutSubmodules() && !x.leftOut(submoduleRetryCases) {
		return fixCheckoutSubmodules(x)
	}
	if n == nil {
		return nil, noFix("the command that failed was not located in the harness")
	}
	if x.em.Ambiguous {
		return nil, noFix("several commands could have printed the cause line, so the one to retry is not certain")
	}
	if plan, err := x.nativeRetry(n); err == nil {
		return plan, nil
	}
	return fixRetryEmitter(x)
}

// nativeRetry adds a tool's own retry arguments to the emitter.
func (x *facts) nativeRetry(n *harness.Node) (*fixPlan, error) {
	nr, ok := nativeRetries[n.Tool()]
	if !ok || x.leftOut(nr.cases) {
		return nil, noFix("no native retry for %s", n.Tool())
	}
	after := ""
	if len(nr.subcommands) > 0 {
		sc := subcommand(n)
		for _, s := range nr.subcommands {
			if s == sc {
				after = sc
			}
		}
		if after == "" && nr.bare && (sc == "" || strings.HasPrefix(sc, "-")) {
			after = programWord(n)
		}
		if after == "" {
			return nil, noFix("%s %s has no native retry", n.Tool(), sc)
		}
	} else if len(n.Cmd.Words) > 0 {
		after = programWord(n)
	}
	site, out, err := x.nativeEdit(n, nr, after)
	if err != nil {
		return nil, err
	}
	name := commandName(n)
	rationale := fmt.Sprintf("`%s` failed on a dropped connection to %s%s and nothing in the harness retries it. "+
		"The patch turns on %s, so a transient reset or a 5xx from the registry costs a retry instead of the job; "+
		"a real error, such as a missing package, still fails. It changes only how %s fetches, not what it installs.",
		name, firstNonEmptyStr(x.endpoint, "the server"), cite(append(x.ids["cause"], x.ids["emitter"]...)...), nr.what, name)
	return &fixPlan{
		Title:     fmt.Sprintf("Let %s retry transient network failures", name),
		Rationale: rationale,
		Edits:     []patch.FileEdit{edit(site, out)},
	}, nil
}

// nativeEdit adds a native setting to n's command: its arguments after the
// word after, or its environment assignment in front of the program.
func (x *facts) nativeEdit(n *harness.Node, nr native, after string) (patch.Site, []byte, error) {
	if nr.env == "" {
		return x.addArgs(n, after, nr.args)
	}
	name, _, _ := strings.Cut(nr.env, "=")
	if strings.Contains(n.Text, name+"=") {
		return patch.Site{}, nil, noFix("`%s` already sets %s", commandName(n), name)
	}
	if where := x.setsVariable(n, name); where != "" {
		// the harness chose its own value (GOPROXY=direct, say): the
		// setting is not Polylane's to override
		return patch.Site{}, nil, noFix("%s already sets %s", where, name)
	}
	site, err := x.siteOf(n)
	if err != nil {
		return patch.Site{}, nil, err
	}
	line, end := editLines(n, site)
	env := nr.env
	if site.Host == patch.HostMakefile {
		env = patch.MakeEscape(env)
	}
	out, err := patch.PrefixCommand(site.Content, line, end, programWord(n), env)
	if err != nil {
		return patch.Site{}, nil, noFix("%v", err)
	}
	return site, out, nil
}

// programWord returns the program as written in the command (after any
// wrapper words such as sudo).
func programWord(n *harness.Node) string {
	tool := n.Tool()
	for _, w := range n.Cmd.Words {
		base := w
		if i := strings.LastIndexByte(base, '/'); i >= 0 {
			base = base[i+1:]
		}
		if strings.EqualFold(base, tool) {
			return w
		}
	}
	return n.Cmd.Words[0]
}

// fixRetryEmitter wraps the emitter's statement in a bounded retry loop.
func fixRetryEmitter(x *fixContext) (*fixPlan, error) {
	n := x.fixTarget()
	if n == nil {
		return nil, noFix("the command that failed was not located in the harness")
	}
	if !idempotent(n) {
		return nil, noFix("`%s` is not safe to run twice, so a retry could make things worse", commandName(n))
	}
	return retryStatement(x.facts, n)
}

// fixRetryExec retries a command whose exec failed before it started
// (text file busy), which is safe whatever the command does.
func fixRetryExec(x *fixContext) (*fixPlan, error) {
	n := x.fixTarget()
	if n == nil {
		return nil, noFix("the command that failed was not located in the harness")
	}
	return retryStatement(x.facts, n)
}

// retryStatement wraps a command's statement in a bounded retry loop.
func retryStatement(x *facts, n *harness.Node) (*fixPlan, error) {
	if runsTestsCmd(n) {
		return nil, noFix("`%s` runs tests, and retrying tests whole would hide real failures", commandName(n))
	}
	if n.Cmd.Substituted || n.Cmd.Background {
		return nil, noFix("`%s` runs inside a substitution or in the background, where a retry loop does not fit", commandName(n))
	}
	if x.retryOf(n) != "" {
		return nil, noFix("`%s` is already retried (%s)", commandName(n), x.retryOf(n))
	}
	site, err := x.siteOf(n)
	if err != nil {
		return nil, err
	}
	name := commandName(n)
	r := patch.Retry{Attempts: 5, Delay: 10, What: name}
	var out []byte
	if site.Host == patch.HostDockerfile {
		// one command of a RUN instruction: a loop in a subshell, so the
		// commands chained after it still run
		if n.Cmd.Line != n.Cmd.EndLine || n.Cmd.PipeLen > 1 {
			return nil, noFix("`%s` spans lines or a pipeline of the RUN instruction, where a retry loop does not fit", name)
		}
		out, err = patch.WrapRetryInRun(site, n.Cmd.Line, n.Cmd.Raw, r)
	} else {
		out, err = patch.WrapRetry(site, r)
	}
	if err != nil {
		return nil, noFix("%v", err)
	}
	rationale := fmt.Sprintf("`%s` failed once%s and runs a single time today. It is safe to repeat, so the patch retries it up to 5 times, "+
		"waiting 10 s, 20 s, 30 s and 40 s between tries, and prints each failed attempt so the flake stays visible in the log. "+
		"After the last try the step fails as before, so a persistent error is not hidden.", name, cite(append(x.ids["cause"], x.ids["emitter"]...)...))
	return &fixPlan{
		Title:     fmt.Sprintf("Retry %s with a bound and backoff", name),
		Rationale: rationale,
		Edits:     []patch.FileEdit{edit(site, out)},
	}, nil
}

// fixRateLimitRetry retries a rate-limited fetch with waits long enough for
// the limit's window to pass: a 429 asks the client to come back later
// (RFC 6585), and retrying it with backoff is the one 4xx retry the
// guard-rails allow. Only a command that is safe to repeat is retried.
func fixRateLimitRetry(x *fixContext) (*fixPlan, error) {
	n := x.fixTarget()
	if n == nil {
		return nil, noFix("the rate-limited command was not located in the harness")
	}
	if !idempotent(n) {
		return nil, noFix("`%s` is not known to be safe to run twice, so a retry could make things worse", commandName(n))
	}
	if runsTestsCmd(n) || n.Cmd.Substituted || n.Cmd.Background || x.retryOf(n) != "" {
		return nil, noFix("`%s` cannot take a retry loop here", commandName(n))
	}
	site, err := x.siteOf(n)
	if err != nil {
		return nil, err
	}
	name := commandName(n)
	out, err := patch.WrapRetry(site, patch.Retry{Attempts: 4, Delay: 60, What: name})
	if err != nil {
		return nil, noFix("%v", err)
	}
	rationale := fmt.Sprintf("`%s` was rate-limited by %s%s. A rate limit clears when its window passes, so the patch retries the command up to 4 times, "+
		"waiting 60 s, 120 s and 180 s between tries, and prints each failed attempt; a limit that does not clear still fails the step. "+
		"Authenticating the call (a token the repository already has) raises the limit for good, but moves a credential, which Polylane leaves to the maintainers.",
		name, firstNonEmptyStr(x.endpoint, "the server"), cite(append(x.ids["cause"], x.ids["emitter"]...)...))
	return &fixPlan{Title: fmt.Sprintf("Retry %s after the rate limit clears", name), Rationale: rationale, Edits: []patch.FileEdit{edit(site, out)}}, nil
}

// fixAptRetries adds Acquire::Retries to the apt commands of the emitter's unit.
func fixAptRetries(x *fixContext) (*fixPlan, error) {
	if r := x.dockerRun; r != nil && strings.Contains(r.Text, "apt-get") {
		return x.dockerAptRetries()
	}
	n := x.fixTarget()
	if n == nil || (n.Tool() != "apt-get" && n.Tool() != "apt") {
		return fixNetworkRetry(x)
	}
	site, err := x.siteOf(n)
	if err != nil {
		return nil, err
	}
	out, changed := aptAddOption(n, site, "Acquire::Retries=5")
	if changed == 0 {
		return nil, noFix("the apt commands already set their retries")
	}
	rationale := fmt.Sprintf("apt failed on a mirror that answered inconsistently or not at all%s. The patch sets Acquire::Retries=5 on the apt commands of %s, so apt retries a failed download a few times before it gives up; what is installed does not change.",
		cite(append(x.ids["cause"], x.ids["emitter"]...)...), unitLabel(n))
	return &fixPlan{Title: "Let apt retry failed downloads", Rationale: rationale, Edits: []patch.FileEdit{edit(site, out)}}, nil
}

// fixAptUpdate refreshes the apt index right before the install that used a
// stale one, with sudo when the install runs with it.
func fixAptUpdate(x *fixContext) (*fixPlan, error) {
	if x.dockerRun != nil {
		return nil, noFix("the install runs in an image build, whose base image carries its own index")
	}
	n := x.fixTarget()
	if n == nil || (n.Tool() != "apt-get" && n.Tool() != "apt") {
		return nil, noFix("the apt install was not located in the harness")
	}
	cmd := "apt-get update"
	if n.Cmd != nil && strings.HasPrefix(strings.TrimSpace(n.Cmd.Raw), "sudo ") {
		cmd = "sudo " + cmd
	}
	site, out, err := x.insertCommandBefore(n, cmd)
	if err != nil {
		return nil, err
	}
	rationale := fmt.Sprintf("apt asked the mirror for a package version that the runner image's index names but the mirror no longer has%s. The patch runs `%s` before %s, so apt resolves against the mirror's current index; the packages installed are the same, at their current versions.",
		cite(append(x.ids["cause"], x.ids["emitter"]...)...), cmd, unitLabel(n))
	return &fixPlan{Title: "Refresh the apt index before installing", Rationale: rationale, Edits: []patch.FileEdit{edit(site, out)}}, nil
}

// unitNodeOf returns the nearest unit node (task, target, script, step).
func unitNodeOf(n *harness.Node) *harness.Node {
	if u := unitOf(n); u != nil {
		return u
	}
	return n
}

// setsVariable names where the harness around n sets the environment or
// make variable name: a make variable in scope, an ARG or ENV of an image
// build that runs n, or the env of the step, job or workflow; "" when
// nothing does.
func (x *facts) setsVariable(n *harness.Node, name string) string {
	if n.ExpandVars("$("+name+")") != "$("+name+")" {
		return "the Makefile"
	}
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Kind != harness.NodeDockerfile {
			continue
		}
		if content, err := x.repo.ReadFile(p.File); err == nil {
			for _, l := range strings.Split(string(content), "\n") {
				f := strings.Fields(l)
				if len(f) >= 2 && (strings.EqualFold(f[0], "ARG") || strings.EqualFold(f[0], "ENV")) && (f[1] == name || strings.HasPrefix(f[1], name+"=")) {
					return p.File
				}
			}
		}
	}
	for _, env := range []map[string]harness.Value{x.stepEnv(), x.jobEnv(), x.wfEnv()} {
		if _, ok := env[name]; ok {
			return "the workflow's env"
		}
	}
	return ""
}

func (x *facts) stepEnv() map[string]harness.Value {
	if x.step == nil {
		return nil
	}
	return x.step.Env
}

func (x *facts) jobEnv() map[string]harness.Value {
	if x.job == nil {
		return nil
	}
	return x.job.Env
}

func (x *facts) wfEnv() map[string]harness.Value {
	if x.wf == nil {
		return nil
	}
	return x.wf.Env
}

package causal

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/polylane/polylane/causal/harness"
	"github.com/polylane/polylane/causal/patch"
)

var (
	makeJobs  = regexp.MustCompile(`^(-j|--jobs)(=?)(.*)$`)
	heapOOM   = regexp.MustCompile(`(?i)JavaScript heap out of memory`)
	javaOOM   = regexp.MustCompile(`java\.lang\.OutOfMemoryError`)
	pytestNum = regexp.MustCompile(`^(-n|--numprocesses)(=?)(.*)$`)
	// linkerKilled is the system linker killed or crashing under memory or
	// disk pressure while cargo links a binary.
	linkerKilled = regexp.MustCompile(`\bld terminated with signal (?:7 \[Bus error\]|9 \[Killed\])|linking with .cc. failed: .*(?:signal: 9|SIGKILL)`)
)

// parallelNote says how the emitter is parallelised, for the OOM summary.
func parallelNote(n *harness.Node) string {
	if n == nil {
		return "the harness sets no memory or parallelism limits for it."
	}
	for _, w := range n.Cmd.Words {
		if m := makeJobs.FindStringSubmatch(w); m != nil {
			return fmt.Sprintf("`%s` runs as many jobs in parallel as `%s` allows, and the runner's memory does not fit them all.", commandName(n), w)
		}
	}
	switch n.Tool() {
	case "go":
		return "`go test` and `go build` run one process per CPU by default, each with its own memory."
	case "jest", "npm", "yarn", "pnpm", "npx", "vitest":
		return "the test runner starts one worker per CPU by default."
	case "cargo":
		return "cargo runs one compiler process per CPU by default, each with its own memory."
	}
	return "the harness sets no memory or parallelism limits for it."
}

// fixCapParallelism caps the emitter's parallelism or heap.
func fixCapParallelism(x *fixContext) (*fixPlan, error) {
	if plan, err := fixGradleMetaspace(x); err == nil {
		return plan, nil
	}
	n := x.fixTarget()
	if n == nil {
		return nil, noFix("the command that ran out of memory was not located")
	}
	site, err := x.siteOf(n)
	if err != nil {
		return nil, err
	}
	line, end := editLines(n, site)
	out, what, err := capEdit(x, n, site.Content, line, end)
	if err != nil {
		return nil, err
	}
	tail := "the work done is the same, it only runs with less concurrency, at some cost in time."
	if strings.Contains(what, "without debug info") {
		tail = "the same code is built and tested; only a debugger would see less of it, and CI runs none."
	}
	rationale := fmt.Sprintf("`%s` was killed for lack of memory%s. The patch %s, so its peak memory fits the runner; %s",
		commandName(n), cite(append(x.ids["cause"], x.ids["emitter"]...)...), what, tail)
	return &fixPlan{Title: "Cap the parallelism of " + commandName(n), Rationale: rationale, Edits: []patch.FileEdit{edit(site, out)}}, nil
}

// capEdit returns the edited content and a phrase saying what changed.
func capEdit(x *fixContext, n *harness.Node, content []byte, line, end int) ([]byte, string, error) {
	cause := x.matched.Line.Text
	words := n.Cmd.Words
	switch {
	case heapOOM.MatchString(cause):
		out, err := patch.PrefixCommand(content, line, end, programWord(n), "NODE_OPTIONS=--max-old-space-size=4096")
		return out, "gives Node a 4 GB heap (NODE_OPTIONS=--max-old-space-size=4096) instead of its smaller default", shapeErr(err)
	case javaOOM.MatchString(cause) && (n.Tool() == "mvn" || n.Tool() == "mvnw"):
		out, err := patch.PrefixCommand(content, line, end, programWord(n), "MAVEN_OPTS=-Xmx3g")
		return out, "gives Maven's JVM a 3 GB heap (MAVEN_OPTS=-Xmx3g)", shapeErr(err)
	}
	switch n.Tool() {
	case "make", "gmake":
		for _, w := range words {
			if m := makeJobs.FindStringSubmatch(w); m != nil {
				out, err := patch.ReplaceWord(content, line, end, w, "-j2")
				return out, fmt.Sprintf("replaces `%s` with `-j2`", w), shapeErr(err)
			}
		}
	case "go":
		return goParallel(n, content, line, end)
	case "jest", "vitest":
		return replaceOrAdd(n, content, line, end, "--maxWorkers", "--maxWorkers=2", programWord(n))
	case "npm", "yarn", "pnpm":
		if runsTool(n, "jest") || runsTool(n, "vitest") {
			if hasWord(words, "--") {
				out, err := patch.AddArgs(content, line, end, "--", []string{"--maxWorkers=2"})
				return out, "limits the test runner to 2 workers (--maxWorkers=2)", shapeErr(err)
			}
			out, err := patch.AddArgs(content, line, end, subcommandWord(n), []string{"--", "--maxWorkers=2"})
			return out, "limits the test runner to 2 workers (--maxWorkers=2)", shapeErr(err)
		}
	case "pytest":
		for _, w := range words {
			if m := pytestNum.FindStringSubmatch(w); m != nil && (m[3] == "auto" || atoi(m[3]) > 2) {
				out, err := patch.ReplaceWord(content, line, end, w, m[1]+m[2]+"2")
				return out, "limits pytest-xdist to 2 workers", shapeErr(err)
			}
		}
	case "gradle", "gradlew":
		return replaceOrAdd(n, content, line, end, "--max-workers", "--max-workers=2", programWord(n))
	case "cargo":
		if linkerKilled.MatchString(cause) && !x.leftOut([]string{"astrid-runtime/astrid"}) {
			// the linker holds every dependency's debug info; dropping it
			// in CI is the fix maintainers choose for a killed link
			// (windmill-labs/windmill#10088, astrid-runtime/astrid#955,
			// faiscadev/fakecloud#828, iamnbutler/gpuikit#199)
			out, err := patch.PrefixCommand(content, line, end, programWord(n), "CARGO_PROFILE_DEV_DEBUG=0 CARGO_PROFILE_TEST_DEBUG=0")
			return out, "builds without debug info (CARGO_PROFILE_DEV_DEBUG=0 and CARGO_PROFILE_TEST_DEBUG=0), which is most of what the linker holds in memory and writes to disk", shapeErr(err)
		}
		// CARGO_BUILD_JOBS is cargo's build.jobs setting, the form
		// maintainers use to cap it (gpu-eda/Jacquard#229,
		// artifact-keeper/artifact-keeper#1515).
		out, err := patch.PrefixCommand(content, line, end, programWord(n), "CARGO_BUILD_JOBS=2")
		return out, "limits cargo to 2 parallel jobs (CARGO_BUILD_JOBS=2)", shapeErr(err)
	case "cmake", "ninja":
		return capBuildJobs(n, content, line, end)
	case "goreleaser":
		if x.leftOut([]string{"formancehq/payments"}) {
			break
		}
		// goreleaser builds one target per CPU by default (--parallelism,
		// https://goreleaser.com/cmd/goreleaser_build/).
		return replaceOrAdd(n, content, line, end, "--parallelism", "--parallelism=2", subcommandWord(n))
	}
	return nil, "", noFix("`%s` has no parallelism or memory setting Polylane knows how to cap", commandName(n))
}

// capBuildJobs caps the jobs of `cmake --build` (its --parallel or -j, with
// no number meaning the build tool's default, one per CPU or more) and of
// ninja (-j; its default is the CPU count plus two), per
// https://cmake.org/cmake/help/latest/manual/cmake.1.html#cmdoption-cmake-build-j
// and https://ninja-build.org/manual.html#ref_running.
func capBuildJobs(n *harness.Node, content []byte, line, end int) ([]byte, string, error) {
	w := n.Cmd.Words
	if n.Tool() == "cmake" && !hasWord(w, "--build") {
		return nil, "", noFix("`%s` configures the build; the compiler runs in `cmake --build`", commandName(n))
	}
	for i, a := range w {
		switch {
		case (a == "--parallel" || a == "-j") && (i+1 == len(w) || atoi(w[i+1]) == 0 && !strings.HasPrefix(w[i+1], "$")):
			out, err := patch.ReplaceWord(content, line, end, a, a+" 2")
			return out, fmt.Sprintf("gives `%s` a bound of 2 jobs (`%s 2`) where it had none", commandName(n), a), shapeErr(err)
		case (a == "--parallel" || a == "-j") && atoi(w[i+1]) > 2:
			out, err := patch.ReplaceWord(content, line, end, a+" "+w[i+1], a+" 2")
			return out, fmt.Sprintf("lowers `%s` to 2 jobs", commandName(n)), shapeErr(err)
		case strings.HasPrefix(a, "-j") && atoi(strings.TrimPrefix(a, "-j")) > 2, strings.HasPrefix(a, "--parallel=") && atoi(strings.TrimPrefix(a, "--parallel=")) > 2:
			repl := "-j2"
			if strings.HasPrefix(a, "--parallel=") {
				repl = "--parallel=2"
			}
			out, err := patch.ReplaceWord(content, line, end, a, repl)
			return out, fmt.Sprintf("lowers `%s` to 2 jobs", commandName(n)), shapeErr(err)
		}
	}
	if n.Tool() == "ninja" {
		out, err := patch.AddArgs(content, line, end, programWord(n), []string{"-j2"})
		return out, "runs ninja with 2 jobs (-j2) instead of one per CPU plus two", shapeErr(err)
	}
	out, err := patch.AddArgs(content, line, end, "--build", []string{"--parallel", "2"})
	return out, "runs `cmake --build` with 2 jobs (--parallel 2)", shapeErr(err)
}

func goParallel(n *harness.Node, content []byte, line, end int) ([]byte, string, error) {
	w := n.Cmd.Words
	for i, a := range w {
		if a == "-p" && i+1 < len(w) && atoi(w[i+1]) > 2 {
			out, err := patch.ReplaceWord(content, line, end, "-p "+w[i+1], "-p 2")
			return out, "lowers `go " + subcommand(n) + "` to 2 packages at a time (-p 2)", shapeErr(err)
		}
		if strings.HasPrefix(a, "-p=") {
			out, err := patch.ReplaceWord(content, line, end, a, "-p=2")
			return out, "lowers `go " + subcommand(n) + "` to 2 packages at a time (-p=2)", shapeErr(err)
		}
	}
	out, err := patch.AddArgs(content, line, end, subcommandWord(n), []string{"-p", "2"})
	return out, "runs `go " + subcommand(n) + "` on 2 packages at a time (-p 2)", shapeErr(err)
}

func replaceOrAdd(n *harness.Node, content []byte, line, end int, flag, value, after string) ([]byte, string, error) {
	for _, w := range n.Cmd.Words {
		if strings.HasPrefix(w, flag) {
			out, err := patch.ReplaceWord(content, line, end, w, value)
			return out, "sets " + value, shapeErr(err)
		}
	}
	out, err := patch.AddArgs(content, line, end, after, []string{value})
	return out, "sets " + value, shapeErr(err)
}

func shapeErr(err error) error {
	if err != nil {
		return noFix("%v", err)
	}
	return nil
}

func hasWord(ws []string, w string) bool {
	for _, x := range ws {
		if x == w {
			return true
		}
	}
	return false
}

// subcommandWord returns the subcommand as written in the source.
func subcommandWord(n *harness.Node) string {
	sc := subcommand(n)
	for _, w := range n.Cmd.Words {
		if strings.Trim(w, `"'`) == sc {
			return w
		}
	}
	return sc
}

// runsTool reports whether a command's resolved children run tool.
func runsTool(n *harness.Node, tool string) bool {
	found := false
	n.Walk(func(c *harness.Node) bool {
		if c != n && c.Kind == harness.NodeCommand && c.Tool() == tool {
			found = true
		}
		return !found
	})
	return found
}

// fixFreeDisk frees space on a hosted runner before the failing step.
func fixFreeDisk(x *fixContext) (*fixPlan, error) {
	if x.wf == nil || x.step == nil || x.job == nil {
		return nil, noFix("the failing workflow step was not located")
	}
	if !strings.Contains(strings.ToLower(x.job.RunsOn), "ubuntu") {
		return nil, noFix("the job does not run on a hosted Ubuntu runner, whose preinstalled toolchains the fix removes")
	}
	content, err := x.repo.ReadFile(x.wf.Path)
	if err != nil {
		return nil, noFix("cannot read %s", x.wf.Path)
	}
	step := []string{
		"name: Free disk space on the runner",
		"run: |",
		"  sudo rm -rf /usr/share/dotnet /usr/local/lib/android /opt/ghc /usr/local/.ghcup",
		"  df -h /",
	}
	out, err := patch.InsertStep(content, stepSpan(x.step), step)
	if err != nil {
		return nil, noFix("%v", err)
	}
	rationale := fmt.Sprintf("The step ran out of disk%s. A hosted Ubuntu runner comes with several large toolchains (.NET, Android, GHC) that this job does not use; "+
		"removing them before the step frees well over 20 GB, and `df -h /` prints what is left so the margin is visible in the log.", cite(x.ids["cause"]...))
	return &fixPlan{Title: "Free disk space before " + x.step.DisplayName(), Rationale: rationale,
		Edits: []patch.FileEdit{{Path: x.wf.Path, Old: content, New: out}}}, nil
}

func stepSpan(s *harness.Step) patch.StepSpan {
	return patch.StepSpan{Line: s.Line, EndLine: s.EndLine, Column: s.Column}
}

// fixInotify raises the inotify limits before the emitter.
func fixInotify(x *fixContext) (*fixPlan, error) {
	n := x.fixTarget()
	if n == nil {
		return nil, noFix("the command that hit the limit was not located")
	}
	site, err := x.anchorSite(n)
	if err != nil {
		return nil, err
	}
	out, err := patch.InsertShell(site, false, []string{"sudo sysctl -w fs.inotify.max_user_watches=524288 fs.inotify.max_user_instances=512"}, "")
	if err != nil {
		return nil, noFix("%v", err)
	}
	rationale := fmt.Sprintf("`%s` ran out of inotify watches or instances%s; Ubuntu's defaults (8192 watches, 128 instances) are too low for several clusters or file watchers on one runner. The patch raises both limits before the command runs.",
		commandName(n), cite(x.ids["cause"]...))
	return &fixPlan{Title: "Raise the inotify limits before " + commandName(n), Rationale: rationale, Edits: []patch.FileEdit{edit(site, out)}}, nil
}

var hostPort = regexp.MustCompile(`^(?:\d+\.\d+\.\d+\.\d+:)?(\d+):\d+(/\w+)?$`)

// portNote says where a fixed port comes from, for the summary.
func portNote(n *harness.Node) string {
	if n == nil {
		return ""
	}
	if p := publishedPort(n); p != "" {
		return fmt.Sprintf("The harness publishes the fixed host port %s, which a container or process left from earlier still holds.", p)
	}
	if n.Tool() == "go" && subcommand(n) == "test" {
		return "`go test` runs packages in parallel, and tests in more than one package listen on the same fixed port."
	}
	return "The port is fixed, so two users of it cannot run at the same time."
}

func publishedPort(n *harness.Node) string {
	w := n.EffectiveArgs()
	for i, a := range w {
		if (a == "-p" || a == "--publish") && i+1 < len(w) {
			if m := hostPort.FindStringSubmatch(w[i+1]); m != nil {
				return m[1]
			}
		}
	}
	return ""
}

// fixFreePort removes a leftover container before a fixed-port run, or
// serialises test packages that share a port.
func fixFreePort(x *fixContext) (*fixPlan, error) {
	n := x.fixTarget()
	if n == nil {
		return nil, noFix("the command that could not bind its port was not located")
	}
	if n.Tool() == "go" && subcommand(n) == "test" {
		site, out, err := x.addArgs(n, subcommandWord(n), []string{"-p", "1"})
		if err != nil {
			return nil, err
		}
		rationale := fmt.Sprintf("Two test packages bound the same fixed port at once%s. With `-p 1`, `go test` runs one package at a time, so they no longer collide; tests inside a package keep their own parallelism. The lasting fix is to listen on port 0 in the tests.", cite(x.ids["cause"]...))
		return &fixPlan{Title: "Run test packages one at a time so they do not share a port", Rationale: rationale, Edits: []patch.FileEdit{edit(site, out)}}, nil
	}
	name := containerName(n)
	if (n.Tool() == "docker" || n.Tool() == "podman") && subcommand(n) == "run" && name != "" && publishedPort(n) != "" {
		return removeFirst(x.facts, n, fmt.Sprintf("%s rm -f %s >/dev/null 2>&1 || true", programWord(n), name),
			fmt.Sprintf("The container %s publishes the fixed host port %s, and one left from an earlier run still held it%s. The patch removes any such container before starting a new one; removing a container that does not exist is a no-op.", name, publishedPort(n), cite(x.ids["cause"]...)))
	}
	if s := x.skippedTeardown(); s != nil {
		return teardownAlways(x.facts, s, fmt.Sprintf("%s could not bind its port because a copy left by an earlier run still held it", describe(n)))
	}
	return nil, noFix("the port is not fixed in a place Polylane can change safely")
}

func containerName(n *harness.Node) string {
	w := n.EffectiveArgs()
	for i, a := range w {
		if a == "--name" && i+1 < len(w) {
			return w[i+1]
		}
		if strings.HasPrefix(a, "--name=") {
			return strings.TrimPrefix(a, "--name=")
		}
	}
	return ""
}

// insertCommandBefore inserts one shell command right before n: in n's own site,
// or, in a Taskfile, at the anchor the log points at.
func (x *facts) insertCommandBefore(n *harness.Node, cmd string) (patch.Site, []byte, error) {
	site, err := x.anchorSite(n)
	if err != nil {
		return patch.Site{}, nil, err
	}
	if site.Host != patch.HostTaskfile {
		if s, err := x.siteOf(n); err == nil {
			site = s
		}
	}
	out, err := patch.InsertShell(site, false, []string{cmd}, "")
	if err != nil {
		return patch.Site{}, nil, noFix("%v", err)
	}
	return site, out, nil
}

// removeFirst inserts a cleanup command before the emitter.
func removeFirst(x *facts, n *harness.Node, cmd, rationale string) (*fixPlan, error) {
	site, out, err := x.insertCommandBefore(n, cmd)
	if err != nil {
		return nil, err
	}
	return &fixPlan{Title: "Remove what an earlier run left behind before " + commandName(n), Rationale: rationale, Edits: []patch.FileEdit{edit(site, out)}}, nil
}

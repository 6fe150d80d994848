package patch

import (
	"path"
	"strings"
)

// stripWrappers drops leading environment assignments and commands that only
// run another command (sudo, env, time, nice, xvfb-run, npx, timeout N) and
// reports whether a timeout wrapper was among them.
func stripWrappers(argv []string) ([]string, bool) {
	timed := false
	for len(argv) > 0 {
		head := path.Base(argv[0])
		switch {
		case strings.Contains(argv[0], "=") && !strings.HasPrefix(argv[0], "-"):
			argv = argv[1:]
		case head == "sudo" || head == "env" || head == "time" || head == "nice" || head == "xvfb-run" ||
			head == "npx" || head == "bunx" || head == "exec" || head == "command" || head == "stdbuf":
			argv = skipFlags(argv[1:])
		case head == "timeout" || head == "gtimeout":
			timed = true
			argv = skipFlags(argv[1:])
			if len(argv) > 0 {
				argv = argv[1:] // the duration
			}
		default:
			return argv, timed
		}
	}
	return argv, timed
}

// skipFlags drops leading -flags.
func skipFlags(argv []string) []string {
	for len(argv) > 0 && strings.HasPrefix(argv[0], "-") {
		argv = argv[1:]
	}
	return argv
}

// shellDashC returns the script of `sh -c SCRIPT` or `bash -c SCRIPT`.
func shellDashC(argv []string) (string, bool) {
	if len(argv) < 3 {
		return "", false
	}
	switch path.Base(argv[0]) {
	case "sh", "bash", "dash", "zsh":
	default:
		return "", false
	}
	for i := 1; i+1 < len(argv); i++ {
		if argv[i] == "-c" || (strings.HasPrefix(argv[i], "-") && strings.HasSuffix(argv[i], "c") && !strings.HasPrefix(argv[i], "--")) {
			return argv[i+1], true
		}
	}
	return "", false
}

// testRunners are programs whose every invocation runs tests.
var testRunners = map[string]bool{
	"gotestsum": true, "ginkgo": true, "jest": true, "vitest": true, "mocha": true, "ava": true,
	"karma": true, "pytest": true, "py.test": true, "tox": true, "nox": true, "rspec": true,
	"phpunit": true, "ctest": true, "bats": true, "kuttl": true, "tap": true, "jasmine": true,
}

// testSubcommands maps a tool to the subcommands that run tests.
var testSubcommands = map[string][]string{
	"go": {"test"}, "richgo": {"test"}, "cargo": {"test", "nextest"}, "dotnet": {"test"},
	"mix": {"test"}, "swift": {"test"}, "deno": {"test"}, "bun": {"test"}, "chainsaw": {"test"},
	"playwright": {"test"}, "cypress": {"run"}, "helm": {"test"}, "kubectl-kuttl": {"test"},
}

// isTestCommand reports whether argv (wrappers stripped) runs tests.
func isTestCommand(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	prog := path.Base(argv[0])
	args := argv[1:]
	switch {
	case testRunners[prog]:
		return true
	case prog == "python" || prog == "python3":
		return len(args) >= 2 && args[0] == "-m" && (args[1] == "pytest" || args[1] == "unittest")
	case prog == "npm" || prog == "yarn" || prog == "pnpm":
		return scriptRunsTests(args)
	case prog == "make" || prog == "gmake" || prog == "task" || prog == "just" || prog == "mage":
		return anyTestLike(args)
	case prog == "mvn" || prog == "mvnw" || prog == "gradle" || prog == "gradlew":
		return anyTestLike(args)
	case prog == "bundle":
		return len(args) >= 2 && args[0] == "exec" && isTestCommand(args[1:])
	}
	for _, sub := range testSubcommands[prog] {
		if first := firstNonFlag(args); first == sub {
			return true
		}
	}
	return false
}

// scriptRunsTests reports whether npm/yarn/pnpm arguments run a test script.
func scriptRunsTests(args []string) bool {
	first := firstNonFlag(args)
	switch first {
	case "test", "t", "tst":
		return true
	case "run", "run-script":
		for _, a := range args[1:] {
			if !strings.HasPrefix(a, "-") {
				return testLike(a)
			}
		}
	}
	return testLike(first) && first != "install" && first != "ci"
}

// anyTestLike reports whether any non-flag, non-assignment argument names a
// test-like target or task.
func anyTestLike(args []string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, "-") || strings.Contains(a, "=") {
			continue
		}
		if testLike(a) {
			return true
		}
	}
	return false
}

// testLike reports whether a target, task or script name runs tests.
func testLike(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"test", "e2e", "check", "verify", "spec", "integration"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// firstNonFlag returns the first argument that is not a flag.
func firstNonFlag(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// narrowingFlags select or exclude tests by name or path.
var narrowingFlags = []string{
	"-run", "--run", "-skip", "--skip", "-k", "--deselect", "--ignore", "--ignore-glob",
	"--testPathIgnorePatterns", "--testPathIgnorePattern", "-t", "--testNamePattern",
	"--onlyChanged", "-o", "--exclude", "--skip-tests", "-DskipTests", "-Dmaven.test.skip",
	"--focus", "-focus", "--label-filter", "-label-filter", "--grep-invert", "--exclude-tag",
	"--selector", "--testPathPattern", "--only-failures", "--lf", "--last-failed",
}

// narrows reports whether a test command carries a flag that narrows or
// skips the tests it runs.
func narrows(argv []string) bool {
	for _, a := range argv[1:] {
		name, _, _ := strings.Cut(a, "=")
		for _, f := range narrowingFlags {
			if name == f {
				return true
			}
		}
	}
	return false
}

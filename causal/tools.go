package causal

import (
	"regexp"
	"strings"

	"github.com/polylane/polylane/causal/harness"
)

// toolHint maps a cause-line pattern to the programs that print it.
type toolHint struct {
	re    *regexp.Regexp
	tools []string
}

// toolHints are checked in order; every match adds its tools.
var toolHints = []toolHint{
	{regexp.MustCompile(`(?i)\bnpm (ERR!|error|warn)|npm-cli|registry\.npmjs\.org|\bEINTEGRITY\b`), []string{"npm", "npx"}},
	{regexp.MustCompile(`(?i)\byarn\b|registry\.yarnpkg\.com|An unexpected error occurred:`), []string{"yarn"}},
	{regexp.MustCompile(`ERR_PNPM_|\bpnpm\b`), []string{"pnpm"}},
	{regexp.MustCompile(`(?i)HTTPSConnectionPool|pypi\.org|files\.pythonhosted\.org|Could not install packages|No matching distribution|Could not find a version that satisfies|\bpip\b|ResolutionImpossible`), []string{"pip", "pip3", "python", "python3", "poetry", "uv", "pipenv"}},
	{regexp.MustCompile(`Could not transfer artifact|Could not resolve dependencies for project|\[ERROR\]|maven|repo\.maven|BUILD FAILURE|surefire`), []string{"mvn", "mvnw", "./mvnw"}},
	{regexp.MustCompile(`(?i)gradle|Could not resolve all (files|dependencies|artifacts)|Could not (GET|HEAD) '`), []string{"gradle", "gradlew"}},
	{regexp.MustCompile(`^go: |proxy\.golang\.org|sum\.golang\.org|^--- FAIL|^FAIL\s|^panic: |^ok\s+\S+\s|\.go:\d+:|go: downloading|DATA RACE`), []string{"go", "gotestsum", "ginkgo"}},
	{regexp.MustCompile(`^curl: \(\d+\)|\bcurl\b`), []string{"curl"}},
	{regexp.MustCompile(`\bwget\b|^Connecting to .*failed`), []string{"wget"}},
	{regexp.MustCompile(`^(fatal|error): |early EOF|RPC failed|remote end hung up`), []string{"git"}},
	// kubeadm's own failure report ("[kubelet-check]", "couldn't initialize a
	// Kubernetes cluster") comes from a cluster being created, before any
	// kubectl could run; its "timed out waiting for the condition" is not
	// kubectl's
	{regexp.MustCompile(`failed to init node with kubeadm|couldn't initialize a Kubernetes cluster|\[kubelet-check\]|\[wait-control-plane\]`), []string{"kind", "kubeadm", "minikube", "k3d"}},
	{regexp.MustCompile(`Error from server|Unable to connect to the server|The connection to the server|error when retrieving current configuration|error when creating|error validating|resource mapping not found|no matches for kind|timed out waiting for the condition|no matching resources found|the object has been modified|Operation cannot be fulfilled|error: unable to recognize|\bkubectl\b|failed calling webhook|error executing command in container|Internal error occurred|error: unable to upgrade connection`), []string{"kubectl", "karmadactl", "oc", "kustomize", "clusterctl"}},
	{regexp.MustCompile(`(?i)\bhelm\b|INSTALLATION FAILED|UPGRADE FAILED|cannot re-use a name|another operation \(install/upgrade/rollback\)`), []string{"helm"}},
	{regexp.MustCompile(`(?i)docker|toomanyrequests|Error response from daemon|pull access denied|manifest unknown|port is already allocated|Bind for .* failed`), []string{"docker", "docker-compose", "podman", "buildah"}},
	{regexp.MustCompile(`(?i)failed to create cluster|\bkind\b`), []string{"kind"}},
	{regexp.MustCompile(`^(E|W): |Hash Sum mismatch|apt-get|dpkg|Unable to locate package|Some index files failed`), []string{"apt-get", "apt", "dpkg"}},
	{regexp.MustCompile(`(?i)jest|Tests:\s+\d+ failed|●|Exceeded timeout of \d+ ?ms`), []string{"jest", "npm", "yarn", "pnpm", "npx"}},
	{regexp.MustCompile(`(?i)pytest|^FAILED \S+\.py::|^E\s+AssertionError`), []string{"pytest", "python", "python3", "tox", "nox"}},
	{regexp.MustCompile(`(?i)terraform|state lock`), []string{"terraform", "tofu"}},
	{regexp.MustCompile(`(?i)cargo|rustc|^error\[E\d+\]`), []string{"cargo"}},
	{regexp.MustCompile(`cc1plus|cc1\b|collect2|^(c\+\+|g\+\+|gcc|clang(\+\+)?|ld): |^g?make(\[\d+\])?: \*\*\*`), []string{"make", "gmake", "ninja", "cmake"}},
	{regexp.MustCompile(`(?i)playwright|Test timeout of \d+ms exceeded`), []string{"playwright", "npx"}},
}

// toolsFor returns the programs a cause line points to, most specific first.
func toolsFor(cause string) []string {
	var out []string
	seen := map[string]bool{}
	for _, h := range toolHints {
		if !h.re.MatchString(cause) {
			continue
		}
		for _, t := range h.tools {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// quiet are commands that do not talk to anything and rarely fail: they are
// never the emitter of a cause line.
var quiet = map[string]bool{
	"echo": true, "printf": true, "sleep": true, "set": true, "exit": true, "break": true,
	"return": true, "[": true, "[[": true, "test": true, "true": true, "false": true, ":": true,
	"cd": true, "export": true, "local": true, "declare": true, "readonly": true, "shift": true,
	"mkdir": true, "cat": true, "tee": true, "base64": true, "sed": true, "awk": true, "grep": true,
	"head": true, "tail": true, "cut": true, "tr": true, "wc": true, "sort": true, "xargs": true,
	"trap": true, "source": true, ".": true, "eval": true, "date": true, "pwd": true, "ls": true,
	"chmod": true, "cp": true, "mv": true, "ln": true, "touch": true, "rm": true, "jq": true, "yq": true,
	"wait": true, "unset": true, "shopt": true, "umask": true, "basename": true, "dirname": true,
	"tar": true, "gzip": true, "gunzip": true, "unzip": true, "zip": true, "find": true, "which": true,
	"type": true, "id": true, "uname": true, "nproc": true, "printenv": true, "install": true, "df": true, "du": true,
}

// harnessCall reports whether a command only calls into other harness code
// that was resolved (its children carry the real commands). A make or task
// call whose file is not in the repository is a command of its own.
//
// A container CLI is a command of its own even when the model follows the
// image it builds or the script it runs: it pulls, builds and starts
// containers itself. A command whose children are commands runs an inline
// script (bash -c '…').
func harnessCall(n *harness.Node) bool {
	if harness.ContainerTool(n.Tool()) {
		return false
	}
	for _, c := range n.Children {
		switch c.Kind {
		case harness.NodeCommand:
			return true
		case harness.NodeTask, harness.NodeTarget, harness.NodeJustRecipe, harness.NodeScript, harness.NodePackage, harness.NodeFunc:
			// a unit that yielded no command (a script that does not
			// parse) leaves the call as the deepest command reached.
			if len(descendants(c)) > 0 {
				return true
			}
		}
	}
	return false
}

// opaque reports whether a command runs a harness file the model could not
// read: missing from the repository, not parseable, or cut.
func opaque(n *harness.Node) bool {
	if n.Kind != harness.NodeCommand || harnessCall(n) {
		return false
	}
	if n.Note != "" {
		return true
	}
	for _, c := range n.Children {
		if c.Kind != harness.NodeCommand && c.Note != "" && len(descendants(c)) == 0 {
			return true
		}
	}
	return false
}

// offline reports whether a command clearly does not reach a server.
func offline(n *harness.Node) bool {
	text := n.Text
	for _, s := range []string{"--dry-run=client", " config view", " config set", " version", " completion", " --help"} {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}

// networkVerbs are subcommands that download or talk to a server.
var networkVerbs = map[string]bool{
	"ci": true, "install": true, "i": true, "add": true, "fetch": true, "download": true, "pull": true,
	"clone": true, "get": true, "apply": true, "create": true, "patch": true, "update": true, "upgrade": true,
	"push": true, "login": true, "join": true, "label": true, "annotate": true, "delete": true, "repo": true,
	"mod": true, "build": true, "run": true, "wait": true, "rollout": true, "dependency": true, "resolve": true,
	"sync": true, "restore": true, "exec": true, "cp": true, "scale": true, "set": true, "replace": true,
}

// subcommand returns the first non-flag argument after the program name.
func subcommand(n *harness.Node) string {
	args := n.EffectiveArgs()
	for i := 1; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			if !strings.Contains(a, "=") && i+1 < len(args) && flagTakesValue(a) {
				i++
			}
			continue
		}
		return a
	}
	return ""
}

// flagTakesValue lists common flags that take a separate value.
func flagTakesValue(f string) bool {
	switch f {
	case "-n", "--namespace", "--kubeconfig", "--context", "-f", "--file", "-C", "-o", "-c", "--config",
		"--cluster", "-l", "--selector", "--name", "--timeout", "-t", "--tag", "-p", "--project", "--profile",
		"--region", "-s", "--server", "-e", "--env", "-v", "--volume", "-w", "--workdir", "--user", "-u":
		return true
	}
	return false
}

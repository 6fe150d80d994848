package diagnosis

import (
	"crypto/sha256"
	"fmt"
)

// secretInLog is a PHP project whose Composer step fails on a private
// package and prints, on its way, the credentials it was given: the job's
// installation token in a clone URL (a new token in every run) and a
// personal access token in an Authorization header. GitHub masks neither:
// the installation token was not passed as a secret, and the personal one
// came from a file. The failure happens on a pull request.
var secretInLog = genScenario{name: "secret-in-log", workflow: "CI", steps: []string{"Install dependencies", "PHPUnit"},
	history: "..A....qQ.qq",
	pr:      genPR{number: 12, branch: "deps/billing-sdk"},
	failures: map[byte]genFailure{'A': {step: "Install dependencies", exit: 1, output: []string{
		"Installing dependencies from lock file (including require-dev)",
		"Verifying lock file contents can be installed on current platform.",
		"Package operations: 94 installs, 0 updates, 0 removals",
		"  - Syncing acme/billing-sdk (v2.4.1) into cache",
		"Downloading https://api.github.com/repos/acme/billing-sdk/zipball/0a1b2c3d4e5f60718293a4b5c6d7e8f901234567",
		"[Composer\\Downloader\\TransportException] request headers: Authorization: token " + secretPAT,
		"Executing command (CWD): git clone --mirror -- 'https://x-access-token:{token}@github.com/acme/billing-sdk.git' '/home/runner/.cache/composer/vcs/https---github.com-acme-billing-sdk.git/'",
		"",
		"In Git.php line 471:",
		"",
		"  Failed to execute git clone --mirror -- 'https://x-access-token:{token}@github.com/acme/billing-sdk.git' '/home/runner/.cache/composer/vcs/https---github.com-acme-billing-sdk.git/': fatal: Authentication failed for 'https://x-access-token:{token}@github.com/acme/billing-sdk.git/'",
		"",
		"install [--prefer-source] [--prefer-dist] [--prefer-install PREFER-INSTALL] [--dry-run] [--dev] [--no-dev] [--] [<packages>...]",
	}}},
	repo: map[string]string{
		".github/workflows/ci.yml": "name: CI\non:\n  push:\n    branches: [main]\n  pull_request:\njobs:\n  build:\n    runs-on: ubuntu-24.04\n" +
			"    steps:\n      - uses: actions/checkout@v4\n      - name: Install dependencies\n" +
			"        run: composer install --no-interaction --prefer-dist --no-progress\n" +
			"      - name: PHPUnit\n        run: vendor/bin/phpunit\n",
		"composer.json": "{\n  \"require\": {\n    \"acme/billing-sdk\": \"^2.4\"\n  },\n" +
			"  \"repositories\": [\n    {\"type\": \"vcs\", \"url\": \"https://github.com/acme/billing-sdk.git\"}\n  ]\n}\n",
	},
	// Each run prints its own token: only redacted signatures put the
	// three failures in one class.
	expect: map[string]any{"trigger_step": "Install dependencies", "cause_line_contains": "Failed to execute git clone",
		"window": map[string]int{"runs": 4, "failed": 3}, "trigger_cluster_count": 3, "clusters_in_trigger_step": 1},
}

// secretPAT is the personal access token the scenario's log prints.
const secretPAT = "ghp_Q7mZ2kLx9RtV4bNc8WdP1sYf6HjA3eUoG5iK"

// token is the installation token run i's job was given: "ghs_" and 36
// letters and digits, as GitHub issues them.
func (g genScenario) token(i int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	sum := sha256.Sum256([]byte(fmt.Sprintf("token/%s/%d", g.name, i)))
	b := make([]byte, 36)
	for k := range b {
		b[k] = alphabet[int(sum[k%len(sum)]+byte(k/len(sum)))%len(alphabet)]
	}
	return "ghs_" + string(b)
}

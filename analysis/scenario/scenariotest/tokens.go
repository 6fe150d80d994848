package scenariotest

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// GitHubToken matches a GitHub token as GitHub issues them: a type prefix
// and 36 letters and digits.
var GitHubToken = regexp.MustCompile(`gh[pousr]_[A-Za-z0-9]{36}`)

// PrintedTokens returns the distinct GitHub tokens that the job logs of the
// scenario at dir print, for tests that check Polylane never republishes
// them. It fails the test when there are fewer than two, since such a test
// would then prove nothing.
func PrintedTokens(t testing.TB, dir string) []string {
	t.Helper()
	logs, err := filepath.Glob(filepath.Join(dir, "logs", "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var tokens []string
	for _, p := range logs {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, tok := range GitHubToken.FindAllString(string(data), -1) {
			if !seen[tok] {
				seen[tok] = true
				tokens = append(tokens, tok)
			}
		}
	}
	if len(tokens) < 2 {
		t.Fatalf("the logs of %s print %d GitHub tokens: the test proves nothing", dir, len(tokens))
	}
	return tokens
}

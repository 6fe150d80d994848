package impact

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

// TestSecretReferencesAreNeverCIOnly: a diff that adds a secret or token
// reference is not CI-only, even when no fix described it, and each
// reference is listed with its file and line; a diff without one stays
// CI-only.
func TestSecretReferencesAreNeverCIOnly(t *testing.T) {
	wf := "name: CI\non: [push]\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make test\n"
	repo := fstest.MapFS{".github/workflows/ci.yml": {Data: []byte(wf)}}
	diffOf := func(added ...string) string {
		var b strings.Builder
		b.WriteString("diff --git a/.github/workflows/ci.yml b/.github/workflows/ci.yml\n--- a/.github/workflows/ci.yml\n+++ b/.github/workflows/ci.yml\n")
		fmt.Fprintf(&b, "@@ -7,1 +7,%d @@\n       - run: make test\n", 1+len(added))
		for _, a := range added {
			b.WriteString("+" + a + "\n")
		}
		return b.String()
	}
	tests := []struct {
		name   string
		added  []string
		secret string
		line   int
	}{
		{"none", []string{"        timeout-minutes: 30"}, "", 0},
		{"workflow token", []string{"        env:", "          GITHUB_TOKEN: ${{ github.token }}"}, "github.token", 9},
		{"repository secret", []string{"        env:", "          NPM_TOKEN: ${{ secrets.NPM_TOKEN }}"}, "secrets.NPM_TOKEN", 9},
		{"secret in an expression", []string{"        env:", "          T: ${{ secrets.GITHUB_TOKEN || '' }}"}, "secrets.GITHUB_TOKEN", 9},
		{"token used in a command", []string{`      - run: curl -H "Authorization: Bearer $GITHUB_TOKEN" https://api.github.com/`}, "GITHUB_TOKEN", 8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			im, err := AssessDiff(repo, "o/r", diffOf(tc.added...))
			if err != nil {
				t.Fatal(err)
			}
			if tc.secret == "" {
				if !im.CIOnly || len(im.Credentials) != 0 {
					t.Fatalf("ci_only %v, credentials %+v for a diff without a secret", im.CIOnly, im.Credentials)
				}
				return
			}
			if im.CIOnly || !strings.Contains(im.Summary, "not a CI-only change") || strings.Contains(im.Summary, "It is a CI-only change") {
				t.Fatalf("ci_only %v for a diff that adds %s: %s", im.CIOnly, tc.secret, im.Summary)
			}
			if len(im.Credentials) != 1 || im.Credentials[0].Secret != tc.secret || im.Credentials[0].Line != tc.line ||
				im.Credentials[0].File != ".github/workflows/ci.yml" || !strings.Contains(im.Credentials[0].Exposure, tc.secret) {
				t.Fatalf("credentials %+v, want %s at line %d", im.Credentials, tc.secret, tc.line)
			}
		})
	}
}

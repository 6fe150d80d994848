package narrator

import (
	"strings"
	"testing"
)

// TestRedactIsTheSharedTable: text for the model goes through the shared
// table (a secret named by its kind) and the random-string heuristic, and
// keeps GitHub's masks and commit SHAs. The tables themselves are tested in
// analysis/redact.
func TestRedactIsTheSharedTable(t *testing.T) {
	cases := []struct{ in, want string }{
		{"export GH_TOKEN=ghp_R2d2C3poX9y8W7v6U5t4S3r2Q1p0O9n8M7l6", "export GH_TOKEN=[redacted: GitHub token]"},
		{"mysql -uroot -pS3cretPass -e 'select 1'", "mysql -uroot -p[redacted: password] -e 'select 1'"},
		{"signing with Zk8q2LmP9xR4tV7nB3cW6yH1jD5sF0gA", "signing with [redacted: random-looking string]"},
		{"GITHUB_TOKEN: ***", "GITHUB_TOKEN: ***"},
		{"head 4f1c2a9e8b7d6c5a4f3e2d1c0b9a8f7e6d5c4b3a", "head 4f1c2a9e8b7d6c5a4f3e2d1c0b9a8f7e6d5c4b3a"},
	}
	for _, tc := range cases {
		if got := Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if !strings.HasPrefix(Redact("password=hunter2"), "password="+Redacted) {
		t.Errorf("Redacted %q does not start the marker", Redacted)
	}
}

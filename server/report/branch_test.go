package report

import (
	"os/exec"
	"strings"
	"testing"
)

func TestFixBranch(t *testing.T) {
	tests := []struct{ in, want string }{
		{"provision-kind-karmada-169de4534c", "polylane/fix-provision-kind-karmada-169de4534c"},
		{"Run Unit Tests!", "polylane/fix-run-unit-tests"},
		{"a..b", "polylane/fix-a.b"},
		{"x.lock", "polylane/fix-x"},
		{"x.lock.lock", "polylane/fix-x"},
		{"@{u}", "polylane/fix-u"},
		{"--", "polylane/fix-class"},
		{"", "polylane/fix-class"},
		{"日本語", "polylane/fix-class"},
		{".hidden/x", "polylane/fix-hidden-x"},
		{strings.Repeat("ab", 100), "polylane/fix-" + strings.Repeat("ab", 40)},
	}
	for _, tc := range tests {
		if got := FixBranch(tc.in); got != tc.want {
			t.Errorf("FixBranch(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzFixBranch checks that every branch name is a valid git ref, with
// git itself when it is installed.
func FuzzFixBranch(f *testing.F) {
	for _, s := range []string{"a", "a..b", "x.lock", "@{", " ~^:?*[\\", "-.-", "a/./b"} {
		f.Add(s)
	}
	git, _ := exec.LookPath("git")
	f.Fuzz(func(t *testing.T, s string) {
		b := FixBranch(s)
		if !strings.HasPrefix(b, FixBranchPrefix) || len(b) > len(FixBranchPrefix)+maxBranchID {
			t.Fatalf("FixBranch(%q) = %q", s, b)
		}
		for _, bad := range []string{"..", "@{", "//", " ", "~", "^", ":", "?", "*", "[", "\\"} {
			if strings.Contains(b, bad) {
				t.Fatalf("FixBranch(%q) = %q holds %q", s, b, bad)
			}
		}
		if strings.HasSuffix(b, ".lock") || strings.HasSuffix(b, ".") || strings.HasSuffix(b, "-") || strings.Contains(b, "/.") {
			t.Fatalf("FixBranch(%q) = %q has a bad ending or component", s, b)
		}
		if git != "" {
			if out, err := exec.Command(git, "check-ref-format", "--branch", b).CombinedOutput(); err != nil {
				t.Fatalf("git rejects %q: %v %s", b, err, out)
			}
		}
	})
}

package narrator

import (
	"strings"
	"testing"
)

func TestRedactRemovesSecrets(t *testing.T) {
	cases := []struct {
		name, in, secret, keep string
	}{
		{"github personal token", "export GH_TOKEN=ghp_R2d2C3poX9y8W7v6U5t4S3r2Q1p0O9n8M7l6", "ghp_R2d2C3poX9y8W7v6U5t4S3r2Q1p0O9n8M7l6", "export"},
		{"github server token", "using ghs_16C7e42F292c6912E7710c838347Ae178B4a", "ghs_16C7e42F292c6912E7710c838347Ae178B4a", "using"},
		{"github user token", "ghu_abcdefghijklmnopqrstuvwxyzABCDEF0123 in env", "ghu_abcdefghijklmnopqrstuvwxyzABCDEF0123", "in env"},
		{"fine-grained token", "token github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ012345", "github_pat_11ABCDEFG0", "token"},
		{"aws access key id", "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE", "AWS_ACCESS_KEY_ID"},
		{"aws secret key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key"},
		{"bearer header", "curl -H 'Authorization: Bearer abc.def-ghi_jkl123456' https://api.example.com", "abc.def-ghi_jkl123456", "curl -H"},
		{"basic credentials", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA==", "Authorization"},
		{"url credentials", "git clone https://deploy:s3cr3tPa55@github.com/o/r.git", "s3cr3tPa55", "github.com/o/r.git"},
		{"url user token", "pip install git+https://x-access-token:ghs_zzz@github.com/o/r", "x-access-token", "github.com/o/r"},
		{"password assignment", `DB_PASSWORD="hunter2-correct-horse"`, "hunter2-correct-horse", "DB_PASSWORD"},
		{"api key json", `{"api_key": "k-9f8e7d6c5b4a"}`, "k-9f8e7d6c5b4a", "api_key"},
		{"private key block", "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nabc\n-----END RSA PRIVATE KEY-----\nafter", "MIIEowIBAAKCAQEA7", "after"},
		{"cut private key block", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA", "b3BlbnNzaC1rZXktdjEAAAAA", ""},
		{"slack token", "xoxb-123456789012-abcdefghijkl", "xoxb-123456789012", ""},
		{"npm token", "//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789", "npm_abcdefghijklmnopqrstuvwxyz0123456789", "registry.npmjs.org"},
		{"jwt", "id eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "eyJhbGciOiJIUzI1NiJ9", "id"},
		{"high entropy", "signing with Zk8q2LmP9xR4tV7nB3cW6yH1jD5sF0gA", "Zk8q2LmP9xR4tV7nB3cW6yH1jD5sF0gA", "signing with"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := Redact(tc.in)
			if strings.Contains(out, tc.secret) {
				t.Fatalf("Redact(%q) = %q still holds %q", tc.in, out, tc.secret)
			}
			if !strings.Contains(out, Redacted) {
				t.Fatalf("Redact(%q) = %q has no %s marker", tc.in, out, Redacted)
			}
			if tc.keep != "" && !strings.Contains(out, tc.keep) {
				t.Fatalf("Redact(%q) = %q lost %q", tc.in, out, tc.keep)
			}
		})
	}
}

func TestRedactKeepsFacts(t *testing.T) {
	cases := []string{
		"head 4f1c2a9e8b7d6c5a4f3e2d1c0b9a8f7e6d5c4b3a and first bad deadbeef0123456789abcdef0123456789abcdef",
		"digest sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		"class provision-test-cluster-5e6f7a8b9c and run-chainsaw-e2e-suites-73c2204fc7",
		"request 123e4567-e89b-12d3-a456-426614174000",
		"hack/e2e/patch-cluster-secret.sh runs kubectl --kubeconfig ${KARMADA_KUBECONFIG} apply",
		"deployment.apps/karmada-kube-controller-manager patched",
		"GITHUB_TOKEN: ***",
		"Authorization: ***",
		"password: ***",
		"the token budget is spent; max_tokens=800",
		"https://github.com/orbit-labs/skyline/actions/runs/7300112233",
		"ghcr.io/datum-cloud/compute:v1.2.3",
		"TestBalanceRounding_WithNegativeAmountsAndLargeValues2",
		"read tcp 127.0.0.1:59253->127.0.0.1:32443: read: connection reset by peer",
		"github.com/sashabaranov/go-openai v1.43.0 h1:HNRpO8TAQ01ssO7aPXO",
	}
	for _, in := range cases {
		if out := Redact(in); out != in {
			t.Errorf("Redact changed a non-secret:\n in: %q\nout: %q", in, out)
		}
	}
}

func FuzzRedact(f *testing.F) {
	f.Add("Bearer abcdefgh12345678 ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
	f.Add("-----BEGIN PRIVATE KEY-----")
	f.Add("https://u:p@h/ password=*** x")
	f.Fuzz(func(t *testing.T, s string) {
		once := Redact(s)
		if twice := Redact(once); twice != once {
			t.Fatalf("Redact is not idempotent: %q -> %q -> %q", s, once, twice)
		}
		if strings.Contains(once, "ghp_") && githubToken.MatchString(once) {
			t.Fatalf("a GitHub token survived: %q", once)
		}
	})
}

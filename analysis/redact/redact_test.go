package redact

import (
	"strings"
	"testing"
)

const (
	hex40 = "4f1c2a9e8b7d6c5a4f3e2d1c0b9a8f7e6d5c4b3a"
	hex64 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	uuid  = "123e4567-e89b-12d3-a456-426614174000"
	ghs   = "ghs_qNvAd8haSJiku0qoEV1ACoNVwvoaBz7erOwB"
	ghp   = "ghp_Q7mZ2kLx9RtV4bNc8WdP1sYf6HjA3eUoG5iK"
)

// TestSecretInLineIsRedacted: every form of credential the table knows is
// replaced by a marker that names its kind, and what is around it stays.
func TestSecretInLineIsRedacted(t *testing.T) {
	cases := []struct {
		name, in, secret, kind, keep string
	}{
		// M4: the forms a job log printed.
		{"installation token in a clone URL", "  Failed to execute git clone --mirror -- 'https://x-access-token:" + ghs + "@github.com/acme/sdk.git' '/home/runner/.cache'", ghs[4:], "GitHub token", "@github.com/acme/sdk.git"},
		{"token in an Authorization header", "request headers: Authorization: token " + ghp, ghp[4:], "GitHub token", "Authorization: token"},
		{"token in a composer config", "composer config --global github-oauth.github.com " + ghp, ghp[4:], "GitHub token", "github-oauth.github.com"},
		{"oauth token", "gho_16C7e42F292c6912E7710c838347Ae178B4a in env", "16C7e42F292c6912E7710c838347Ae178B4a", "GitHub token", "in env"},
		{"user-to-server token", "ghu_abcdefghijklmnopqrstuvwxyzABCDEF0123 in env", "abcdefghijklmnopqrstuvwxyzABCDEF0123", "GitHub token", "in env"},
		{"refresh token", "refresh=ghr_1B4a2e77838347a7E420ce178F2E7c6912E169246c34E1ccbF66C46812d16D5B1A9Dc86A1498", "1B4a2e77838347a7E420ce178F2E7c6912E1", "GitHub token", "refresh="},
		{"token glued to an underscore", "X_ghs_16C7e42F292c6912E7710c838347Ae178B4a_y", "16C7e42F292c6912E7710c838347Ae178B4a", "GitHub token", "X_"},
		{"fine-grained token", "token github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ012345", "11ABCDEFG0abcdefghijkl", "GitHub token", "token"},
		{"gitlab token", "GITLAB: glpat-z_sxgtrfAxKr8q1TPY8Y", "z_sxgtrfAxKr8q1TPY8Y", "GitLab token", "GITLAB"},
		{"aws access key id", "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE", "AWS access key", "AWS_ACCESS_KEY_ID="},
		{"aws secret key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI", "AWS secret key", "aws_secret_access_key"},
		{"aws credentials json", `"SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",`, "wJalrXUtnFEMI", "secret", `"SecretAccessKey":`},
		{"bearer header", "curl -H 'Authorization: Bearer abc.def-ghi_jkl123456' https://api.example.com", "abc.def-ghi_jkl123456", "bearer token", "https://api.example.com"},
		{"basic credentials", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA==", "basic auth credentials", "Authorization: Basic"},
		{"header with a masked part", "Authorization: token abc***xyz123", "xyz123", "authorization header", "Authorization:"},
		{"url credentials", "git clone https://deploy:s3cr3tPa55@github.com/o/r.git", "s3cr3tPa55", "URL credentials", "github.com/o/r.git"},
		{"url with a partly masked password", "pip install git+https://bot:abc***@pypi.example.com/simple", "bot:abc", "URL credentials", "@pypi.example.com/simple"},
		{"url user token", "pip install git+https://x-access-token:ghs_zzz@github.com/o/r", "x-access-token:ghs_zzz", "URL credentials", "github.com/o/r"},
		{"password assignment", `DB_PASSWORD="hunter2-correct-horse"`, "hunter2-correct-horse", "password", "DB_PASSWORD="},
		{"runner env dump", "  DB_PASSWORD: hunter2", "hunter2", "password", "DB_PASSWORD:"},
		{"plain password word at the line's end", "  password: changeme", "changeme", "password", "password:"},
		{"plain password word before a comment", "password: changeme # default", "changeme", "password", "password:"},
		{"mysql password env", "MYSQL_PWD=hunter2 mysql -uroot", "hunter2", "password", "mysql -uroot"},
		{"api key json", `{"api_key": "k-9f8e7d6c5b4a"}`, "k-9f8e7d6c5b4a", "API key", "api_key"},
		{"token in a query string", "GET /v1/items?access_token=abc123XYZ&page=2", "abc123XYZ", "token", "&page=2"},
		{"npmrc auth token", "//npm.pkg.github.com/:_authToken=abcdef0123456789", "abcdef0123456789", "token", "//npm.pkg.github.com/"},
		{"token flag", "deploy --token abc123def456 --env prod", "abc123def456", "token", "--env prod"},
		{"pat by name", "GH_PAT=abc123def456ghi789", "abc123def456ghi789", "token", "GH_PAT="},
		{"private key block", "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nabc\n-----END RSA PRIVATE KEY-----\nafter", "MIIEowIBAAKCAQEA7", "private key", "after"},
		{"cut private key block", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA", "b3BlbnNzaC1rZXktdjEAAAAA", "private key", ""},
		{"slack token", "xoxb-123456789012-abcdefghijkl", "xoxb-123456789012", "Slack token", ""},
		{"npm token", "//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789", "npm_abcdefghijklmnopqrstuvwxyz0123456789", "npm token", "registry.npmjs.org"},
		{"pypi token", "TWINE_PASSWORD pypi-AgEIcHlwaS5vcmcCJGI0YjdmZjU4LTQ5ZDgtNGJiMC1hOTBkLTI2MTZmMzRlNzI2OAACKlszLCJkZjQ", "AgEIcHlwaS5vcmc", "PyPI token", "TWINE_PASSWORD"},
		{"google api key", "maps key AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe", "SyDaGmWKa4JsXZ", "Google API key", "maps key"},
		{"stripe key", "charging with sk_live_4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjtT1zdp7dc", "Stripe key", "charging with"},
		{"openai key", "model client sk-proj-abc123def456ghi789jkl012", "abc123def456ghi789jkl012", "API key", "model client"},
		{"jwt", "id eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "eyJhbGciOiJIUzI1NiJ9", "JSON Web Token", "id"},
		// L2: the forms the review found let through.
		{"40-hex key by name", "API_KEY=" + hex40, hex40, "API key", "API_KEY="},
		{"64-hex secret by name", "SIGNING_SECRET=" + hex64, hex64, "secret", "SIGNING_SECRET="},
		{"40-hex token by name", "  GITHUB_TOKEN: " + hex40, hex40, "token", "GITHUB_TOKEN:"},
		{"value holding a mask", "password=abc***def", "abc***def", "password", "password="},
		{"mysql -p", "mysql -h 127.0.0.1 -uroot -pS3cretPass invoicer_test", "S3cretPass", "password", "invoicer_test"},
		{"mysqladmin -p quoted", "mysqladmin ping -h db -uroot -p'p@ss word'", "p@ss word", "password", "mysqladmin ping"},
		{"docker hub token", "docker login -u bot -p dckr_pat_2b3e36beeb386dfdaacb9b46004ccb7c", "2b3e36beeb386dfdaacb9b46004ccb7c", "Docker Hub token", "docker login -u bot -p"},
		{"docker login password", "docker login -u bot --password Winter2026! ghcr.io", "Winter2026!", "password", "ghcr.io"},
		{"slack webhook", "curl -X POST https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX -d @msg.json", "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", "Slack webhook URL", "-d @msg.json"},
		{"uuid key by name", "HEROKU_API_KEY=" + uuid, uuid, "API key", "HEROKU_API_KEY="},
		{"uuid key in an env dump", "  HEROKU_API_KEY: " + uuid, uuid, "API key", "HEROKU_API_KEY:"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, kinds := Line(tc.in)
			if strings.Contains(out, tc.secret) {
				t.Errorf("Line(%q) = %q still holds %q", tc.in, out, tc.secret)
			}
			if !strings.Contains(out, Marker(tc.kind)) {
				t.Errorf("Line(%q) = %q has no %s (kinds %v)", tc.in, out, Marker(tc.kind), kinds)
			}
			if !containsString(kinds, tc.kind) {
				t.Errorf("Line(%q) kinds = %v, want %q among them", tc.in, kinds, tc.kind)
			}
			if tc.keep != "" && !strings.Contains(out, tc.keep) {
				t.Errorf("Line(%q) = %q lost %q", tc.in, out, tc.keep)
			}
			if again := String(out); again != out {
				t.Errorf("not idempotent: %q -> %q", out, again)
			}
			if Strict(tc.in) == tc.in {
				t.Errorf("Strict(%q) changed nothing", tc.in)
			}
		})
	}
}

// TestSecretInLineLookAlikesStay: what has the shape of a secret but is none
// stays exactly as it was, in String and in Strict.
func TestSecretInLineLookAlikesStay(t *testing.T) {
	cases := []string{
		// commit SHAs and digests in their places
		"head " + hex40 + " and first bad deadbeef0123456789abcdef0123456789abcdef",
		"HEAD is now at " + hex40[:7] + " fix the build",
		"git checkout " + hex40,
		"Checking out the ref " + hex40,
		"commit: " + hex40,
		"GITHUB_SHA=" + hex40,
		"digest sha256:" + hex64,
		"docker pull ghcr.io/acme/app@sha256:" + hex64,
		"FROM node:20-alpine@sha256:" + hex64,
		// run, job and request ids, UUIDs not given as a key's value
		"https://github.com/orbit-labs/skyline/actions/runs/7300112233",
		"https://github.com/acme/shop/actions/runs/7300112233/job/21948576301",
		"Run ID 7300112233, job id 21948576301",
		"request " + uuid,
		"Error: request " + uuid + " failed with 503",
		"X-Request-Id: " + uuid,
		"class provision-test-cluster-5e6f7a8b9c and run-chainsaw-e2e-suites-73c2204fc7",
		// references to secrets, which are not secrets
		"token: ${{ secrets.NPM_TOKEN }}",
		"  NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}",
		"password: $DB_PASSWORD",
		"password=${DB_PASSWORD}",
		"mysql -uroot -p$MYSQL_ROOT_PASSWORD -e 'select 1'",
		"mysql -uroot -p\"${MYSQL_ROOT_PASSWORD}\" -e 'select 1'",
		"docker login -u bot -p \"$DOCKERHUB_TOKEN\"",
		"set PASSWORD=%DB_PASSWORD%",
		// GitHub's masks
		"GITHUB_TOKEN: ***",
		"Authorization: ***",
		"password: ***",
		`password: "***"`,
		"mysql -h 127.0.0.1 -P 3306 -uroot -p***",
		"git clone https://x-access-token:***@github.com/acme/shop.git",
		"https://***:***@registry.example.com/v2/",
		// flags and words around secrets
		"mysql -uroot -p -e 'show databases'",
		"mkdir -p /tmp/x && gcc -pthread -o a a.c",
		"docker run -p 3306:3306 mysql:8.4",
		"docker login --username bot --password-stdin ghcr.io",
		"Error: token expired",
		"token generation failed: invalid bearer token",
		"Basic authentication failed for user deploy",
		"authorization: required",
		"Error: Input required and not supplied: token",
		// a key word inside a message, not an assignment
		"failed to authorize: failed to fetch anonymous token: unexpected status from GET request to https://auth.docker.io/token?scope=repository%3Alibrary%2Fnode%3Apull&service=registry.docker.io: 429 Too Many Requests",
		"error: secret: not found in namespace default",
		"the token budget is spent; max_tokens=800",
		"TOKEN_URL=https://auth.example.com/token",
		"  key: composer-9b1f0c7e52a4d6",
		"cache key: node-modules-Linux-abc123",
		"passed: 12, failed: 1",
		"Error from server (NotFound): secrets \"db-creds\" not found",
		"  secret: true",
		// versions, paths, URLs without credentials
		"github.com/sashabaranov/go-openai v1.43.0 h1:HNRpO8TAQ01ssO7aPXO",
		"ghcr.io/datum-cloud/compute:v1.2.3",
		"node v20.11.1, npm 10.2.4, go1.22.3",
		"open /run/secrets/db_password: no such file or directory",
		"src/auth/token.go:42:7: undefined: NewToken",
		"--password-file=/etc/mysql/pw",
		"https://registry.npmjs.org/@types%2fnode",
		"git@github.com:acme/shop.git",
		"Using ssh://git@github.com/acme/shop.git",
		"##[group]Run actions/checkout@v4",
		"hack/e2e/patch-cluster-secret.sh runs kubectl --kubeconfig ${KARMADA_KUBECONFIG} apply",
		"deployment.apps/karmada-kube-controller-manager patched",
		"read tcp 127.0.0.1:59253->127.0.0.1:32443: read: connection reset by peer",
		"TestBalanceRounding_WithNegativeAmountsAndLargeValues2",
		"pip install scikit-learn==1.4.2",
		"2026-09-30T05:26:49.4810733Z SQLSTATE[HY000] [2002] Connection refused",
		// an earlier redaction
		"Authorization: token [redacted: GitHub token]",
		"https://x-access-token:[redacted: GitHub token]@github.com/acme/sdk.git",
		"DB_PASSWORD: [redacted: password]",
	}
	for _, in := range cases {
		if out, kinds := Line(in); out != in || len(kinds) != 0 {
			t.Errorf("Line changed a non-secret (kinds %v):\n in: %q\nout: %q", kinds, in, out)
		}
		if out := Strict(in); out != in {
			t.Errorf("Strict changed a non-secret:\n in: %q\nout: %q", in, out)
		}
	}
}

// TestStrictRandomStrings: Strict also removes a long random string the
// table cannot name.
func TestStrictRandomStrings(t *testing.T) {
	in := "signing with Zk8q2LmP9xR4tV7nB3cW6yH1jD5sF0gA"
	if out := Strict(in); strings.Contains(out, "Zk8q2LmP9xR4tV7nB3cW6yH1jD5sF0gA") || !strings.Contains(out, Marker(randomKind)) {
		t.Errorf("Strict(%q) = %q", in, out)
	}
	if out := String(in); out != in {
		t.Errorf("String(%q) = %q: the table alone must not guess", in, out)
	}
}

// TestLineKindsInOrder: each kind is reported once.
func TestLineKindsInOrder(t *testing.T) {
	_, kinds := Line("a " + ghs + " b " + ghs + " password=hunter2")
	if strings.Join(kinds, ",") != "GitHub token,password" {
		t.Errorf("kinds = %v", kinds)
	}
}

// TestTableFitsCandidates: candidates keeps one bit per row.
func TestTableFitsCandidates(t *testing.T) {
	if len(table) > 64 {
		t.Fatalf("the table has %d rows; candidates holds 64", len(table))
	}
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func FuzzRedact(f *testing.F) {
	f.Add("Bearer abcdefgh12345678 ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
	f.Add("-----BEGIN PRIVATE KEY-----")
	f.Add("https://u:p@h/ password=*** x")
	f.Add("Authorization: token " + ghp)
	f.Add("mysql -uroot -pabc***def")
	f.Fuzz(func(t *testing.T, s string) {
		once := String(s)
		if twice := String(once); twice != once {
			t.Fatalf("String is not idempotent: %q -> %q -> %q", s, once, twice)
		}
		strict := Strict(s)
		if again := Strict(strict); again != strict {
			t.Fatalf("Strict is not idempotent: %q -> %q -> %q", s, strict, again)
		}
		if m := githubToken.FindString(once); m != "" {
			t.Fatalf("a GitHub token survived: %q in %q", m, once)
		}
	})
}

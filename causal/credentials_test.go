package causal_test

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/polylane/polylane/causal"
)

// tokenCase is a job whose step "Fetch" hits GitHub's unauthenticated API
// limit in a curl call; script is the step's run: block, and files are
// the repository's other files.
func tokenCase(t *testing.T, run string, files map[string]string) *causal.Explanation {
	t.Helper()
	var wf strings.Builder
	wf.WriteString("name: CI\non: [push]\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - name: Fetch\n        run: |\n")
	for _, l := range strings.Split(strings.TrimRight(run, "\n"), "\n") {
		wf.WriteString("          " + l + "\n")
	}
	repo := fstest.MapFS{".github/workflows/ci.yml": {Data: []byte(wf.String())}}
	for p, text := range files {
		repo[p] = &fstest.MapFile{Data: []byte(text), Mode: 0o755}
	}
	c := synthCase{repo: repo}
	c.spec.Workflow, c.spec.Job, c.spec.Failing = ".github/workflows/ci.yml", "build", "Fetch"
	c.spec.Steps = []string{"Run actions/checkout@v4", "Fetch"}
	c.spec.Cause = "API rate limit exceeded"
	c.log = []string{"##[group]Run actions/checkout@v4", "##[endgroup]", "##[group]Run " + strings.SplitN(run, "\n", 2)[0],
		"shell: /usr/bin/bash -e {0}", "##[endgroup]", "curl: (22) The requested URL returned error: 403",
		`{"message":"API rate limit exceeded for 20.1.2.3. (But here's the good news: Authenticated requests get a higher rate limit.)"}`,
		"##[error]Process completed with exit code 22.", "Post job cleanup."}
	exp, err := causal.Explain(c.input(t))
	if err != nil {
		t.Fatal(err)
	}
	if exp.Chain.Mechanism.Category != "rate-limit" {
		t.Fatalf("mechanism %q, want rate-limit", exp.Chain.Mechanism.Category)
	}
	return exp
}

// diffOf returns the patch's diff, "" without a patch.
func diffOf(exp *causal.Explanation) string {
	if exp.Patch == nil {
		return ""
	}
	return exp.Patch.Diff
}

// TestTokenFixSendsTokenOnlyToGitHubAPI: the Authorization header goes only
// to a curl call whose every URL is GitHub's API after parsing; look-alike
// hosts, user information, other ports, a trailing dot, plain http, URLs
// from variables and options that send the request elsewhere get no token
// at all.
func TestTokenFixSendsTokenOnlyToGitHubAPI(t *testing.T) {
	tests := []struct {
		name, args string
		token      bool
	}{
		{"api.github.com", "https://api.github.com/repos/o/r/releases/latest", true},
		{"upper case", "https://API.GitHub.COM/repos/o/r/releases/latest", true},
		{"port 443", "https://api.github.com:443/repos/o/r/releases/latest", true},
		{"variables in the path", `"https://api.github.com/search/issues?q=repo:${REPO}+is:pr"`, true},
		{"header option first", `-H "Accept: application/vnd.github+json" https://api.github.com/repos/o/r`, true},
		{"look-alike suffix", "https://api.github.com.evil.example/repos/o/r", false},
		{"user information", "https://api.github.com@evil.example/repos/o/r", false},
		{"escaped user information", `"https://api.github.com\@evil.example/repos/o/r"`, false},
		{"host in the path", "https://evil.example/api.github.com/repos/o/r", false},
		{"host in the query", "https://evil.example/x?u=api.github.com", false},
		{"trailing dot", "https://api.github.com./repos/o/r", false},
		{"other port", "https://api.github.com:8443/repos/o/r", false},
		{"percent escape", "https://api%2egithub.com/repos/o/r", false},
		{"plain http", "http://api.github.com/repos/o/r", false},
		{"no scheme", "api.github.com/repos/o/r", false},
		{"host from a variable", `"https://${API_HOST}/repos/o/r"`, false},
		{"api url from the environment", `"$GITHUB_API_URL/repos/o/r"`, false},
		{"second url elsewhere", "https://api.github.com/repos/o/r https://evil.example/collect", false},
		{"curl glob", "https://{api.github.com,evil.example}/repos/o/r", false},
		{"resolve to another address", "--resolve api.github.com:443:203.0.113.7 https://api.github.com/repos/o/r", false},
		{"connect elsewhere", "--connect-to api.github.com:443:evil.example:443 https://api.github.com/repos/o/r", false},
		{"options from a file", "-K curl.cfg https://api.github.com/repos/o/r", false},
		{"proxy", "-x http://evil.example:3128 https://api.github.com/repos/o/r", false},
		{"no certificate check", "-k https://api.github.com/repos/o/r", false},
		{"options from a variable", `$CURL_OPTS https://api.github.com/repos/o/r`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			script := "#!/usr/bin/env bash\nset -euo pipefail\ncurl -fsSL " + tc.args + " -o latest.json\njq -r .tag_name latest.json\n"
			exp := tokenCase(t, "./hack/fetch.sh", map[string]string{"hack/fetch.sh": script})
			diff := diffOf(exp)
			if got := strings.Contains(diff, "Authorization"); got != tc.token {
				t.Fatalf("Authorization header in the patch = %v, want %v:\n%s\n%s", got, tc.token, diff, exp.WhyThisFix)
			}
			if !tc.token && (strings.Contains(diff, "github.token") || strings.Contains(diff, "GITHUB_TOKEN")) {
				t.Fatalf("the patch passes the token to a curl call whose destination is not GitHub's API:\n%s", diff)
			}
		})
	}
}

// TestTokenFixUsesTheWorkflowAPIURL: in a workflow file, a URL built from
// ${{ github.api_url }} (the GitHub, or GitHub Enterprise Server, that runs
// the workflow) gets the token; the same text in a script is not an
// expression and gets none.
func TestTokenFixUsesTheWorkflowAPIURL(t *testing.T) {
	exp := tokenCase(t, `curl -fsSL "${{ github.api_url }}/repos/o/r/releases/latest" -o latest.json`, nil)
	if d := diffOf(exp); !strings.Contains(d, "Authorization") || !strings.Contains(d, "GITHUB_TOKEN: ${{ github.token }}") {
		t.Fatalf("no token for the workflow's own API:\n%s\n%s", d, exp.WhyThisFix)
	}
	script := "#!/usr/bin/env bash\ncurl -fsSL \"${{ github.api_url }}/repos/o/r\" -o latest.json\n"
	exp = tokenCase(t, "./hack/fetch.sh", map[string]string{"hack/fetch.sh": script})
	if d := diffOf(exp); strings.Contains(d, "GITHUB_TOKEN") {
		t.Fatalf("a script's literal ${{ github.api_url }} got the token:\n%s", d)
	}
}

// TestTokenFixNeverSharesAStep: a step that runs other commands besides the
// GitHub API call (npm ci, whose install scripts are anyone's code) gets no
// token in its env; the note says how to give it to the call alone.
func TestTokenFixNeverSharesAStep(t *testing.T) {
	for _, run := range []string{
		"npm ci\ncurl -fsSL https://api.github.com/repos/o/r/releases/latest -o latest.json",
		"curl -fsSL https://api.github.com/repos/o/r/releases/latest -o latest.json\nnpm ci",
		"./hack/build.sh && curl -fsSL https://api.github.com/repos/o/r/releases/latest -o latest.json",
	} {
		exp := tokenCase(t, run, map[string]string{"hack/build.sh": "#!/bin/sh\nmake\n"})
		if d := diffOf(exp); strings.Contains(d, "github.token") || strings.Contains(d, "GITHUB_TOKEN") {
			t.Fatalf("run %q: the token goes to a step that runs other commands:\n%s", run, d)
		}
		if !strings.Contains(exp.WhyThisFix, "step of its own") {
			t.Errorf("run %q: the note does not say how to give the token to the call alone: %s", run, exp.WhyThisFix)
		}
	}
}

// TestCredentialPatchIsNeverCIOnly: a patch that passes the workflow's token
// is not CI-only, and its impact says what receives the token and where it
// goes. The impact is read as JSON, the contract's shape.
func TestCredentialPatchIsNeverCIOnly(t *testing.T) {
	script := "#!/usr/bin/env bash\nset -euo pipefail\ncurl -fsSL https://api.github.com/repos/o/r/releases/latest -o latest.json\n"
	exp := tokenCase(t, "./hack/fetch.sh", map[string]string{"hack/fetch.sh": script})
	if exp.Patch == nil || exp.Impact == nil {
		t.Fatalf("no patch or impact: %s", exp.WhyThisFix)
	}
	b, err := json.Marshal(exp.Impact)
	if err != nil {
		t.Fatal(err)
	}
	var im struct {
		CIOnly      bool   `json:"ci_only"`
		Summary     string `json:"summary"`
		Credentials []struct {
			Secret, File, Command, Exposure string
			Hosts                           []string
		} `json:"credentials"`
	}
	if err := json.Unmarshal(b, &im); err != nil {
		t.Fatal(err)
	}
	if im.CIOnly || strings.Contains(im.Summary, "CI-only change.") && !strings.Contains(im.Summary, "not a CI-only") {
		t.Fatalf("a patch that passes the token is called CI-only: %s", b)
	}
	var all string
	for _, c := range im.Credentials {
		all += c.Exposure + " | "
	}
	for _, want := range []string{"GITHUB_TOKEN", "./hack/fetch.sh", "curl", "api.github.com"} {
		if !strings.Contains(all, want) {
			t.Errorf("the impact's credentials do not name %q: %s", want, b)
		}
	}
}

// registryCase is a job whose step "Pull" is refused by a registry's rate
// limit; run is the step's run: block and cause the refusal.
func registryCase(t *testing.T, run, cause string) *causal.Explanation {
	t.Helper()
	wf := "name: CI\non: [push]\njobs:\n  e2e:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n\n      - name: Pull\n        run: " + run + "\n\n      - name: Test\n        run: make e2e\n"
	c := synthCase{repo: fstest.MapFS{".github/workflows/ci.yml": {Data: []byte(wf)}}}
	c.spec.Workflow, c.spec.Job, c.spec.Failing = ".github/workflows/ci.yml", "e2e", "Pull"
	c.spec.Steps = []string{"Run actions/checkout@v4", "Pull", "Test"}
	c.spec.Cause = "toomanyrequests"
	c.log = []string{"##[group]Run actions/checkout@v4", "##[endgroup]", "##[group]Run " + run, "shell: /usr/bin/bash -e {0}", "##[endgroup]",
		"Error response from daemon: " + cause, "##[error]Process completed with exit code 1.", "Post job cleanup."}
	exp, err := causal.Explain(c.input(t))
	if err != nil {
		t.Fatal(err)
	}
	return exp
}

// TestRegistryLoginOnlyForDockerHub: the Docker Hub login is proposed only
// for a pull from Docker Hub, only around a step that runs nothing else,
// and it logs out right after the step so that later steps cannot read the
// credential.
func TestRegistryLoginOnlyForDockerHub(t *testing.T) {
	hub := "toomanyrequests: You have reached your unauthenticated pull rate limit. https://www.docker.com/increase-rate-limit"
	tests := []struct {
		name, run, cause string
		login            bool
	}{
		{"docker hub image", "docker pull redis:7", "toomanyrequests: Too Many Requests", true},
		{"docker hub by name", "docker pull docker.io/library/redis:7", "toomanyrequests: Too Many Requests", true},
		{"image from a variable, Docker Hub's message", `docker pull "$IMAGE"`, hub, true},
		{"another registry", "docker pull ghcr.io/o/app:1", "toomanyrequests: Too Many Requests", false},
		{"another registry that claims to be Docker Hub", "docker pull quay.io/o/app:1", hub, false},
		{"unknown registry", `docker pull "$IMAGE"`, "toomanyrequests: Too Many Requests", false},
		{"shared step", "npm ci && docker pull redis:7", hub, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			exp := registryCase(t, tc.run, tc.cause)
			d := diffOf(exp)
			if got := strings.Contains(d, "docker/login-action"); got != tc.login {
				t.Fatalf("login = %v, want %v:\n%s\n%s", got, tc.login, d, exp.WhyThisFix)
			}
			if tc.login && !strings.Contains(d, "run: docker logout") {
				t.Fatalf("the login is not undone after the step:\n%s", d)
			}
			if !tc.login && strings.Contains(d, "secrets.") {
				t.Fatalf("a secret is passed:\n%s", d)
			}
		})
	}
}

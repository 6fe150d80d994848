package report

import (
	"strings"
	"testing"

	"github.com/polylane/polylane/causal/impact"
)

// TestCredentialPatchRendering: a patch that passes a credential is shown
// as not CI-only with what it exposes to which command and host (hostile
// text in it stays inert), and a withheld fix says in the comment why no
// pull request is opened and how to allow it; the fix pull request's own
// body does not.
func TestCredentialPatchRendering(t *testing.T) {
	d := loadFixture(t, "rollout-race")
	d.Impact.CIOnly = false
	d.Impact.Credentials = []impact.Credential{{Secret: "github.token", File: "Taskfile.yml", Command: "curl", Hosts: []string{"api.github.com"},
		Exposure: "passes the workflow's GITHUB_TOKEN to `curl` <b>PWNED</b> @mallory https://evil.example/PWNED, which sends it to api.github.com"}}
	opts := Options{BotLogin: "polylane[bot]", FixWithheld: []string{WithheldWorkflows, WithheldCredential}}
	s := safety{repo: d.Repository, token: "PWNED"}
	out, err := Comment(d, opts)
	if err != nil {
		t.Fatal(err)
	}
	checkDocument(t, out, KindAssessment, d, s)
	for _, want := range []string{"**Not a CI-only change: the patch passes a credential.**", "api.github.com",
		"Polylane opens no pull request for this fix because it changes a workflow file", "`fix_pull_requests.workflows: true`",
		"never opens this fix as a pull request on its own because it passes a credential", "`@polylane fix`"} {
		if !strings.Contains(out, want) {
			t.Errorf("comment lacks %q", want)
		}
	}
	if strings.Contains(out, "**CI-only change") || strings.Contains(out, "reaches nothing that is deployed") {
		t.Errorf("a patch that passes a credential is called CI-only")
	}
	_, body, err := PullRequest(d, opts)
	if err != nil {
		t.Fatal(err)
	}
	checkDocument(t, body, KindFixPR, d, s)
	if !strings.Contains(body, "Not a CI-only change") || strings.Contains(body, "opens no pull request") {
		t.Errorf("fix pull request body: credential block %v, withheld sentence %v",
			strings.Contains(body, "Not a CI-only change"), strings.Contains(body, "opens no pull request"))
	}
}

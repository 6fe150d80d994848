package causal

// Mechanisms of rate limits of registries and the GitHub API.

import (
	"fmt"
	"regexp"

	"github.com/polylane/polylane/analysis/history"
	"github.com/polylane/polylane/causal/harness"
)

var ruleRegistryRateLimit = rule{ExplainsTests: true, ID: "rate-limit/registry", Category: RateLimit, Catalogue: 7, Wide: true,
	Cause: res(`toomanyrequests`, `(?i)pull rate limit`, `(?i)429 Too Many Requests`, `(?i)status code 429`, `(?i)rate limit exceeded.*(docker|registry|pull)`),
	// A package registry's 429 in a package manager's wording is no
	// container pull: npm's registry, a Maven repository through Gradle,
	// crates.io refusing a publish, curl's or wget's download of a file
	// (their families say what happened).
	Not: res(`npm (?:ERR!|error) 429 Too Many Requests`, `Received status code 429 from server`, `published too many (?:new crates|crates|updates to existing crates)\b`,
		`curl: \(22\) The requested URL returned error: 429\b`, `HTTP request sent, awaiting response\.\.\. 429\b`),
	Producer: roleEmitter, Fix: fixRegistryAuth,
	Summary: "{emitter_desc} hit the container registry's pull rate limit: '{cause_short}'{cause_cite}. The pull is anonymous, and anonymous pulls share a small quota per runner IP address."}

var ruleGitHubRateLimit = rule{ID: "rate-limit/github-api", Category: RateLimit, Catalogue: 22, Wide: true, Catalogued: true,
	Cause:    res(`API rate limit exceeded`, `(?i)secondary rate limit`, `(?i)rate limit exceeded for`),
	Producer: roleEmitter, Fix: fixGitHubToken,
	Summary: "{emitter_desc} called the GitHub API without a token and hit the unauthenticated rate limit: '{cause_short}'{cause_cite}. That quota is shared by every job on the runner's IP address."}

// ruleGitHubAnonymousScript: a script of the harness asks the GitHub API
// for something (the latest release, typically) without a token and
// prints its own failure when the answer is not what it expected. The
// response never reaches the log (it goes into sed or jq), so the limit is
// read from the code: the message follows an anonymous call to
// api.github.com, and the failure comes and goes, as GitHub's limit of 60
// anonymous requests an hour per IP address does on shared runners.
// Maintainers fixed it by passing the workflow's token to the script and
// sending it from the call: stripe/stripe-cli#1787,
// langchain-ai/langsmith-cli#177, navikt/copilot#587,
// jaseci-labs/jac#7112, aws-cloudformation/cloudformation-guard#742.
var ruleGitHubAnonymousScript = rule{ID: "rate-limit/github-api-anonymous-script", Category: RateLimit, Catalogue: 22,
	Cause:    res(`(?i)\b(?:error|fail(?:ed|ure)?|could ?n[o']t|unable to|cannot)\b`),
	Verdicts: []string{history.Flaky}, Harness: (*explainer).anonymousGitHubCall,
	Producer: roleEmitter, Fix: fixScriptGitHubToken, Cases: []string{"stripe/stripe-cli"},
	Summary: "{emitter_desc} printed its own failure after {api_call}, an anonymous call to the GitHub API: '{cause_short}'{cause_cite}. The answer itself is not in the log, but the failure comes and goes, " +
		"which is how GitHub's limit of 60 anonymous requests an hour per IP address shows on shared runners; a token raises it.",
	Values: map[string]summaryValue{"api_call": valueAPICall}}

// githubAPI matches a GitHub REST API address.
var githubAPI = regexp.MustCompile(`https://api\.github\.com/`)

// tokenWords mark a call that already authenticates.
var tokenWords = regexp.MustCompile(`(?i)authorization|GITHUB_TOKEN|GH_TOKEN|\btoken\b|--user\b|-u\s`)

// anonymousGitHubCall holds when the emitter is the harness's own echo of
// the cause line and a command it reports on (or the function call that
// runs it) addresses api.github.com without a token.
func (x *explainer) anonymousGitHubCall() (finding, bool) {
	if x.em.Node == nil || !quiet[x.em.Node.Tool()] || x.apiCall() == nil {
		return finding{}, false
	}
	return finding{}, true
}

// apiCall returns the anonymous GitHub API call the emitter's message
// reports on: a fetching command, or the function call around it, whose
// text names api.github.com and no credential.
func (x *facts) apiCall() *harness.Node {
	for _, n := range x.reportedCommands() {
		if t := n.Tool(); t != "curl" && t != "wget" {
			continue
		}
		for c := n; c != nil && c.Kind != harness.NodeScript && c.Kind != harness.NodeStep; c = c.Parent {
			if c.Kind != harness.NodeCommand {
				continue
			}
			text := c.ExpandVars(c.Text)
			if tokenWords.MatchString(text) {
				break
			}
			if githubAPI.MatchString(text) {
				return c
			}
		}
	}
	return nil
}

func valueAPICall(x *explainer) string {
	n := x.apiCall()
	if n == nil {
		return "a call to the GitHub API"
	}
	return fmt.Sprintf("`%s` (%s:%d)", clipText(firstLineOf(n.Text), 100), n.File, n.Line)
}

package causal

import (
	"fmt"
	"strings"

	"github.com/polylane/polylane/causal/harness"
	"github.com/polylane/polylane/causal/impact"
	"github.com/polylane/polylane/causal/patch"
)

// Fixes that pass a credential follow three rules, because a repository's
// files, logs and pull requests are written by people Polylane must not
// hand a token to:
//
//   - the destination is read from the command, exactly: a URL's host after
//     parsing (never a substring), a literal image's registry; a destination
//     built from variables or options that redirect the request is unknown,
//     and an unknown destination gets no credential;
//   - the credential goes to one step that runs nothing but the command that
//     needs it (its env, or the action's input), never to a step that runs
//     other commands nor to the job;
//   - the fix describes what it exposes to which command and host
//     (fixPlan.Credentials), so the impact is never CI-only.
//
// The shape is a step's env rather than a "NAME=${{ github.token }} cmd"
// prefix on the command line: the runner writes a run: script to a file on
// the runner with its expressions already substituted, so a prefix would
// put the token in a file that every other command of the step (an npm
// install script, say) can read, while a step's env reaches only the
// processes of that step. actionlint accepts both.

// tokenInputs are setup actions' inputs that take a GitHub token.
var tokenInputs = map[string]string{
	"actions/setup-go": "token", "actions/setup-node": "token", "actions/setup-python": "token",
	"arduino/setup-task": "repo-token", "arduino/setup-protoc": "repo-token", "azure/setup-helm": "token",
	"azure/setup-kubectl": "token",
}

// quietCommands are shell builtins and utilities that run no code of the
// repository or of a package registry; they may share a step with the
// command a credential is for.
var quietCommands = map[string]bool{
	"set": true, "cd": true, "export": true, "echo": true, "printf": true, "true": true, "false": true,
	":": true, "test": true, "[": true, "[[": true, "shift": true, "unset": true, "local": true,
	"declare": true, "readonly": true, "exit": true, "return": true, "sleep": true, "break": true,
	"continue": true, "wait": true, "trap": true, "umask": true, "shopt": true,
}

// fixGitHubToken authenticates the GitHub API calls of the failing step
// with the workflow's token: in the action's token input, or in the env of
// a step whose only command makes the calls, with an Authorization header
// on a curl call whose every URL is GitHub's API.
func fixGitHubToken(x *fixContext) (*fixPlan, error) {
	if x.wf == nil || x.step == nil {
		return nil, noFix("the failing workflow step was not located")
	}
	content, err := x.repo.ReadFile(x.wf.Path)
	if err != nil {
		return nil, noFix("cannot read %s", x.wf.Path)
	}
	s := x.step
	switch {
	case s.Uses != "":
		return tokenInput(x.facts, content)
	case s.Run == "":
		return nil, noFix("the step neither runs a script nor uses an action")
	}
	for k := range s.Env {
		if k == "GITHUB_TOKEN" || k == "GH_TOKEN" {
			return nil, noFix("the step already passes a token")
		}
	}
	n := x.fixTarget()
	if n == nil || n.Cmd == nil {
		return nil, noFix("the command that called the GitHub API was not located, so Polylane gives the token to no command")
	}
	if n.Tool() == "composer" || (x.family != nil && x.family.Tool == "composer") {
		return composerToken(x, content, n)
	}
	hosts, err := x.tokenHosts(n)
	if err != nil {
		return nil, err
	}
	top, err := x.dedicatedStep(n, "the workflow's token")
	if err != nil {
		return nil, err
	}
	out, err := patch.AddStepEnv(content, stepSpan(s), "GITHUB_TOKEN", "${{ github.token }}")
	if err != nil {
		return nil, noFix("%v", err)
	}
	edits := []patch.FileEdit{{Path: x.wf.Path, Old: content, New: out}}
	header := ""
	if n.Tool() == "curl" && !strings.Contains(n.Text, "Authorization") {
		if edits, err = x.authorizeCurl(n, edits); err != nil {
			return nil, err
		}
		header = fmt.Sprintf(" The curl call to %s now sends that token when it is set.", strings.Join(hosts, ", "))
	}
	rationale := fmt.Sprintf("The step called the GitHub API without a token and hit the unauthenticated limit of 60 requests per hour per IP address%s. "+
		"Passing the workflow's own token raises the quota to the repository's and needs no new secret; it goes only to this step, whose one command makes the call.%s",
		cite(x.ids["cause"]...), header)
	return &fixPlan{Title: "Authenticate the GitHub API calls of " + s.DisplayName(), Rationale: rationale, Edits: edits,
		Credentials: tokenCredentials(x.facts, n, top, hosts)}, nil
}

// composerAuth is the COMPOSER_AUTH value that gives Composer the
// workflow's token for GitHub. Composer reads the variable as auth.json and
// sends a github-oauth token only to GitHub's hosts
// (https://getcomposer.org/doc/articles/authentication-for-private-packages.md#github-oauth);
// maintainers pass it this way (laminas/laminas-continuous-integration-action#42).
const composerAuth = `'{"github-oauth": {"github.com": "${{ github.token }}"}}'`

// composerToken gives Composer, run by the step's one command, the
// workflow's token through COMPOSER_AUTH.
func composerToken(x *fixContext, content []byte, n *harness.Node) (*fixPlan, error) {
	s := x.step
	for _, env := range []map[string]harness.Value{s.Env, x.job.Env, x.wf.Env} {
		for k := range env {
			if k == "COMPOSER_AUTH" || k == "COMPOSER_TOKEN" {
				return nil, noFix("Composer is already given credentials (%s), so the refusal is not the anonymous limit", k)
			}
		}
	}
	top, err := x.dedicatedStep(n, "the workflow's token")
	if err != nil {
		return nil, err
	}
	out, err := patch.AddStepEnv(content, stepSpan(s), "COMPOSER_AUTH", composerAuth)
	if err != nil {
		return nil, noFix("%v", err)
	}
	hosts := []string{"github.com", githubAPIHost}
	rationale := fmt.Sprintf("Composer fetched from GitHub anonymously and was refused once the runner's address had used up GitHub's unauthenticated quota%s. "+
		"The patch hands Composer the workflow's own token through COMPOSER_AUTH, which Composer uses only for GitHub; no new secret is needed, and only this step, whose one command runs Composer, gets it.",
		cite(x.ids["cause"]...))
	creds := []impact.Credential{{Secret: "github.token", File: x.wf.Path, Command: top.Cmd.Name(), Hosts: hosts,
		Exposure: fmt.Sprintf("passes the workflow's GITHUB_TOKEN as COMPOSER_AUTH to the step %q, whose only command `%s` runs Composer, which sends it to %s", s.DisplayName(), top.Cmd.Name(), strings.Join(hosts, ", "))}}
	return &fixPlan{Title: "Give Composer the workflow's token in " + s.DisplayName(), Rationale: rationale,
		Edits: []patch.FileEdit{{Path: x.wf.Path, Old: content, New: out}}, Credentials: creds}, nil
}

// tokenInput passes the workflow's token to a setup action's token input.
func tokenInput(x *facts, content []byte) (*fixPlan, error) {
	s := x.step
	action, _, _ := strings.Cut(s.Uses, "@")
	input, ok := tokenInputs[action]
	if !ok {
		return nil, noFix("the action %s has no token input Polylane knows", action)
	}
	if _, set := s.With[input]; set {
		return nil, noFix("the step already passes a token")
	}
	out, err := patch.AddStepWith(content, stepSpan(s), input, "${{ github.token }}")
	if err != nil {
		return nil, noFix("%v", err)
	}
	rationale := fmt.Sprintf("The step called the GitHub API without a token and hit the unauthenticated limit of 60 requests per hour per IP address%s. "+
		"Passing the workflow's own token in the action's %s input raises the quota to the repository's and needs no new secret.", cite(x.ids["cause"]...), input)
	cred := impact.Credential{Secret: "github.token", File: x.wf.Path, Command: s.Uses, Hosts: []string{"GitHub"},
		Exposure: fmt.Sprintf("passes the workflow's GITHUB_TOKEN to the action %s (its %s input) in the step %q, which uses it for its downloads from GitHub", s.Uses, input, s.DisplayName())}
	return &fixPlan{Title: "Authenticate the GitHub API calls of " + s.DisplayName(), Rationale: rationale,
		Edits: []patch.FileEdit{{Path: x.wf.Path, Old: content, New: out}}, Credentials: []impact.Credential{cred}}, nil
}

// tokenHosts says where a command sends the token: GitHub's API for a curl
// call whose every URL is GitHub's API, GitHub for the gh CLI. Any other
// command, or a curl call with an unknown destination, gets no token.
func (x *facts) tokenHosts(n *harness.Node) ([]string, error) {
	switch n.Tool() {
	case "gh":
		return []string{"GitHub (the gh CLI's host)"}, nil
	case "curl":
		args := n.EffectiveArgs()
		hosts, ok := curlHosts(args[1:], n.File == x.wf.Path)
		if !ok {
			return nil, noFix("the destination of the curl call that hit the limit cannot be read from the command (a URL built from variables, or an option that can send the request elsewhere), so Polylane gives it no token")
		}
		if !gitHubAPI(hosts) {
			return nil, noFix("the curl call that hit the limit goes to %s, not only to %s, so Polylane gives it no token", strings.Join(hosts, ", "), githubAPIHost)
		}
		return hosts, nil
	}
	return nil, noFix("`%s` is not a command Polylane knows to send the token only to GitHub, so it gives it no token", commandName(n))
}

// dedicatedStep returns the step's command that leads to n (n itself, or
// the script, make or task call that runs it) when the step runs nothing
// else that could read a credential given to the step; what gets the
// credential is named in the refusal.
func (x *facts) dedicatedStep(n *harness.Node, what string) (*harness.Node, error) {
	if x.tree == nil {
		return nil, noFix("the step's commands were not modelled")
	}
	top := n
	for top != nil && top.Parent != x.tree {
		top = top.Parent
	}
	if top == nil || top.Cmd == nil || x.tree.Script == nil {
		return nil, noFix("the step's command that leads to `%s` was not located", commandName(n))
	}
	first, last := statementLines(top)
	var others []string
	for _, c := range x.tree.Script.Commands {
		switch {
		case c == top.Cmd, quietCommands[c.Base()]:
		case c.Line >= first && c.EndLine <= last && (c.Substituted || c.PipeLen > 1 && c.PipeLen == top.Cmd.PipeLen):
			// a substitution inside the command, or its pipeline
		default:
			others = appendOnce(others, "`"+c.Base()+"`")
		}
	}
	if len(others) > 0 {
		return nil, noFix("the step %q also runs %s, which would see %s too; run `%s` in a step of its own and give the credential to that step only",
			x.step.DisplayName(), strings.Join(others, ", "), what, top.Cmd.Name())
	}
	return top, nil
}

// authorizeCurl adds an Authorization header, sent when GITHUB_TOKEN is
// set, to a curl call whose destinations were checked.
func (x *facts) authorizeCurl(n *harness.Node, edits []patch.FileEdit) ([]patch.FileEdit, error) {
	site, err := x.siteOf(n)
	if err != nil {
		return nil, err
	}
	line, end := editLines(n, site)
	hdr := `${GITHUB_TOKEN:+-H "Authorization: Bearer ${GITHUB_TOKEN}"}`
	if site.Host == patch.HostMakefile {
		hdr = patch.MakeEscape(hdr)
	}
	base := site.Content
	if site.Path == edits[0].Path {
		base = edits[0].New
	}
	next, err := patch.AddArgs(base, line, end, programWord(n), []string{hdr})
	if err != nil {
		return nil, noFix("%v", err)
	}
	if site.Path == edits[0].Path {
		edits[0].New = next
		return edits, nil
	}
	return append(edits, edit(site, next)), nil
}

// tokenCredentials describes where the workflow's token goes: the step's
// env, the command that reads it and, for curl, the file and host of the
// header.
func tokenCredentials(x *facts, n, top *harness.Node, hosts []string) []impact.Credential {
	to := strings.Join(hosts, ", ")
	name := top.Cmd.Name()
	var exposure string
	if top == n {
		exposure = fmt.Sprintf("passes the workflow's GITHUB_TOKEN to the step %q, whose only command `%s` sends it to %s", x.step.DisplayName(), name, to)
	} else {
		exposure = fmt.Sprintf("passes the workflow's GITHUB_TOKEN to the step %q, whose only command `%s` and everything it runs can read it; `%s` there sends it to %s",
			x.step.DisplayName(), name, commandName(n), to)
	}
	creds := []impact.Credential{{Secret: "github.token", File: x.wf.Path, Command: name, Hosts: hosts, Exposure: exposure}}
	if n.File != x.wf.Path && n.Tool() == "curl" {
		creds = append(creds, impact.Credential{Secret: "GITHUB_TOKEN", File: n.File, Command: "curl", Hosts: hosts,
			Exposure: fmt.Sprintf("makes `curl` in %s send GITHUB_TOKEN to %s", n.File, to)})
	}
	return creds
}

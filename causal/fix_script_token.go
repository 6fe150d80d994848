package causal

import (
	"fmt"
	"slices"
	"strings"

	"github.com/polylane/polylane/causal/harness"
	"github.com/polylane/polylane/causal/impact"
	"github.com/polylane/polylane/causal/patch"
)

// fixScriptGitHubToken authenticates a harness script's anonymous GitHub
// API call the way maintainers did (stripe/stripe-cli#1787,
// langchain-ai/langsmith-cli#177, navikt/copilot#587): the step passes the
// workflow's token in its env, and the script's curl or wget sends it when
// it is set, so the script still works anonymously elsewhere (a user piping
// it into sh). A fetch whose address is a variable gets the header only
// when every call of its function in the script passes an api.github.com
// address: the token never goes to another host.
func fixScriptGitHubToken(x *fixContext) (*fixPlan, error) {
	if x.wf == nil || x.step == nil || x.step.Run == "" {
		return nil, noFix("the failing step does not run a script Polylane can give the token to")
	}
	call := x.apiCall()
	if call == nil {
		return nil, noFix("the anonymous GitHub API call was not located")
	}
	fetches, err := x.githubOnlyFetches(call)
	if err != nil {
		return nil, err
	}
	script := fetches[0].File
	content, err := x.repo.ReadFile(script)
	if err != nil {
		return nil, noFix("cannot read %s", script)
	}
	out := content
	for _, n := range fetches {
		header := `${GITHUB_TOKEN:+-H "Authorization: Bearer $GITHUB_TOKEN"}`
		if n.Tool() == "wget" {
			header = `${GITHUB_TOKEN:+--header="Authorization: Bearer $GITHUB_TOKEN"}`
		}
		if out, err = patch.AddArgs(out, n.Cmd.Line, n.Cmd.EndLine, programWord(n), []string{header}); err != nil {
			return nil, noFix("%v", err)
		}
	}
	edits := []patch.FileEdit{{Path: script, Old: content, New: out}}
	passes := false
	for k := range x.step.Env {
		passes = passes || k == "GITHUB_TOKEN"
	}
	if !passes {
		if _, err := x.dedicatedStep(fetches[0], "the workflow's token"); err != nil {
			return nil, err
		}
		wf, err := x.repo.ReadFile(x.wf.Path)
		if err != nil {
			return nil, noFix("cannot read %s", x.wf.Path)
		}
		wfOut, err := patch.AddStepEnv(wf, stepSpan(x.step), "GITHUB_TOKEN", "${{ github.token }}")
		if err != nil {
			return nil, noFix("%v", err)
		}
		edits = append([]patch.FileEdit{{Path: x.wf.Path, Old: wf, New: wfOut}}, edits...)
	}
	names := make([]string, 0, len(fetches))
	for _, n := range fetches {
		names = appendOnce(names, "`"+n.Tool()+"`")
	}
	rationale := fmt.Sprintf("%s in %s asks the GitHub API anonymously, and anonymous requests share 60 an hour per IP address with every job on the runner%s. "+
		"The patch passes the workflow's own token to step %q and makes %s send it as a Bearer header when GITHUB_TOKEN is set; without it the script works as before, so a user who pipes it into sh sees no change. "+
		"The header goes only to api.github.com: every address the changed calls fetch is there.",
		strings.Join(names, " and "), script, cite(x.ids["cause"]...), x.step.DisplayName(), strings.Join(names, " and "))
	exposure := fmt.Sprintf("passes the workflow's GITHUB_TOKEN to the step %q, which runs %s; %s there sends it to api.github.com when it is set",
		x.step.DisplayName(), script, strings.Join(names, " and "))
	creds := []impact.Credential{
		{Secret: "github.token", File: x.wf.Path, Command: script, Hosts: []string{"api.github.com"}, Exposure: exposure},
		{Secret: "GITHUB_TOKEN", File: script, Command: fetches[0].Tool(), Hosts: []string{"api.github.com"},
			Exposure: fmt.Sprintf("makes %s in %s send GITHUB_TOKEN to api.github.com", strings.Join(names, " and "), script)},
	}
	return &fixPlan{Title: "Authenticate the GitHub API call of " + script, Rationale: rationale, Edits: edits, Credentials: creds}, nil
}

// githubOnlyFetches returns the curl and wget commands that make call's
// request, when each fetches only api.github.com: its own literal address,
// or, for an address from its function's arguments, the literal address
// every call of that function passes.
func (x *facts) githubOnlyFetches(call *harness.Node) ([]*harness.Node, error) {
	var fetches []*harness.Node
	call.Walk(func(n *harness.Node) bool {
		if n.Kind == harness.NodeCommand && (n.Tool() == "curl" || n.Tool() == "wget") && !lookup(n) {
			fetches = append(fetches, n)
		}
		return true
	})
	if len(fetches) == 0 {
		return nil, noFix("no curl or wget makes the GitHub API call")
	}
	for _, n := range fetches {
		if n.File != fetches[0].File || n.File == x.wf.Path {
			return nil, noFix("the GitHub API call is not made in one script of the repository")
		}
		if urls := literalURLs(n); len(urls) > 0 {
			if slices.ContainsFunc(urls, func(u string) bool { return !githubAPI.MatchString(u) }) {
				return nil, noFix("`%s` also fetches from another host, so it gets no token", commandName(n))
			}
			continue
		}
		fn := n.Nearest(harness.NodeFunc)
		if fn == nil {
			return nil, noFix("the address `%s` fetches is not written in the script, so Polylane gives it no token", commandName(n))
		}
		for _, c := range x.tr.flat {
			if c.Kind != harness.NodeCommand || c.Cmd == nil || c.Cmd.Name() != fn.Symbol {
				continue
			}
			args := c.EffectiveArgs()
			if len(args) < 2 || !githubAPI.MatchString(args[1]) {
				return nil, noFix("the function %s is also called with an address outside api.github.com (%s:%d), so its fetch gets no token", fn.Symbol, c.File, c.Line)
			}
		}
	}
	return fetches, nil
}

// literalURLs returns the http(s) addresses written in a command's words.
func literalURLs(n *harness.Node) []string {
	var out []string
	for _, a := range n.EffectiveArgs()[1:] {
		a = strings.Trim(a, `"'`)
		if strings.HasPrefix(a, "https://") || strings.HasPrefix(a, "http://") {
			out = append(out, a)
		}
	}
	return out
}

// lookup reports a command that only asks whether a program exists
// (`command -v curl`, `which wget`), which the wrapper rules resolve to
// the program itself.
func lookup(n *harness.Node) bool {
	if n.Cmd == nil || len(n.Cmd.Args) == 0 {
		return false
	}
	switch n.Cmd.Args[0] {
	case "command", "type", "which", "hash":
		return true
	}
	return false
}

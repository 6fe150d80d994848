package causal

import (
	"fmt"
	"strings"

	"github.com/polylane/polylane/causal/impact"
	"github.com/polylane/polylane/causal/patch"
)

// dockerHubLimit is Docker Hub's own wording of its anonymous pull limit.
var dockerHubLimit = []string{"docker.com/increase-rate-limit", "unauthenticated pull rate limit"}

// dockerHubLogin and dockerHubLogout are the steps around the one that
// pulls; both are skipped until the repository defines the credentials.
var (
	dockerHubLogin = []string{
		"name: Log in to Docker Hub for an authenticated pull quota",
		"if: ${{ vars.DOCKERHUB_USERNAME != '' }}",
		"uses: docker/login-action@v3",
		"with:",
		"  username: ${{ vars.DOCKERHUB_USERNAME }}",
		"  password: ${{ secrets.DOCKERHUB_TOKEN }}",
	}
	dockerHubLogout = []string{
		"name: Log out of Docker Hub",
		"if: ${{ always() && vars.DOCKERHUB_USERNAME != '' }}",
		"run: docker logout",
	}
)

// fixRegistryAuth logs in to Docker Hub for the failing step only, or
// pulls an official image from a mirror when the pull is a service
// container's. The login is a docker/login-action step right before the
// step, and a logout right after it: docker keeps the credential in the
// job's Docker configuration, which every later step could read, and
// sends it only to Docker Hub.
func fixRegistryAuth(x *fixContext) (*fixPlan, error) {
	if x.wf == nil || x.job == nil {
		return nil, noFix("the failing workflow job was not located")
	}
	content, err := x.repo.ReadFile(x.wf.Path)
	if err != nil {
		return nil, noFix("cannot read %s", x.wf.Path)
	}
	if x.step == nil {
		// The runner pulls service images before any step runs.
		return mirrorServiceImages(x.facts, content)
	}
	for _, s := range x.job.Steps {
		if strings.HasPrefix(s.Uses, "docker/login-action") && s.Index < x.step.Index {
			return nil, noFix("the job already logs in to a registry before the step")
		}
	}
	if err := x.pullsFromDockerHub(); err != nil {
		return nil, err
	}
	command := x.step.Uses
	if x.step.Run != "" {
		n := x.fixTarget()
		if n == nil {
			return nil, noFix("the command whose pull was refused was not located")
		}
		top, err := x.dedicatedStep(n, "the Docker Hub credentials")
		if err != nil {
			return nil, err
		}
		command = top.Cmd.Name()
	}
	out, err := patch.InsertStepAfter(content, stepSpan(x.step), dockerHubLogout)
	if err == nil {
		out, err = patch.InsertStep(out, stepSpan(x.step), dockerHubLogin)
	}
	if err != nil {
		return nil, noFix("%v", err)
	}
	name := x.step.DisplayName()
	rationale := fmt.Sprintf("The pull was refused by Docker Hub's rate limit%s. Anonymous pulls share a small quota per IP address, and hosted runners share addresses; "+
		"an authenticated pull counts against the account's own, larger quota. The new steps log in right before %q and out right after it when the repository defines the DOCKERHUB_USERNAME variable and DOCKERHUB_TOKEN secret, and are skipped otherwise, so they change nothing until those are set.",
		cite(x.ids["cause"]...), name)
	cred := impact.Credential{Secret: "secrets.DOCKERHUB_TOKEN", File: x.wf.Path, Command: "docker/login-action@v3", Hosts: []string{"docker.io"},
		Exposure: fmt.Sprintf("passes the repository secret DOCKERHUB_TOKEN to docker/login-action, which stores it in the job's Docker configuration until the logout step after %q; docker sends it only to Docker Hub (docker.io), and `%s` in that step can read it meanwhile", name, command)}
	return &fixPlan{Title: "Log in to Docker Hub before pulling images", Rationale: rationale,
		Edits: []patch.FileEdit{{Path: x.wf.Path, Old: content, New: out}}, Credentials: []impact.Credential{cred}}, nil
}

// pullsFromDockerHub checks that the refused pull went to Docker Hub: the
// literal image of a docker pull, else Docker Hub's own wording of its
// limit in the failure. A login elsewhere would not help; docker never
// sends Docker Hub's credentials to another registry.
func (x *facts) pullsFromDockerHub() error {
	if n := x.fixTarget(); n != nil && (n.Tool() == "docker" || n.Tool() == "podman") && subcommand(n) == "pull" {
		args := n.EffectiveArgs()
		for i := 2; i < len(args); i++ {
			if strings.HasPrefix(args[i], "-") {
				if args[i] == "--platform" {
					i++
				}
				continue
			}
			if reg, ok := imageRegistry(args[i]); ok {
				if reg != "docker.io" {
					return noFix("the refused pull is from %s, not Docker Hub, and Polylane logs in to Docker Hub only", reg)
				}
				return nil
			}
			break
		}
	}
	for _, t := range x.texts {
		for _, w := range dockerHubLimit {
			if strings.Contains(t.Line.Text, w) {
				return nil
			}
		}
	}
	return noFix("the registry that refused the pull could not be established, and Polylane logs in to Docker Hub only for a pull from Docker Hub")
}

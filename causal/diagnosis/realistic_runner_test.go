package diagnosis

import (
	"fmt"
	"strings"
)

// What the runner prints around the steps of a generated job: setting the
// job up, step headers, checkout, and the service containers.

// setupLines writes the runner's "Set up job" lines; without full it stops
// where the runner fetches the actions, as when it refuses one of them.
func (s *rsScenario) setupLines(c *rsCtx, l *rsLog, full bool) {
	l.add("Current runner version: '2.321.0'")
	switch {
	case c.runner != "":
		l.all([]string{"Runner name: '" + c.runner + "'", "Runner group name: 'Default'", "Machine name: '" + c.runner + "'"})
	case s.runner.windows:
		l.all([]string{"##[group]Operating System", "Microsoft Windows Server 2022", "10.0.20348", "Datacenter", "##[endgroup]",
			"##[group]Runner Image", "Image: windows-2022", "Version: 20241113.3.0",
			"Included Software: https://github.com/actions/runner-images/blob/win22/20241113.3/images/windows/Windows2022-Readme.md",
			"Image Release: https://github.com/actions/runner-images/releases/tag/win22%2F20241113.3", "##[endgroup]"})
	default:
		l.all([]string{"##[group]Operating System", "Ubuntu", "24.04.1", "LTS", "##[endgroup]",
			"##[group]Runner Image", "Image: ubuntu-24.04", "Version: 20241117.1.0",
			"Included Software: https://github.com/actions/runner-images/blob/ubuntu24/20241117.1/images/ubuntu/Ubuntu2404-Readme.md",
			"Image Release: https://github.com/actions/runner-images/releases/tag/ubuntu24%2F20241117.1", "##[endgroup]",
			"##[group]Runner Image Provisioner", "2.0.384.1", "##[endgroup]"})
	}
	l.all([]string{"##[group]GITHUB_TOKEN Permissions", "Contents: read", "Metadata: read", "Packages: read", "##[endgroup]",
		"Secret source: Actions", "Prepare workflow directory", "Prepare all required actions", "Getting action download info"})
	if !full {
		return
	}
	seen := map[string]bool{}
	for _, st := range s.steps {
		if st.uses != "" && !seen[st.uses] && !strings.HasPrefix(st.uses, "./") {
			seen[st.uses] = true
			l.add(fmt.Sprintf("Download action repository '%s' (SHA:%s)", st.uses, s.sha(len(st.uses), st.uses)))
		}
	}
	l.add("Complete job name: " + c.job)
}

// stepHeader writes the step's group: the action and its inputs, or the
// script echoed in cyan, the shell and the environment.
func (s *rsScenario) stepHeader(c *rsCtx, l *rsLog, st rsStep) {
	l.add("##[group]" + st.header())
	if st.uses != "" {
		if len(st.with) > 0 {
			l.add("with:")
			for _, w := range st.with {
				first, rest, _ := strings.Cut(w, "\n")
				l.add("  " + first)
				if rest != "" {
					l.all(strings.Split(rest, "\n"))
				}
			}
		}
	} else {
		for _, line := range st.run {
			l.add("\x1b[36;1m" + line + "\x1b[0m")
		}
		shell := st.shell
		switch {
		case shell != "":
		case s.runner.windows:
			shell = `C:\Program Files\PowerShell\7\pwsh.EXE -command ". '{0}'"`
		default:
			shell = "/usr/bin/bash -e {0}"
		}
		l.add("shell: " + shell)
	}
	if env := append(append([]string{}, s.jobEnv...), st.env...); len(env) > 0 {
		l.add("env:")
		for _, e := range env {
			l.add("  " + e)
		}
	}
	l.add("##[endgroup]")
}

func checkoutLines(c *rsCtx) []string {
	repo := c.s.repo
	out := []string{
		"Syncing repository: " + repo,
		"##[group]Getting Git version info",
		"Working directory is '" + c.ws + "'",
		"[command]/usr/bin/git version",
		"git version 2.47.0",
		"##[endgroup]",
		"Temporarily overriding HOME='" + c.tmp() + "' before making global git config changes",
		"Adding repository directory to the temporary git global config as a safe directory",
		"[command]/usr/bin/git config --global --add safe.directory " + c.ws,
		"Deleting the contents of '" + c.ws + "'",
		"##[group]Initializing the repository",
		"[command]/usr/bin/git init " + c.ws,
		"Initialized empty Git repository in " + c.ws + "/.git/",
		"[command]/usr/bin/git remote add origin https://github.com/" + repo,
		"##[endgroup]",
		"##[group]Fetching the repository",
		fmt.Sprintf("[command]/usr/bin/git -c protocol.version=2 fetch --no-tags --prune --no-recurse-submodules --depth=1 origin +%s:refs/remotes/origin/%s", c.r.sha, c.r.branch),
		"From https://github.com/" + repo,
		fmt.Sprintf(" * [new ref]         %s -> origin/%s", c.r.sha, c.r.branch),
		"##[endgroup]",
		"##[group]Checking out the ref",
		fmt.Sprintf("[command]/usr/bin/git checkout --progress --force -B %s refs/remotes/origin/%s", c.r.branch, c.r.branch),
		fmt.Sprintf("Switched to a new branch '%s'", c.r.branch),
		"##[endgroup]",
		"[command]/usr/bin/git log -1 --format=%H",
		c.r.sha,
	}
	if c.s.runner.windows {
		for i, l := range out {
			out[i] = strings.ReplaceAll(l, "[command]/usr/bin/git", `[command]"C:\Program Files\Git\bin\git.exe"`)
		}
	}
	return out
}

func checkoutPostLines(c *rsCtx) []string {
	return []string{
		"[command]/usr/bin/git version",
		"git version 2.47.0",
		"Temporarily overriding HOME='" + c.tmp() + "' before making global git config changes",
		"[command]/usr/bin/git config --local --name-only --get-regexp core\\.sshCommand",
		"[command]/usr/bin/git config --local --name-only --get-regexp http\\.https\\:\\/\\/github\\.com\\/\\.extraheader",
		"http.https://github.com/.extraheader",
		"[command]/usr/bin/git config --local --unset-all http.https://github.com/.extraheader",
	}
}

// tmp is a fresh runner temp directory name.
func (c *rsCtx) tmp() string {
	id := c.hex(8) + "-" + c.hex(4) + "-4" + c.hex(3) + "-a" + c.hex(3) + "-" + c.hex(12)
	if c.s.runner.windows {
		return `D:\a\_temp\` + id
	}
	return strings.TrimSuffix(c.ws, "/"+c.s.short()+"/"+c.s.short()) + "/_temp/" + id
}

// containerPrelude writes the docker checks the runner does before it
// starts service containers.
func (s *rsScenario) containerPrelude(c *rsCtx, l *rsLog) {
	c.label = c.hex(6)
	c.net = "github_network_" + c.hex(32)
	l.all([]string{"##[group]Checking docker version",
		"##[command]/usr/bin/docker version --format '{{.Server.APIVersion}}'", "'1.47'", "Docker daemon API version: '1.47'",
		"##[command]/usr/bin/docker version --format '{{.Client.APIVersion}}'", "'1.47'", "Docker client API version: '1.47'",
		"##[endgroup]", "##[group]Clean up resources from previous jobs",
		fmt.Sprintf(`##[command]/usr/bin/docker ps --all --quiet --no-trunc --filter "label=%s"`, c.label),
		fmt.Sprintf(`##[command]/usr/bin/docker network prune --force --filter "label=%s"`, c.label),
		"##[endgroup]", "##[group]Create local container network",
		fmt.Sprintf("##[command]/usr/bin/docker network create --label %s %s", c.label, c.net), c.hex(64), "##[endgroup]"})
}

// pullLines are the lines of a successful service image pull.
func (c *rsCtx) pullLines(image string) []string {
	repo, tag, _ := strings.Cut(image, ":")
	return []string{"##[command]/usr/bin/docker pull " + image, tag + ": Pulling from library/" + repo,
		"Digest: sha256:" + c.hex(64), "Status: Image is up to date for " + image, "docker.io/library/" + image}
}

// startService writes the start of one service container.
func (c *rsCtx) startService(svc rsService) []string {
	out := append([]string{"##[group]Starting " + svc.name + " service container"}, c.pullLines(svc.image)...)
	id := c.hex(64)
	c.svcIDs[svc.name] = id
	health := ""
	if svc.health {
		health = " --health-cmd ... --health-interval 5s --health-timeout 5s --health-retries 10"
	}
	san := strings.NewReplacer(":", "", ".", "", "-", "").Replace(svc.image)
	container, inner, _ := strings.Cut(svc.port, ":")
	out = append(out,
		fmt.Sprintf("##[command]/usr/bin/docker create --name %s_%s_%s --label %s --network %s --network-alias %s -p %s%s -e GITHUB_ACTIONS=true -e CI=true %s",
			c.hex(32), san, c.hex(6), c.label, c.net, svc.name, svc.port, health, svc.image),
		id, "##[command]/usr/bin/docker start "+id, id,
		fmt.Sprintf(`##[command]/usr/bin/docker ps --all --filter id=%s --filter status=running --no-trunc --format "{{.ID}} {{.Status}}"`, id),
		id+" Up Less than a second", "##[command]/usr/bin/docker port "+id,
		fmt.Sprintf("%s/tcp -> 0.0.0.0:%s", inner, container), fmt.Sprintf("%s/tcp -> [::]:%s", inner, container), "##[endgroup]")
	return out
}

// startServices writes the start of every service and the health wait.
func (s *rsScenario) startServices(c *rsCtx) []string {
	var out []string
	for _, svc := range s.services {
		out = append(out, c.startService(svc)...)
	}
	out = append(out, "##[group]Waiting for all services to be ready")
	for _, svc := range s.services {
		out = append(out, `##[command]/usr/bin/docker inspect --format="{{if .Config.Healthcheck}}{{print .State.Health.Status}}{{end}}" `+c.svcIDs[svc.name])
		if !svc.health {
			continue
		}
		for k := c.n(0, 3); k > 0; k-- {
			out = append(out, "starting", svc.name+" service is starting, waiting "+fmt.Sprint(c.n(2, 9))+" seconds before checking again.",
				`##[command]/usr/bin/docker inspect --format="{{if .Config.Healthcheck}}{{print .State.Health.Status}}{{end}}" `+c.svcIDs[svc.name])
		}
		out = append(out, "healthy", svc.name+" service is healthy.")
	}
	return append(out, "##[endgroup]")
}

func (s *rsScenario) stopServices(c *rsCtx) []string {
	var out []string
	for _, svc := range s.services {
		id, ok := c.svcIDs[svc.name]
		if !ok {
			continue
		}
		out = append(out, "Stop and remove container: "+c.hex(32)+"_"+strings.NewReplacer(":", "", ".", "", "-", "").Replace(svc.image)+"_"+c.hex(6),
			"##[command]/usr/bin/docker rm --force "+id, id)
	}
	return append(out, "Remove container network: "+c.net, "##[command]/usr/bin/docker network rm "+c.net, c.net)
}

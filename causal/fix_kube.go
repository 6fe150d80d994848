package causal

import (
	"fmt"
	"strings"

	"github.com/polylane/polylane/causal/harness"
	"github.com/polylane/polylane/causal/patch"
)

// insertBefore inserts commands before the emitter (its Taskfile entry, its
// recipe line or its statement).
func insertBefore(x *facts, n *harness.Node, cmds []string, comment string) (patch.Site, []byte, error) {
	site, err := x.anchorSite(n)
	if err != nil {
		return patch.Site{}, nil, err
	}
	if site.Host == patch.HostTaskfile {
		if tc := n.Nearest(harness.NodeTaskCmd); tc != nil && tc.TaskCmd != nil && tc.TaskCmd.ShellLine != tc.TaskCmd.Line {
			// a block entry: insert inside the block, before the statement.
			if s, err := x.siteOf(n); err == nil {
				s.Host = patch.HostScript
				site = s
			}
		}
	}
	out, err := patch.InsertShell(site, false, cmds, comment)
	if err != nil {
		return patch.Site{}, nil, noFix("%v", err)
	}
	return site, out, nil
}

// fixDockerReady waits for the Docker daemon before the first docker call.
func fixDockerReady(x *fixContext) (*fixPlan, error) {
	n := x.fixTarget()
	if n == nil {
		return nil, noFix("the docker command was not located")
	}
	prog := "docker"
	if n.Tool() == "docker" || n.Tool() == "podman" {
		prog = programWord(n)
	}
	wait := fmt.Sprintf("for i in $(seq 1 30); do %s info >/dev/null 2>&1 && break; sleep 2; done", prog)
	site, out, err := insertBefore(x.facts, n, []string{wait}, "Wait up to 60s for the Docker daemon to answer before using it.")
	if err != nil {
		return nil, err
	}
	rationale := fmt.Sprintf("`%s` ran before the Docker daemon accepted connections%s. The patch polls `docker info` every 2 s for up to 60 s before the command, so a daemon that is still starting (a dind sidecar, a fresh runner) gets time to come up; if it never does, the command fails as before.",
		commandName(n), cite(append(x.ids["cause"], x.ids["emitter"]...)...))
	return &fixPlan{Title: "Wait for the Docker daemon before " + commandName(n), Rationale: rationale, Edits: []patch.FileEdit{edit(site, out)}}, nil
}

// mirrorServiceImages pulls official service images from the ECR Public
// mirror of Docker's official images.
func mirrorServiceImages(x *facts, content []byte) (*fixPlan, error) {
	out := content
	var changed []string
	for _, s := range x.job.Services {
		img := s.Image.Text
		if img == "" || strings.Contains(img, "/") || strings.Contains(img, "${{") {
			continue
		}
		next, err := patch.SetKeyValue(out, s.Image.Line, "image", "public.ecr.aws/docker/library/"+img)
		if err != nil {
			continue
		}
		out = next
		changed = append(changed, img)
	}
	if len(changed) == 0 {
		return nil, noFix("the service images are not official Docker Hub images that a public mirror serves")
	}
	rationale := fmt.Sprintf("The job's service containers could not be pulled because of Docker Hub's anonymous rate limit%s. The patch pulls the same official images (%s) from the ECR Public mirror of Docker's official images, which has no such per-IP limit for these images.",
		cite(x.ids["cause"]...), strings.Join(changed, ", "))
	return &fixPlan{Title: "Pull service images from a public mirror", Rationale: rationale, Edits: []patch.FileEdit{{Path: x.wf.Path, Old: content, New: out}}}, nil
}

// fixCRDWait waits for CRDs to be established before they are used, or
// retries an apply that creates CRDs and their resources together.
func fixCRDWait(x *fixContext) (*fixPlan, error) {
	n := x.fixTarget()
	if n == nil {
		return nil, noFix("the command that used the custom resource was not located")
	}
	if len(ofKind(x.evs, evCRDApplied)) == 0 || !clusterClient(n) {
		return fixRetryEmitter(x)
	}
	f := flagsOf(n)
	wait := f.prefix("") + " wait --for=condition=Established crd --all --timeout=60s"
	site, out, err := insertBefore(x.facts, n, []string{wait}, "")
	if err != nil {
		return nil, err
	}
	rationale := fmt.Sprintf("The CRDs were applied%s but `%s` used them before the API server had established them%s. The patch waits up to 60 s for every CRD to report Established first, with the same connection flags.",
		cite(x.ids["changes"]...), commandName(n), cite(x.ids["cause"]...))
	return &fixPlan{Title: "Wait for CRDs to be established before using them", Rationale: rationale, Edits: []patch.FileEdit{edit(site, out)}}, nil
}

// fixWaitForCreate polls until the objects a kubectl wait names exist.
func fixWaitForCreate(x *fixContext) (*fixPlan, error) {
	n := x.fixTarget()
	if n == nil || subcommand(n) != "wait" {
		return nil, noFix("the failing command is not a kubectl wait")
	}
	var get []string
	for _, w := range n.Cmd.Words {
		switch {
		case w == "wait":
			get = append(get, "get")
		case strings.HasPrefix(w, "--for"), strings.HasPrefix(w, "--timeout"):
		default:
			get = append(get, w)
		}
	}
	if len(get) < 3 {
		return nil, noFix("cannot derive the objects the wait selects")
	}
	loop := fmt.Sprintf("for i in $(seq 1 60); do %s -o name 2>/dev/null | grep -q . && break; sleep 2; done", strings.Join(get, " "))
	site, out, err := insertBefore(x.facts, n, []string{loop}, "kubectl wait fails at once when nothing matches yet; wait up to 120s for the objects to exist.")
	if err != nil {
		return nil, err
	}
	rationale := fmt.Sprintf("`kubectl wait` ran before the objects it waits on existed and failed at once%s. The patch first polls with the same selection until at least one object exists (up to 120 s), then the original wait checks its condition; this works with every kubectl version, unlike --for=create.",
		cite(append(x.ids["cause"], x.ids["emitter"]...)...))
	return &fixPlan{Title: "Wait for the objects to exist before waiting on their condition", Rationale: rationale, Edits: []patch.FileEdit{edit(site, out)}}, nil
}

// healthChecks are service health commands by image name.
var healthChecks = map[string]string{
	"postgres": `--health-cmd "pg_isready -U postgres" --health-interval 5s --health-timeout 5s --health-retries 20`,
	"postgis":  `--health-cmd "pg_isready -U postgres" --health-interval 5s --health-timeout 5s --health-retries 20`,
	"mysql":    `--health-cmd "mysqladmin ping -h 127.0.0.1" --health-interval 5s --health-timeout 5s --health-retries 20`,
	"mariadb":  `--health-cmd "healthcheck.sh --connect --innodb_initialized" --health-interval 5s --health-timeout 5s --health-retries 20`,
	"redis":    `--health-cmd "redis-cli ping" --health-interval 5s --health-timeout 5s --health-retries 20`,
	"mongo":    `--health-cmd "mongosh --quiet --eval 'db.runCommand({ping: 1})'" --health-interval 5s --health-timeout 5s --health-retries 20`,
	"rabbitmq": `--health-cmd "rabbitmq-diagnostics -q ping" --health-interval 5s --health-timeout 5s --health-retries 20`,
}

// fixReadiness waits until what was started serves: helm --wait, a service
// health check, or a bounded retry of the first idempotent use.
func fixReadiness(x *fixContext) (*fixPlan, error) {
	if s := x.find.Service; s != nil && x.wf != nil {
		return serviceHealth(x.facts, s)
	}
	if n := x.find.Install; n != nil && composeUp(n) {
		site, out, err := x.addArgs(n, "up", []string{"--wait"})
		if err != nil {
			return nil, err
		}
		rationale := fmt.Sprintf("`%s` returned once the containers were created%s, before they served, and the next command failed against them%s. With --wait, compose returns only when every service is running and healthy (services with a healthcheck).",
			commandName(n), cite(x.ids["install"]...), cite(x.ids["cause"]...))
		return &fixPlan{Title: "Wait for the compose services to be healthy", Rationale: rationale, Edits: []patch.FileEdit{edit(site, out)}}, nil
	}
	if n := x.find.Install; n != nil && n.Tool() == "helm" {
		site, out, err := x.addArgs(n, subcommandWord(n), []string{"--wait", "--timeout", "5m"})
		if err != nil {
			return nil, err
		}
		rationale := fmt.Sprintf("`%s` returned as soon as the release's objects were created%s, before its pods served, and the next command failed against it%s. With --wait, helm returns only when the release's Deployments, StatefulSets and Services are ready (up to 5 minutes).",
			commandName(n), cite(x.ids["install"]...), cite(x.ids["cause"]...))
		return &fixPlan{Title: "Wait for the Helm release to be ready", Rationale: rationale, Edits: []patch.FileEdit{edit(site, out)}}, nil
	}
	return fixRetryEmitter(x)
}

// composeUp reports whether a command is `docker compose up` or
// `docker-compose up`.
func composeUp(n *harness.Node) bool {
	args := n.EffectiveArgs()
	switch n.Tool() {
	case "docker", "podman":
		return len(args) > 2 && subcommand(n) == "compose" && hasWord(args, "up")
	case "docker-compose":
		return hasWord(args, "up")
	}
	return false
}

func serviceHealth(x *facts, s *harness.Service) (*fixPlan, error) {
	img := strings.ToLower(s.Image.Text)
	if i := strings.LastIndexByte(img, '/'); i >= 0 {
		img = img[i+1:]
	}
	img, _, _ = strings.Cut(img, ":")
	opts, ok := healthChecks[img]
	if !ok {
		return nil, noFix("no known health check for the service image %s", s.Image.Text)
	}
	content, err := x.repo.ReadFile(x.wf.Path)
	if err != nil {
		return nil, noFix("cannot read %s", x.wf.Path)
	}
	out, err := patch.SetOptions(content, s.Line, s.EndLine, s.KeyColumn, s.Image.Line, opts)
	if err != nil {
		return nil, noFix("%v", err)
	}
	rationale := fmt.Sprintf("The service container %q had no health check, so the runner started the steps as soon as the container existed, before %s accepted connections%s. With a health check the runner waits until the service reports healthy before the first step.",
		s.Name, img, cite(x.ids["cause"]...))
	return &fixPlan{Title: "Add a health check to the " + s.Name + " service", Rationale: rationale, Edits: []patch.FileEdit{{Path: x.wf.Path, Old: content, New: out}}}, nil
}

// fixCleanupFirst removes leftovers before creating them again.
func fixCleanupFirst(x *fixContext) (*fixPlan, error) {
	n := x.fixTarget()
	if n == nil {
		return nil, noFix("the command that found leftover state was not located")
	}
	sc := subcommand(n)
	switch {
	case n.Tool() == "kind" && sc == "create":
		name := flagValue(n.Cmd.Words, "--name")
		cmd := programWord(n) + " delete cluster"
		if name != "" {
			cmd += " --name " + name
		}
		return removeFirst(x.facts, n, cmd, fmt.Sprintf("A cluster from an earlier run still existed when `kind create cluster` ran%s. `kind delete cluster` is a no-op when there is nothing to delete, so running it first makes the create repeatable.", cite(x.ids["cause"]...)))
	case (n.Tool() == "docker" || n.Tool() == "podman") && sc == "run" && containerName(n) != "":
		name := containerName(n)
		return removeFirst(x.facts, n, fmt.Sprintf("%s rm -f %s >/dev/null 2>&1 || true", programWord(n), name),
			fmt.Sprintf("A container named %s was left from an earlier run%s. The patch removes it before starting a new one; removing a container that does not exist is a no-op.", name, cite(x.ids["cause"]...)))
	case n.Tool() == "helm" && sc == "install":
		site, err := x.siteOf(n)
		if err != nil {
			return nil, err
		}
		out, err := patch.ReplaceWord(site.Content, n.Cmd.Line, n.Cmd.EndLine, subcommandWord(n), "upgrade --install")
		if err != nil {
			return nil, noFix("%v", err)
		}
		return &fixPlan{Title: "Make the Helm install repeatable", Edits: []patch.FileEdit{edit(site, out)},
			Rationale: fmt.Sprintf("The release already existed from an earlier run%s. `helm upgrade --install` installs the release when it is missing and upgrades it otherwise, so the step can run again.", cite(x.ids["cause"]...))}, nil
	}
	return nil, noFix("no cleanup fits `%s`", commandName(n))
}

func flagValue(words []string, flag string) string {
	for i, w := range words {
		if w == flag && i+1 < len(words) {
			return words[i+1]
		}
		if strings.HasPrefix(w, flag+"=") {
			return strings.TrimPrefix(w, flag+"=")
		}
	}
	return ""
}

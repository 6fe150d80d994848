package diagnosis

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// rsCtx is what a step's or a failure's output function sees: the run, the
// job, a seeded generator and helpers for volatile values.
type rsCtx struct {
	s      *rsScenario
	r      rsRun
	rng    *rand.Rand
	job    string
	leg    string
	runner string
	ws     string // workspace directory
	label  string // container label of the job
	net    string // container network
	svcIDs map[string]string
}

func (c *rsCtx) n(lo, hi int) int { return lo + c.rng.IntN(hi-lo+1) }
func (c *rsCtx) hex(n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[c.rng.IntN(16)]
	}
	return string(b)
}
func (c *rsCtx) pick(xs ...string) string { return xs[c.rng.IntN(len(xs))] }

// secs renders a duration in seconds with the given decimals ("3.417").
func (c *rsCtx) secs(lo, hi float64, decimals int) string {
	return fmt.Sprintf("%.*f", decimals, lo+c.rng.Float64()*(hi-lo))
}

// suffix is a Kubernetes pod-name suffix ("7c9f8d5b6-x2kqp").
func (c *rsCtx) suffix() string {
	const alnum = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, 5)
	for i := range b {
		b[i] = alnum[c.rng.IntN(len(alnum))]
	}
	return c.hex(9)[:c.n(8, 10)-1] + "-" + string(b)
}

// rsLog writes a raw GitHub Actions job log.
type rsLog struct {
	b   strings.Builder
	t   time.Time
	rng *rand.Rand
}

func (l *rsLog) add(text string) {
	l.t = l.t.Add(time.Duration(40+l.rng.IntN(2500)) * time.Microsecond)
	l.b.WriteString(l.t.Format("2006-01-02T15:04:05.0000000Z"))
	l.b.WriteByte(' ')
	l.b.WriteString(text)
	l.b.WriteByte('\n')
}

func (l *rsLog) all(lines []string) {
	for _, s := range lines {
		l.add(s)
	}
}

// spread writes lines evenly over d.
func (l *rsLog) spread(lines []string, d time.Duration) {
	start := l.t
	for k, s := range lines {
		at := start.Add(d * time.Duration(k+1) / time.Duration(len(lines)+1))
		if at.After(l.t) {
			l.t = at
		}
		l.add(s)
	}
	if end := start.Add(d); end.After(l.t) {
		l.t = end
	}
}

// rsStepRec is a step of the jobs API.
type rsStepRec struct {
	name, concl string
	start, end  time.Time
}

func (st rsStep) display() string {
	if st.name != "" {
		return st.name
	}
	if st.uses != "" {
		return "Run " + st.uses
	}
	return "Run " + st.run[0]
}

func (st rsStep) header() string {
	if st.uses != "" {
		return "Run " + st.uses
	}
	return "Run " + st.run[0]
}

// rsJobRun is one job being rendered: its log and the step records so far.
type rsJobRun struct {
	s    *rsScenario
	c    *rsCtx
	l    *rsLog
	recs []rsStepRec
}

// begin is the start time of the next step.
func (j *rsJobRun) begin() time.Time { return j.l.t.Truncate(time.Second) }

// end records a step that started at t0 and ends now.
func (j *rsJobRun) end(name, concl string, t0 time.Time) {
	j.recs = append(j.recs, rsStepRec{name: name, concl: concl, start: t0, end: j.l.t.Truncate(time.Second)})
}

// renderJob renders one job: its jobs-API steps and its log. f is the failure
// (nil: the job succeeds); cancelAt > 0 cancels the job at that main step.
func (s *rsScenario) renderJob(c *rsCtx, start time.Time, f *rsFailure, cancelAt int) ([]rsStepRec, []byte) {
	j := &rsJobRun{s: s, c: c, l: &rsLog{t: start, rng: c.rng}}
	j.l.b.WriteString("\ufeff")
	t0 := j.begin()
	setupFails := f != nil && f.step == "Set up job"
	s.setupLines(c, j.l, !setupFails)
	if setupFails {
		// the runner refuses the job while preparing it: nothing else runs
		j.l.spread(f.out(c), time.Duration(c.n(f.secs[0], max(f.secs[0], f.secs[1])))*time.Second)
		j.end("Set up job", "failure", t0)
		return j.recs, []byte(j.l.b.String())
	}
	j.end("Set up job", "success", t0)
	setupFailed := j.containers(f)
	posts := j.mainSteps(f, cancelAt, setupFailed)
	j.teardown(posts)
	return j.recs, []byte(j.l.b.String())
}

// containers renders "Initialize containers" when the job has services and
// reports whether it failed.
func (j *rsJobRun) containers(f *rsFailure) bool {
	s, c, l := j.s, j.c, j.l
	if len(s.services) == 0 {
		return false
	}
	t0 := j.begin()
	if f != nil && f.step == "Initialize containers" {
		s.containerPrelude(c, l)
		l.spread(f.out(c), time.Duration(c.n(f.secs[0], f.secs[1]))*time.Second)
		j.end("Initialize containers", "failure", t0)
		return true
	}
	s.containerPrelude(c, l)
	l.spread(s.startServices(c), time.Duration(c.n(6, 25))*time.Second)
	j.end("Initialize containers", "success", t0)
	return false
}

// mainSteps renders the job's own steps: the failure f, a cancellation at
// step cancelAt, skipped steps after a failure (or after failed containers,
// setupFailed, even the always() ones). It returns the steps with a post
// step.
func (j *rsJobRun) mainSteps(f *rsFailure, cancelAt int, setupFailed bool) []rsStep {
	s, c, l := j.s, j.c, j.l
	failed := setupFailed
	var posts []rsStep
	for k, st := range s.steps {
		t0 := j.begin()
		name := st.display()
		switch {
		case failed && (!st.always || setupFailed):
			j.end(name, "skipped", l.t)
			continue
		case !failed && cancelAt == k+1:
			s.stepHeader(c, l, st)
			l.spread([]string{"##[error]The operation was canceled."}, time.Duration(c.n(20, 200))*time.Second)
			j.end(name, "cancelled", t0)
			failed = true
			continue
		}
		s.stepHeader(c, l, st)
		if f != nil && !failed && f.step == name {
			out := f.out(c)
			if f.exit > 0 {
				out = append(out, fmt.Sprintf("##[error]Process completed with exit code %d.", f.exit))
			}
			l.spread(out, time.Duration(c.n(f.secs[0], f.secs[1]))*time.Second)
			j.end(name, "failure", t0)
			failed = true
		} else {
			var out []string
			switch {
			case st.out != nil:
				out = st.out(c)
			case strings.HasPrefix(st.uses, "actions/checkout@"):
				out = checkoutLines(c)
			}
			l.spread(out, time.Duration(c.n(st.secs[0], max(st.secs[0], st.secs[1])))*time.Second)
			j.end(name, "success", t0)
		}
		if st.post {
			posts = append(posts, st)
		}
	}
	return posts
}

// teardown renders the post steps in reverse order, stopping the service
// containers and completing the job.
func (j *rsJobRun) teardown(posts []rsStep) {
	s, c, l := j.s, j.c, j.l
	for i := len(posts) - 1; i >= 0; i-- {
		t0 := j.begin()
		l.add("Post job cleanup.")
		if strings.HasPrefix(posts[i].uses, "actions/checkout@") {
			l.all(checkoutPostLines(c))
		}
		j.end("Post "+posts[i].display(), "success", t0)
	}
	if len(s.services) > 0 {
		t0 := j.begin()
		l.all(s.stopServices(c))
		j.end("Stop containers", "success", t0)
	}
	t0 := j.begin()
	l.add("Cleaning up orphan processes")
	j.end("Complete job", "success", t0)
}

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

// renderJobs writes jobs/<run>.json and the logs of failed jobs of one run
// (nothing for green runs).
func (s *rsScenario) renderJobs(r rsRun, files map[string][]byte) {
	if r.concl == "success" {
		return
	}
	f, _, ok := s.failureOf(r)
	rng := s.rng(fmt.Sprintf("run/%d", r.index))
	legs := s.matrix
	if len(legs) == 0 {
		legs = []string{""}
	}
	failing := rng.IntN(len(legs))
	var jobs []any
	for k, leg := range legs {
		name := s.jobName
		if leg != "" {
			name = fmt.Sprintf("%s (%s)", s.jobName, leg)
		}
		c := &rsCtx{s: s, r: r, rng: rng, job: name, leg: leg, svcIDs: map[string]string{}}
		if len(s.runner.names) > 0 {
			c.runner = s.runner.names[(r.index*7+k)%len(s.runner.names)]
		}
		c.ws = s.workspace()
		jobID := r.id*27/10 + int64(k)*3 + 11
		start := r.started.Add(time.Duration(4+rng.IntN(20)) * time.Second)
		var jf *rsFailure
		cancelAt, concl := 0, "success"
		switch {
		case r.concl == "cancelled":
			cancelAt, concl = 2+rng.IntN(len(s.steps)-1), "cancelled"
		case ok && k == failing:
			jf, concl = &f, "failure"
		case ok:
			// fail-fast cancels the other legs while they run
			cancelAt, concl = len(s.steps), "cancelled"
		}
		recs, log := s.renderJob(c, start, jf, cancelAt)
		if concl == "failure" {
			files[fmt.Sprintf("logs/%d.txt", jobID)] = log
		}
		jobs = append(jobs, s.jobEntry(c, jobID, concl, recs))
	}
	files[fmt.Sprintf("jobs/%d.json", r.id)] = compactJSON(map[string]any{"total_count": len(jobs), "jobs": jobs})
}

func (s *rsScenario) workspace() string {
	switch {
	case s.runner.windows:
		return `D:\a\` + s.short() + `\` + s.short()
	case len(s.runner.names) > 0:
		return "/home/ci/actions-runner/_work/" + s.short() + "/" + s.short()
	}
	return "/home/runner/work/" + s.short() + "/" + s.short()
}

// jobEntry renders one job of the jobs API.
func (s *rsScenario) jobEntry(c *rsCtx, id int64, concl string, recs []rsStepRec) map[string]any {
	api := "https://api.github.com/repos/" + s.repo
	var steps []any
	for i, st := range recs {
		steps = append(steps, map[string]any{"name": st.name, "status": "completed", "conclusion": st.concl, "number": i + 1,
			"started_at": iso(st.start), "completed_at": iso(st.end)})
	}
	runner, group := c.runner, "Default"
	if runner == "" {
		runner, group = fmt.Sprintf("GitHub Actions %d", 1_000_000_000+c.rng.IntN(90_000_000)), "GitHub Actions"
	}
	return map[string]any{"id": id, "run_id": c.r.id, "workflow_name": s.workflow, "head_branch": c.r.branch,
		"run_url": fmt.Sprintf("%s/actions/runs/%d", api, c.r.id), "run_attempt": c.r.attempt, "node_id": nodeID("CR_kwDO", id),
		"head_sha": c.r.sha, "url": fmt.Sprintf("%s/actions/jobs/%d", api, id),
		"html_url": fmt.Sprintf("https://github.com/%s/actions/runs/%d/job/%d", s.repo, c.r.id, id),
		"status":   "completed", "conclusion": concl, "created_at": iso(c.r.started), "started_at": iso(recs[0].start),
		"completed_at": iso(recs[len(recs)-1].end), "name": c.job, "steps": steps,
		"check_run_url": fmt.Sprintf("%s/check-runs/%d", api, id), "labels": s.runner.labels,
		"runner_id": 1000 + len(runner), "runner_name": runner, "runner_group_id": 1, "runner_group_name": group}
}

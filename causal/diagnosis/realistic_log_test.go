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

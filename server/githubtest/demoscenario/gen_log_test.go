package demoscenario

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// logWriter writes a GitHub Actions raw job log: every line starts with a
// UTC timestamp with 7 fractional digits, the first line carries a BOM. It
// also records the job's steps with their times, so that the jobs API
// object and the log always agree.
type logWriter struct {
	b     strings.Builder
	t     time.Time
	r     *rand.Rand
	steps []stepTimes
	// runner is the id of the hosted runner the job ran on.
	runner int64
}

// stepTimes is one step of a job with its outcome.
type stepTimes struct {
	name, conclusion string
	start, end       time.Time
}

const logTime = "2006-01-02T15:04:05.0000000Z"

func newLogWriter(start time.Time, r *rand.Rand) *logWriter {
	return &logWriter{t: start.Add(time.Duration(r.IntN(900_000)) * time.Microsecond), r: r, runner: 1000300000 + r.Int64N(90000)}
}

// tick advances the clock by a small, random amount (a fraction of a
// millisecond to a few).
func (w *logWriter) tick() {
	w.t = w.t.Add(time.Duration(20+w.r.IntN(2500)) * time.Microsecond)
}

// wait advances the clock by d plus up to 10 % jitter.
func (w *logWriter) wait(d time.Duration) {
	w.t = w.t.Add(d + time.Duration(w.r.Int64N(int64(d)/10+1)))
}

// line writes one line at the current time.
func (w *logWriter) line(format string, args ...any) {
	w.tick()
	if w.b.Len() == 0 {
		w.b.WriteString("\ufeff")
	}
	w.b.WriteString(w.t.UTC().Format(logTime))
	w.b.WriteByte(' ')
	if len(args) == 0 {
		w.b.WriteString(format)
	} else {
		fmt.Fprintf(&w.b, format, args...)
	}
	w.b.WriteByte('\n')
}

// lines writes each line of a block.
func (w *logWriter) lines(block string) {
	for _, l := range strings.Split(strings.TrimSuffix(block, "\n"), "\n") {
		w.line("%s", l)
	}
}

// begin starts a step; end finishes it with a conclusion.
func (w *logWriter) begin(name string) {
	w.steps = append(w.steps, stepTimes{name: name, start: w.t})
}

func (w *logWriter) end(conclusion string) {
	s := &w.steps[len(w.steps)-1]
	s.end, s.conclusion = w.t, conclusion
}

// skip records a step that did not run.
func (w *logWriter) skip(name string) {
	w.steps = append(w.steps, stepTimes{name: name, conclusion: "skipped", start: w.t, end: w.t})
}

// runHeader writes the header GitHub prints for a run: step: the group
// line, the script echoed in cyan, the shell and the environment.
func (w *logWriter) runHeader(script string, env [][2]string) {
	w.line("##[group]Run %s", firstLine(script))
	for _, l := range strings.Split(script, "\n") {
		w.line("\x1b[36;1m%s\x1b[0m", l)
	}
	w.line("shell: /usr/bin/bash -e {0}")
	w.envBlock(env)
	w.line("##[endgroup]")
}

func (w *logWriter) envBlock(env [][2]string) {
	if len(env) == 0 {
		return
	}
	w.line("env:")
	for _, kv := range env {
		w.line("  %s: %s", kv[0], kv[1])
	}
}

// errorExit writes the runner's line for a failed run: step.
func (w *logWriter) errorExit(code int) {
	w.line("##[error]Process completed with exit code %d.", code)
}

// uuid returns a random UUID-shaped string.
func uuid(r *rand.Rand) string {
	h := hexString(r, 32)
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:]
}

// runnerImage is the hosted runner image in use on a date: images roll
// out weekly, so the history sees several.
func runnerImage(t time.Time) (version, agent string) {
	switch {
	case t.Before(time.Date(2026, 11, 6, 0, 0, 0, 0, time.UTC)):
		return "20261026.118.1", "20261021.401"
	case t.Before(time.Date(2026, 11, 13, 0, 0, 0, 0, time.UTC)):
		return "20261102.124.1", "20261028.409"
	case t.Before(time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)):
		return "20261109.131.1", "20261104.412"
	default:
		return "20261116.139.2", "20261111.420"
	}
}

// actionSHAs are the commits the runner resolves action tags to.
var actionSHAs = map[string]string{
	"actions/checkout@v4":           "0ad4b8fadaa221de15dcec353f45205ec38ea70b",
	"actions/setup-go@v5":           "3041bf56c941b39c61721a86cd11f3bb1338122a",
	"docker/setup-buildx-action@v3": "c47758b77c9736f4b2ef4073d4d51994fabfe349",
	"docker/build-push-action@v6":   "48aba3b46d1b1fec4febb7c5d0c644b249a11355",
}

// setUpJob writes the "Set up job" step.
func (w *logWriter) setUpJob(jobName string, actions []string) {
	version, agent := runnerImage(w.t)
	short := strings.SplitN(version, ".", 3)
	w.begin("Set up job")
	w.line("Current runner version: '2.330.0'")
	w.line("Runner name: 'GitHub Actions %d'", w.runner)
	w.line("Runner group name: 'GitHub Actions'")
	w.line("Machine name: 'runnervm%s'", hexString(w.r, 5))
	w.line("##[group]Runner Image Provisioner")
	w.line("Hosted Compute Agent")
	w.line("Version: %s", agent)
	w.line("Commit: %s", hexString(w.r, 40))
	w.line("Build Date: %s-%s-%sT17:%02d:%02dZ", agent[:4], agent[4:6], agent[6:8], w.r.IntN(60), w.r.IntN(60))
	w.line("Worker ID: {%s}", uuid(w.r))
	w.line("Azure Region: %s", []string{"eastus", "eastus2", "westus3", "centralus", "northcentralus"}[w.r.IntN(5)])
	w.line("##[endgroup]")
	w.lines("##[group]Operating System\nUbuntu\n24.04.3\nLTS\n##[endgroup]")
	w.line("##[group]Runner Image")
	w.line("Image: ubuntu-24.04")
	w.line("Version: %s", version)
	w.line("Included Software: https://github.com/actions/runner-images/blob/ubuntu24/%s.%s/images/ubuntu/Ubuntu2404-Readme.md", short[0], short[1])
	w.line("Image Release: https://github.com/actions/runner-images/releases/tag/ubuntu24%%2F%s.%s", short[0], short[1])
	w.line("##[endgroup]")
	w.lines("##[group]GITHUB_TOKEN Permissions\nContents: read\nMetadata: read\n##[endgroup]")
	w.line("Secret source: Actions")
	w.line("Prepare workflow directory")
	w.line("Prepare all required actions")
	w.line("Getting action download info")
	w.wait(300 * time.Millisecond)
	for _, a := range actions {
		w.line("Download action repository '%s' (SHA:%s)", a, actionSHAs[a])
		w.wait(150 * time.Millisecond)
	}
	w.line("Complete job name: %s", jobName)
	w.end("success")
}

// checkout writes the actions/checkout step.
func (w *logWriter) checkout(p *plannedRun, env [][2]string) {
	w.begin("Run actions/checkout@v4")
	w.line("##[group]Run actions/checkout@v4")
	w.line("with:")
	w.lines("  repository: " + fullName + "\n  token: ***\n  ssh-strict: true\n  ssh-user: git\n  persist-credentials: true\n  clean: true\n" +
		"  sparse-checkout-cone-mode: true\n  fetch-depth: 1\n  fetch-tags: false\n  show-progress: true\n  lfs: false\n  submodules: false\n  set-safe-directory: true")
	w.envBlock(env)
	w.line("##[endgroup]")
	work := "/home/runner/work/" + repoName + "/" + repoName
	w.line("Syncing repository: %s", fullName)
	w.lines("##[group]Getting Git version info\nWorking directory is '" + work + "'\n[command]/usr/bin/git version\ngit version 2.51.2\n##[endgroup]")
	w.line("Temporarily overriding HOME='/home/runner/work/_temp/%s' before making global git config changes", uuid(w.r))
	w.line("Adding repository directory to the temporary git global config as a safe directory")
	w.line("[command]/usr/bin/git config --global --add safe.directory %s", work)
	w.line("Deleting the contents of '%s'", work)
	w.line("##[group]Initializing the repository")
	w.line("[command]/usr/bin/git init %s", work)
	w.line("Initialized empty Git repository in %s/.git/", work)
	w.line("[command]/usr/bin/git remote add origin https://github.com/%s", fullName)
	w.line("##[endgroup]")
	w.lines("##[group]Disabling automatic garbage collection\n[command]/usr/bin/git config --local gc.auto 0\n##[endgroup]")
	w.line("##[group]Setting up auth")
	w.lines(checkoutAuth)
	w.line("##[endgroup]")
	w.fetch(p)
	w.end("success")
}

const checkoutAuth = `[command]/usr/bin/git config --local --name-only --get-regexp core\.sshCommand
[command]/usr/bin/git submodule foreach --recursive sh -c "git config --local --name-only --get-regexp 'core\.sshCommand' && git config --local --unset-all 'core.sshCommand' || :"
[command]/usr/bin/git config --local --name-only --get-regexp http\.https\:\/\/github\.com\/\.extraheader
[command]/usr/bin/git submodule foreach --recursive sh -c "git config --local --name-only --get-regexp 'http\.https\:\/\/github\.com\/\.extraheader' && git config --local --unset-all 'http.https://github.com/.extraheader' || :"
[command]/usr/bin/git config --local http.https://github.com/.extraheader AUTHORIZATION: basic ***`

// fetch writes the fetch and checkout of the run's commit (the merge ref
// for a pull request).
func (w *logWriter) fetch(p *plannedRun) {
	ref, local := "refs/remotes/origin/main", "origin/main"
	if p.pr != nil {
		ref = fmt.Sprintf("refs/remotes/pull/%d/merge", p.pr.number)
		local = fmt.Sprintf("pull/%d/merge", p.pr.number)
	}
	w.line("##[group]Fetching the repository")
	w.line("[command]/usr/bin/git -c protocol.version=2 fetch --no-tags --prune --no-recurse-submodules --depth=1 origin +%s:%s", p.sha, ref)
	w.wait(400 * time.Millisecond)
	w.line("From https://github.com/%s", fullName)
	w.line(" * [new ref]         %s -> %s", p.sha, local)
	w.line("##[endgroup]")
	w.lines("##[group]Determining the checkout info\n##[endgroup]\n[command]/usr/bin/git sparse-checkout disable\n[command]/usr/bin/git config --local --unset-all extensions.worktreeConfig")
	w.line("##[group]Checking out the ref")
	if p.pr == nil {
		w.line("[command]/usr/bin/git checkout --progress --force -B main %s", ref)
		w.line("Switched to a new branch 'main'")
		w.line("branch 'main' set up to track 'origin/main'.")
	} else {
		w.line("[command]/usr/bin/git checkout --progress --force %s", ref)
		w.line("Note: switching to '%s'.", ref)
		w.line("HEAD is now at %s Merge %s into %s", p.sha[:7], hexString(w.r, 40), hexString(w.r, 40))
	}
	w.line("##[endgroup]")
	w.line("%s", "[command]/usr/bin/git log -1 --format=%H")
	w.line("%s", p.sha)
}

// checkoutCleanup writes the post step of actions/checkout.
func (w *logWriter) checkoutCleanup() {
	w.begin("Post Run actions/checkout@v4")
	w.line("Post job cleanup.")
	w.line("[command]/usr/bin/git version")
	w.line("git version 2.51.2")
	w.line("Temporarily overriding HOME='/home/runner/work/_temp/%s' before making global git config changes", uuid(w.r))
	w.line("Adding repository directory to the temporary git global config as a safe directory")
	w.line("[command]/usr/bin/git config --global --add safe.directory /home/runner/work/%s/%s", repoName, repoName)
	w.lines(checkoutAuth[:strings.LastIndexByte(checkoutAuth, '\n')])
	w.line("http.https://github.com/.extraheader")
	w.line("[command]/usr/bin/git config --local --unset-all http.https://github.com/.extraheader")
	w.end("success")
}

// completeJob writes the last step.
func (w *logWriter) completeJob() {
	w.begin("Complete job")
	w.line("Cleaning up orphan processes")
	w.end("success")
}

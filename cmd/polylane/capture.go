package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/polylane/polylane/analysis/scenario"
	"github.com/polylane/polylane/server/ghclient"
)

const captureUsage = `Usage: polylane capture OWNER/REPO --workflow FILE [-n 100] --out DIR [--run ID]

Writes a scenario directory (polylane.scenario/v1) from GitHub, so that the
history can be diagnosed offline (polylane diagnose --scenario DIR) or attached
to a bug report: scenario.json, runs.json (the newest N runs of the workflow, every
branch and event, newest first), jobs/<run>.json for each completed run that did not
succeed, logs/<job>.txt for each failed job, and repo/ with the harness files at
the trigger run's head commit (workflows, Taskfiles, Makefiles, Dockerfiles,
package.json, go.mod and the scripts, charts and manifests the diagnosis reads).

Run the same command again after an interruption: files already written are kept
(each appears complete or not at all). GitHub's rate limits are waited out.

Flags:
  --workflow FILE        the workflow's file name (e2e.yml), path or numeric id
  -n N                   number of runs, newest first (default 100, at most 5000)
  --out DIR              the scenario directory to write (created if needed)
  --run ID               the trigger run (default: the newest failed run)
  --api-url URL          GitHub's REST API (default $POLYLANE_GITHUB_API_URL or
                         https://api.github.com/)
  --installation-id N    the app installation to use (default: looked up), and
                         the installation_id written to scenario.json

Credentials: GITHUB_TOKEN (or GH_TOKEN), a token that can read the repository's
Actions; or the GitHub App's POLYLANE_GITHUB_APP_ID with POLYLANE_GITHUB_PRIVATE_KEY
or POLYLANE_GITHUB_PRIVATE_KEY_FILE. Tokens are never printed.

Exit status: 0 captured, 1 GitHub or the disk failed (run again to resume), 2 bad
flags or credentials.
`

// captureFlags are the parsed flags of the capture command.
type captureFlags struct {
	repo, workflow, out, apiURL string
	n                           int
	run, installation           int64
}

// capture is one capture in progress.
type capture struct {
	flags    captureFlags
	out      string
	repo     *ghclient.Repo
	inst     int64
	progress *progress
	stderr   io.Writer
	stats    struct{ runs, jobs, logs, logsGone, files int }
}

func runCapture(ctx context.Context, inv *invocation) int {
	f, err := parseCaptureFlags(inv.args, inv.getenv)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(inv.stdout, captureUsage)
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(inv.stderr, "polylane capture: %v (see polylane capture --help)\n", err)
		return exitUsage
	}
	c := &capture{flags: f, out: f.out, progress: newProgress(inv.stderr), stderr: inv.stderr}
	if err := c.connect(ctx, inv.getenv); err != nil {
		fmt.Fprintf(inv.stderr, "polylane capture: %s\n", flatten(err.Error()))
		return exitUsage
	}
	if err := c.run(ctx); err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(inv.stderr, "polylane capture: interrupted; run the same command again to resume")
		} else {
			fmt.Fprintf(inv.stderr, "polylane capture: %s (run the same command again to resume)\n", flatten(err.Error()))
		}
		return exitFailure
	}
	s := c.stats
	fmt.Fprintf(inv.stdout, "captured %s: %d runs, %d job lists, %d logs", f.repo, s.runs, s.jobs, s.logs)
	if s.logsGone > 0 {
		fmt.Fprintf(inv.stdout, " (%d expired)", s.logsGone)
	}
	fmt.Fprintf(inv.stdout, ", %d repository files in %s\n", s.files, f.out)
	return exitOK
}

func parseCaptureFlags(args []string, getenv func(string) string) (captureFlags, error) {
	var f captureFlags
	fs := flag.NewFlagSet("polylane capture", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.workflow, "workflow", "", "")
	fs.IntVar(&f.n, "n", 100, "")
	fs.StringVar(&f.out, "out", "", "")
	fs.Int64Var(&f.run, "run", 0, "")
	fs.StringVar(&f.apiURL, "api-url", "", "")
	fs.Int64Var(&f.installation, "installation-id", 0, "")
	// OWNER/REPO may come before or after the flags.
	var positional []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return f, err
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch {
	case len(positional) != 1:
		return f, errors.New("give exactly one OWNER/REPO")
	case strings.Count(positional[0], "/") != 1 || strings.HasPrefix(positional[0], "/") || strings.HasSuffix(positional[0], "/"):
		return f, fmt.Errorf("%q is not OWNER/REPO", positional[0])
	case f.workflow == "":
		return f, errors.New("--workflow is required")
	case f.out == "":
		return f, errors.New("--out is required")
	case f.n < 1 || f.n > 5000:
		return f, fmt.Errorf("-n %d is not from 1 to 5000", f.n)
	}
	f.repo = positional[0]
	f.workflow = path.Base(f.workflow) // GitHub names a workflow by its file name or id
	if f.apiURL == "" {
		f.apiURL = getenv("POLYLANE_GITHUB_API_URL")
	}
	if f.apiURL == "" {
		f.apiURL = ghclient.DefaultBaseURL
	}
	return f, nil
}

// rateWait is how long a capture waits out a rate limit inside one call.
const rateWait = 2 * time.Hour

// connect builds the GitHub client from a token or the app's credentials.
func (c *capture) connect(ctx context.Context, getenv func(string) string) error {
	cfg := ghclient.Config{BaseURL: c.flags.apiURL, MaxWait: rateWait, Timeout: 2 * time.Minute}
	token := getenv("GITHUB_TOKEN")
	if token == "" {
		token = getenv("GH_TOKEN")
	}
	switch {
	case token != "":
		cfg.Token = token
	case getenv("POLYLANE_GITHUB_APP_ID") != "":
		id, err := strconv.ParseInt(getenv("POLYLANE_GITHUB_APP_ID"), 10, 64)
		if err != nil || id <= 0 {
			return errors.New("POLYLANE_GITHUB_APP_ID is not a positive number")
		}
		key := []byte(getenv("POLYLANE_GITHUB_PRIVATE_KEY"))
		if file := getenv("POLYLANE_GITHUB_PRIVATE_KEY_FILE"); len(key) == 0 && file != "" {
			if key, err = readPrivateKey(file); err != nil {
				return fmt.Errorf("POLYLANE_GITHUB_PRIVATE_KEY_FILE: %w", err)
			}
		}
		if err := checkPEM(key); err != nil {
			return fmt.Errorf("the app's private key: %w", err)
		}
		cfg.AppID, cfg.PrivateKey = id, key
	default:
		return errors.New("no credentials: set GITHUB_TOKEN, or POLYLANE_GITHUB_APP_ID with the app's private key")
	}
	gh, err := ghclient.New(cfg)
	if err != nil {
		return err
	}
	c.inst = c.flags.installation
	if cfg.Token == "" && c.inst == 0 {
		if c.inst, err = gh.InstallationOf(ctx, c.flags.repo); err != nil {
			return fmt.Errorf("find the app's installation on %s: %w", c.flags.repo, err)
		}
	}
	c.repo, err = gh.Repo(c.inst, c.flags.repo)
	return err
}

// run captures everything, resuming from what the directory holds.
func (c *capture) run(ctx context.Context) error {
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", c.out, err)
	}
	if err := removePartials(c.out); err != nil {
		return fmt.Errorf("clean %s: %w", c.out, err)
	}
	runs, err := c.captureRuns(ctx)
	if err != nil {
		return err
	}
	trigger, err := c.captureScenario(ctx, runs)
	if err != nil {
		return err
	}
	if err := c.captureJobs(ctx, runs); err != nil {
		return err
	}
	if err := c.captureLogs(ctx, runs); err != nil {
		return err
	}
	return c.captureRepo(ctx, trigger.HeadSHA)
}

// captureRuns lists the newest runs of the workflow into runs.json, or
// reads the runs.json an earlier capture wrote.
func (c *capture) captureRuns(ctx context.Context) ([]capturedRun, error) {
	path := filepath.Join(c.out, scenario.RunsFile)
	var raw []json.RawMessage
	if data, err := os.ReadFile(path); err == nil {
		var list struct {
			Runs []json.RawMessage `json:"workflow_runs"`
		}
		if err := json.Unmarshal(data, &list); err != nil {
			return nil, fmt.Errorf("%s from an earlier capture: %w (remove it to list the runs again)", path, err)
		}
		raw = list.Runs
		fmt.Fprintf(c.stderr, "capture: runs: %d from the earlier capture\n", len(raw))
	} else {
		c.progress.start("runs", c.flags.n)
		for page := 1; page > 0 && len(raw) < c.flags.n; {
			p, err := c.repo.ListRunsRaw(ctx, c.flags.workflow, page, 100)
			if err != nil {
				return nil, fmt.Errorf("list runs of %s: %w", c.flags.workflow, err)
			}
			for _, item := range p.Items {
				if len(raw) < c.flags.n {
					raw = append(raw, item)
					c.progress.step()
				}
			}
			page = p.NextPage
		}
		c.progress.total = len(raw)
		c.progress.finish("")
		data, err := marshalIndented(struct {
			TotalCount int               `json:"total_count"`
			Runs       []json.RawMessage `json:"workflow_runs"`
		}{len(raw), raw})
		if err != nil {
			return nil, fmt.Errorf("encode runs: %w", err)
		}
		if err := writeAtomic(path, data); err != nil {
			return nil, err
		}
	}
	runs := make([]capturedRun, len(raw))
	for i, item := range raw {
		if err := json.Unmarshal(item, &runs[i]); err != nil {
			return nil, fmt.Errorf("run %d of the listing: %w", i, err)
		}
	}
	c.stats.runs = len(runs)
	return runs, nil
}

// captureScenario writes scenario.json: the repository, the installation,
// the workflow and the trigger run (--run, the earlier capture's, or the
// newest failed run).
func (c *capture) captureScenario(ctx context.Context, runs []capturedRun) (capturedRun, error) {
	path := filepath.Join(c.out, scenario.ScenarioFile)
	want := c.flags.run
	if want == 0 {
		var earlier scenario.Scenario
		if data, err := os.ReadFile(path); err == nil && json.Unmarshal(data, &earlier) == nil {
			want = earlier.TriggerRunID
		}
	}
	trigger, ok := pickTrigger(runs, want)
	if !ok {
		if want != 0 {
			return trigger, fmt.Errorf("run %d is not among the %d newest runs of %s", want, len(runs), c.flags.workflow)
		}
		return trigger, fmt.Errorf("no failed run among the %d newest runs of %s; name one with --run", len(runs), c.flags.workflow)
	}
	var repo struct {
		ID            int64  `json:"id"`
		Name          string `json:"name"`
		FullName      string `json:"full_name"`
		DefaultBranch string `json:"default_branch"`
		HTMLURL       string `json:"html_url"`
		Private       bool   `json:"private"`
		Owner         struct {
			Login string `json:"login"`
		} `json:"owner"`
	}
	if err := c.getJSON(ctx, c.repo.RepoPath(), &repo); err != nil {
		return trigger, err
	}
	var wf scenario.Workflow
	if err := c.getJSON(ctx, c.repo.RepoPath()+"/actions/workflows/"+pathEscape(c.flags.workflow), &wf); err != nil {
		return trigger, err
	}
	doc := map[string]any{
		"schema": scenario.Schema,
		"repository": map[string]any{"id": repo.ID, "name": repo.Name, "full_name": repo.FullName,
			"owner": map[string]any{"login": repo.Owner.Login}, "default_branch": repo.DefaultBranch,
			"html_url": repo.HTMLURL, "private": repo.Private},
		"installation_id": c.inst,
		"workflow":        map[string]any{"id": wf.ID, "name": wf.Name, "path": wf.Path},
		"trigger_run_id":  trigger.ID,
	}
	data, err := marshalIndented(doc)
	if err != nil {
		return trigger, fmt.Errorf("encode %s: %w", path, err)
	}
	return trigger, writeAtomic(path, data)
}

// getJSON reads one GitHub document into v.
func (c *capture) getJSON(ctx context.Context, path string, v any) error {
	raw, err := c.repo.GetJSON(ctx, path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

// pickTrigger finds run id, or (id 0) the newest completed run that failed.
func pickTrigger(runs []capturedRun, id int64) (capturedRun, bool) {
	for _, r := range runs {
		switch {
		case id != 0 && r.ID == id:
			return r, true
		case id == 0 && r.Status == "completed" && (r.Conclusion == "failure" || r.Conclusion == "timed_out" || r.Conclusion == "startup_failure"):
			return r, true
		}
	}
	return capturedRun{}, false
}

// pathEscape escapes each segment of a workflow path or file name.
func pathEscape(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

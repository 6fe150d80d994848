package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/polylane/polylane/analysis/gha"

	"github.com/polylane/polylane/analysis"
)

// listFlag collects a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

const analyzeUsage = `Usage: polylane analyze [--baseline PASSING.log]... [--jobs JOBS.json [--job ID]] LOG [--json]

Reads one CI job log (a GitHub Actions raw job log, "gh run view --log" output,
or a plain Travis or Jenkins log; "-" reads standard input) and prints the lines
that say why the job failed, the failing step, the exit code and a normalised
failure signature. With --json it prints polylane.analysis/v1 JSON.

Exit status: 0 when the log was analysed, 2 for bad flags or unreadable input.

Flags:
`

type analyzeFlags struct {
	baselines listFlag
	jobs      string
	job       int64
	asJSON    bool
	log       string
}

func parseAnalyzeFlags(inv *invocation) (*analyzeFlags, int, bool) {
	var a analyzeFlags
	fs := flag.NewFlagSet("polylane analyze", flag.ContinueOnError)
	fs.SetOutput(inv.stderr)
	fs.Var(&a.baselines, "baseline", "log of a passing run of the same job (repeatable)")
	fs.StringVar(&a.jobs, "jobs", "", "jobs API JSON of the run (GET …/runs/{id}/jobs), for step recovery")
	fs.Int64Var(&a.job, "job", 0, "job id to pick from --jobs when it lists several jobs")
	fs.BoolVar(&a.asJSON, "json", false, "print polylane.analysis/v1 JSON")
	fs.Usage = func() {
		fmt.Fprint(inv.stdout, analyzeUsage)
		fs.SetOutput(inv.stdout)
		fs.PrintDefaults()
		fs.SetOutput(inv.stderr)
	}
	var positional []string
	args := inv.args
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, exitOK, false
			}
			return nil, exitUsage, false
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(positional) != 1 {
		fmt.Fprintln(inv.stderr, "polylane analyze: want exactly one LOG argument (see --help)")
		return nil, exitUsage, false
	}
	a.log = positional[0]
	return &a, exitOK, true
}

func runAnalyze(_ context.Context, inv *invocation) int {
	a, code, ok := parseAnalyzeFlags(inv)
	if !ok {
		return code
	}
	res, err := analyzeFile(a, inv.stdin)
	if err != nil {
		fmt.Fprintf(inv.stderr, "polylane analyze: %v\n", err)
		return exitUsage
	}
	if a.asJSON {
		out := struct {
			Schema string `json:"schema"`
			*analysis.Result
		}{"polylane.analysis/v1", res}
		enc := json.NewEncoder(inv.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(inv.stderr, "polylane analyze: write output: %v\n", err)
			return exitFailure
		}
		return exitOK
	}
	writeAnalysisText(inv.stdout, res)
	return exitOK
}

// analyzeFile runs the analysis the flags ask for.
func analyzeFile(a *analyzeFlags, stdin io.Reader) (*analysis.Result, error) {
	var opts analysis.Options
	if a.jobs != "" {
		steps, err := loadSteps(a.jobs, a.job, a.log)
		if err != nil {
			return nil, err
		}
		opts.Steps = steps
	}
	if len(a.baselines) > 0 {
		opts.Baseline = analysis.NewBaseline()
		for _, p := range a.baselines {
			if err := addBaseline(opts.Baseline, p); err != nil {
				return nil, err
			}
		}
	}
	var r io.Reader = stdin
	if a.log != "-" {
		f, err := os.Open(a.log)
		if err != nil {
			return nil, fmt.Errorf("open log: %w", err)
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.IsDir() {
			return nil, fmt.Errorf("open log: %s is a directory", a.log)
		}
		r = f
	}
	res, err := analysis.Analyze(r, opts)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", a.log, err)
	}
	return res, nil
}

func addBaseline(b *analysis.Baseline, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open baseline: %w", err)
	}
	defer f.Close()
	if err := b.Add(f); err != nil {
		return fmt.Errorf("baseline %s: %w", path, err)
	}
	return nil
}

// loadSteps reads the steps of one job from a jobs API response, a single
// job object or an array of jobs.
func loadSteps(path string, id int64, logPath string) ([]gha.Step, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read jobs: %w", err)
	}
	var jobs []gha.Job
	var list struct {
		Jobs []gha.Job `json:"jobs"`
	}
	var one gha.Job
	switch {
	case json.Unmarshal(b, &list) == nil && list.Jobs != nil:
		jobs = list.Jobs
	case json.Unmarshal(b, &jobs) == nil:
	case json.Unmarshal(b, &one) == nil && one.Steps != nil:
		jobs = []gha.Job{one}
	default:
		return nil, fmt.Errorf("parse jobs %s: not a jobs API response, job or job list", path)
	}
	j, err := pickJob(jobs, id, logPath)
	if err != nil {
		return nil, fmt.Errorf("jobs %s: %w", path, err)
	}
	return j.Steps, nil
}

// pickJob selects the job by id, by a log file named <job_id>.txt, or as the
// only (failed) job.
func pickJob(jobs []gha.Job, id int64, logPath string) (gha.Job, error) {
	if id == 0 {
		base := strings.TrimSuffix(filepath.Base(logPath), filepath.Ext(logPath))
		if v, err := strconv.ParseInt(base, 10, 64); err == nil {
			for _, j := range jobs {
				if j.ID == v {
					return j, nil
				}
			}
		}
	}
	var failed []gha.Job
	for _, j := range jobs {
		if id != 0 && j.ID == id {
			return j, nil
		}
		if j.Conclusion == "failure" {
			failed = append(failed, j)
		}
	}
	switch {
	case id != 0:
		return gha.Job{}, fmt.Errorf("no job %d", id)
	case len(jobs) == 1:
		return jobs[0], nil
	case len(failed) == 1:
		return failed[0], nil
	}
	return gha.Job{}, fmt.Errorf("%d jobs listed; pass --job ID", len(jobs))
}

// writeAnalysisText prints the readable form of a result.
func writeAnalysisText(w io.Writer, r *analysis.Result) {
	if r.Step != nil {
		fmt.Fprintf(w, "step:       #%d %s", r.Step.Number, r.Step.Name)
		if r.StepLines != nil {
			fmt.Fprintf(w, " (lines %d-%d)", r.StepLines.First, r.StepLines.Last)
		}
		fmt.Fprintln(w)
	}
	if r.ExitCode != nil {
		fmt.Fprintf(w, "exit code:  %d (line %d)\n", *r.ExitCode, r.ExitLine)
	}
	if len(r.Lines) == 0 {
		fmt.Fprintf(w, "no cause found in %d lines\n", r.TotalLines)
		return
	}
	fmt.Fprintf(w, "signature:  %s [%s]\n", r.Signature, r.SignatureID)
	if r.Test != "" {
		fmt.Fprintf(w, "test:       %s\n", oneLine(r.Test))
	}
	if r.ErrorKind != "" || r.Endpoint != "" {
		fmt.Fprintf(w, "kind:       %s %s\n", r.ErrorKind, r.Endpoint)
	}
	if r.Command != "" {
		fmt.Fprintf(w, "command:    %s (line %d)\n", oneLine(r.Command), r.CommandLine)
	}
	if len(r.Redacted) > 0 {
		fmt.Fprintf(w, "redacted:   %s (printed without GitHub's mask; rotate)\n", describeSecrets(r.Redacted))
	}
	fmt.Fprintln(w, "lines:")
	for _, l := range r.Lines {
		mark := " "
		if l.Role == analysis.RoleCause {
			mark = ">"
		}
		fmt.Fprintf(w, "%s %6d  %s\n", mark, l.N, oneLine(l.Text))
	}
}

// oneLine keeps a log text on one terminal line.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' && r != '\t' || r == 0x7f {
			return -1
		}
		return r
	}, s)
}

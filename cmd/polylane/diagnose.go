package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/polylane/polylane/analysis/history"
	"github.com/polylane/polylane/analysis/redact"
	"github.com/polylane/polylane/causal/diagnosis"
	"github.com/polylane/polylane/server/report"
)

const diagnoseUsage = `Usage: polylane diagnose --scenario DIR [--run ID] [--window N] [--json | --format FORMAT]

Diagnoses the trigger run of a scenario directory (polylane.scenario/v1) offline,
with the same pipeline the server runs: the window of the last N completed runs of
the workflow on the run's branch, the failure classes, the verdict and the cadence.

Flags:
  --scenario DIR   scenario directory (scenario.json, runs.json, jobs/, logs/, repo/)
  --run ID         diagnose this run instead of the scenario's trigger run
  --window N       number of runs in the window (default 100)
  --json           print the polylane.diagnosis/v1 JSON document (same as --format json)
  --format FORMAT  text (default), json, or markdown (the assessment comment
                   Polylane posts on GitHub)

Exit status: 0 diagnosed, 1 the diagnosis failed, 2 bad flags or unreadable input.
`

// diagnoseFlags are the parsed flags of the diagnose command.
type diagnoseFlags struct {
	scenario string
	run      int64
	window   int
	format   string
}

func runDiagnose(_ context.Context, inv *invocation) int {
	f, err := parseDiagnoseFlags(inv.args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(inv.stdout, diagnoseUsage)
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(inv.stderr, "polylane diagnose: %v (see polylane diagnose --help)\n", err)
		return exitUsage
	}
	fsys, closeFS := scenarioFS(f.scenario)
	defer closeFS()
	out, _, err := diagnosis.DiagnoseScenario(fsys, diagnosis.Options{RunID: f.run, Window: f.window})
	if err != nil {
		fmt.Fprintf(inv.stderr, "polylane diagnose: %s: %s\n", f.scenario, diagOneLine(err.Error()))
		return exitUsage
	}
	switch f.format {
	case "json":
		err = writeDiagnosisJSON(inv.stdout, out.Diagnosis)
	case "markdown":
		err = writeDiagnosisMarkdown(inv.stdout, out.Diagnosis)
	default:
		err = writeDiagnosisText(inv.stdout, out.Diagnosis)
	}
	if err != nil {
		fmt.Fprintf(inv.stderr, "polylane diagnose: write output: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// scenarioFS opens a scenario directory so that nothing outside it can be
// read: a scenario is user input (a bug report's attachment), and a
// symbolic link in its repo/ must not make Polylane read, and quote, a file
// elsewhere on the machine. When the directory cannot be opened, every
// read fails with the reason (the loader reports a missing scenario.json).
func scenarioFS(dir string) (fs.FS, func()) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return failingFS{err}, func() {}
	}
	return root.FS(), func() { _ = root.Close() }
}

// failingFS fails every open with one error.
type failingFS struct{ err error }

func (f failingFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: f.err}
}

func parseDiagnoseFlags(args []string) (diagnoseFlags, error) {
	var f diagnoseFlags
	var asJSON bool
	fs := flag.NewFlagSet("polylane diagnose", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.scenario, "scenario", "", "scenario directory")
	fs.Int64Var(&f.run, "run", 0, "run id")
	fs.IntVar(&f.window, "window", history.DefaultWindow, "window size")
	fs.BoolVar(&asJSON, "json", false, "print JSON")
	fs.StringVar(&f.format, "format", "text", "output format")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	switch {
	case fs.NArg() > 0:
		return f, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case f.scenario == "":
		return f, errors.New("--scenario DIR is required")
	case f.window <= 0:
		return f, fmt.Errorf("--window must be positive, got %d", f.window)
	case f.run < 0:
		return f, fmt.Errorf("--run must be a run id, got %d", f.run)
	}
	if asJSON {
		f.format = "json"
	}
	switch f.format {
	case "json", "text", "markdown":
	default:
		return f, fmt.Errorf("unknown --format %q (want text, json or markdown)", f.format)
	}
	return f, nil
}

func writeDiagnosisJSON(w io.Writer, d *diagnosis.Diagnosis) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

// writeDiagnosisMarkdown prints the assessment comment, as the server
// would post it on a pull request.
func writeDiagnosisMarkdown(w io.Writer, d *diagnosis.Diagnosis) error {
	md, err := report.Comment(d, report.Options{})
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, md)
	return err
}

// writeDiagnosisText prints the readable form: run, failing step, cause
// lines, the classes table, verdict, failure rate and cadence. Text from logs
// is stripped of control characters.
func writeDiagnosisText(w io.Writer, d *diagnosis.Diagnosis) error {
	var b strings.Builder
	r, f := d.Run, d.Failure
	fmt.Fprintf(&b, "%s · %s #%d (attempt %d) on %s @ %s (%s)\n", diagSafe(d.Repository), diagSafe(r.Workflow), r.Number, r.Attempt, diagSafe(r.Branch), diagShort(r.HeadSHA), diagSafe(r.Event))
	step := "(unknown step)"
	if f.Step.Name != "" {
		step = fmt.Sprintf("#%d %s", f.Step.Number, diagSafe(f.Step.Name))
	}
	exit := ""
	if f.ExitCode != nil {
		exit = fmt.Sprintf(" (exit code %d)", *f.ExitCode)
	}
	fmt.Fprintf(&b, "Failed step: %s › %s%s\n", diagSafe(f.Job.Name), step, exit)
	if f.Unknown {
		b.WriteString("Cause: the job's log is not available\n")
	} else {
		b.WriteString("Cause:\n")
		for _, l := range f.Lines {
			fmt.Fprintf(&b, "  L%-5d %s\n", l.N, diagSafe(l.Text))
		}
		fmt.Fprintf(&b, "Signature: %s\n", diagSafe(f.Signature))
	}
	if len(d.RedactedSecrets) > 0 {
		fmt.Fprintf(&b, "Credentials: the log printed %s that GitHub did not mask; shown redacted, rotate it\n", describeSecrets(d.RedactedSecrets))
	}
	win := d.Window
	fmt.Fprintf(&b, "\nWindow: %d runs on %s, %d failed (%s to %s)", win.Runs, diagSafe(win.Branch), win.Failed, win.From.Format("2006-01-02"), win.To.Format("2006-01-02"))
	if win.Unknown > 0 {
		fmt.Fprintf(&b, ", %d without jobs or log", win.Unknown)
	}
	b.WriteString("\n\nFailure classes:\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if err := writeClassTable(w, d.Clusters); err != nil {
		return err
	}
	b.Reset()
	v := d.Verdict
	fmt.Fprintf(&b, "\nVerdict: %s (confidence %.2f)", v.Kind, v.Confidence)
	if v.FirstBadSHA != nil {
		fmt.Fprintf(&b, ", first bad commit %s", *v.FirstBadSHA)
	}
	fmt.Fprintf(&b, "\n  %s\n", diagSafe(v.Reason))
	fr := d.FailureRate
	fmt.Fprintf(&b, "Failure rate of the step: %d of %d runs (%.1f%%, 95%% CI %.1f–%.1f%%)\n", fr.Failures, fr.Runs, 100*fr.Rate, 100*fr.Low, 100*fr.High)
	fmt.Fprintf(&b, "Cadence: %s\n", diagSafe(d.Cadence))
	if len(d.NotAnalysed) > 0 {
		b.WriteString("Not analysed (over a safety limit):\n")
		for _, s := range d.NotAnalysed {
			fmt.Fprintf(&b, "  %s\n", diagSafe(s.Reason))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// describeSecrets says which kinds of secret were redacted on which lines,
// never the secrets: "a GitHub token (line 24), a password (line 12)".
func describeSecrets(secrets []redact.Secret) string {
	parts := make([]string, 0, len(secrets))
	for _, s := range secrets {
		p := "a " + s.Kind
		if s.Kind != "" && strings.ContainsRune("AEIOU", rune(s.Kind[0])) {
			p = "an " + s.Kind
		}
		if s.Line > 0 {
			p += fmt.Sprintf(" (line %d)", s.Line)
		}
		parts = append(parts, p)
	}
	return diagSafe(strings.Join(parts, ", "))
}

func writeClassTable(w io.Writer, classes []history.Class) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  \tCLASS\tSTEP\tRUNS\tPATTERN\tFIRST\tLAST\tSIGNATURE")
	for _, c := range classes {
		mark := " "
		if c.ContainsTrigger {
			mark = "*"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", mark, c.ID, diagClip(diagSafe(c.Step), 40), c.Count, c.Pattern,
			c.FirstSeen.Format("2006-01-02"), c.LastSeen.Format("2006-01-02"), diagClip(diagSafe(c.Signature), 80))
	}
	return tw.Flush()
}

// safe replaces control characters (escape sequences included) so that log
// text cannot drive the terminal.
func diagSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' {
			return ' '
		}
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			return '?'
		}
		return r
	}, s)
}

func diagClip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func diagShort(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

func diagOneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

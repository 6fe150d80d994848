package diagnosis

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/polylane/polylane/analysis/gha"

	"github.com/polylane/polylane/analysis"
	"github.com/polylane/polylane/analysis/history"
	"github.com/polylane/polylane/causal/catalogue"
)

// Repository identifies the repository a diagnosis is about.
type Repository struct {
	ID            int64
	FullName      string
	DefaultBranch string
	HTMLURL       string
}

// Workflow identifies the workflow of the trigger run.
type Workflow struct {
	ID   int64
	Name string
	Path string
}

// Input is everything Diagnose needs. It holds values and readers only, so the
// CLI (from a scenario directory) and the server (from GitHub and its store)
// run the same pipeline.
type Input struct {
	Repository   Repository
	Workflow     Workflow
	TriggerRunID int64
	// Runs are the runs of the workflow, any order, every branch and event.
	Runs []gha.Run
	// Source reads jobs of a run and job logs; absent data makes a run unknown.
	Source history.Source
	// Analyze analyses one job log; nil means analysis.Analyze.
	Analyze history.Analyzer
	// Tree is the repository tree at the trigger's head_sha (for the causal
	// stage); nil when unavailable.
	Tree fs.FS
	// Known are occurrences computed earlier (by run id and attempt); runs
	// found here are not read or analysed again.
	Known []history.Occurrence
	// Previous are the classes of an earlier diagnosis of this workflow; their
	// ids are reused for the classes that match them.
	Previous []history.Class
	// WindowSize is the number of runs to look at; 0 means the default (100).
	WindowSize int
	// Catalogue is the error-family catalogue (nil: catalogue.Default).
	Catalogue *catalogue.Catalogue
	// Baseline reads the log of the trigger's job in the last passing run
	// of the workflow (on the trigger's branch, else the default branch),
	// the baseline of the trigger's cause lines; nil reads it from Source.
	Baseline BaselineFunc
	// NoBaseline analyses the trigger's log alone.
	NoBaseline bool
	// Compare lists the commits after base up to head, oldest first, with
	// the paths each changed; it is called only when the first bad commit
	// is a range (runs between the last green one and the first red one
	// did not test the step). nil, or an error wrapping fs.ErrNotExist,
	// leaves the range's commits unnamed.
	Compare CompareFunc
}

// CompareFunc lists the commits of base...head (see Input.Compare).
type CompareFunc func(base, head string) ([]gha.Commit, error)

// Outcome is the result of Diagnose: the document, and the occurrences and
// classes it computed so that a caller can store them and pass them back as
// Known and Previous next time.
type Outcome struct {
	Diagnosis   *Diagnosis
	Window      []gha.Run
	Occurrences []history.Occurrence
	Classes     []history.Class
	// Elsewhere are the occurrences of the runs outside a pull request's
	// window it was compared with (base branch, other pull requests).
	Elsewhere []history.Occurrence
}

// Diagnose runs the pipeline over one workflow history: it selects the window,
// extracts an occurrence for each failed run (analysing the logs it has not
// seen), clusters them, and decides the verdict for the trigger's class. It is
// pure apart from the reads of in.Source, and deterministic: the same input
// gives the same document. A trigger run that did not fail is an error.
func Diagnose(in Input) (*Outcome, error) {
	trigger, err := triggerRun(in)
	if err != nil {
		return nil, err
	}
	analyze := in.Analyze
	if analyze == nil {
		analyze = defaultAnalyzer
	}
	// what was stored before log lines were redacted is redacted now, so
	// that it clusters with new occurrences and shows no secret
	in.Known, in.Previous = redactOccurrences(in.Known), redactClasses(in.Previous)
	window := history.SelectWindow(in.Runs, trigger, in.WindowSize)
	occs, err := occurrences(window, in, analyze)
	if err != nil {
		return nil, err
	}
	gates := gateJobs(in.Tree, in.Workflow.Path)
	occs = withoutGates(occs, gates)
	trig, ok := triggerOccurrence(occs, trigger.ID)
	if !ok {
		return nil, fmt.Errorf("run %d: no failure was extracted for the trigger run", trigger.ID)
	}
	classes := history.Cluster(clusterable(occs, trig), in.Previous)
	tl := history.NewTimeline(window, occs)
	tl.Annotate(classes, trigger.ID)
	tc := triggerClassIndex(classes, trig)
	if tc < 0 {
		return nil, fmt.Errorf("run %d: the trigger's failure fell in no class (internal error)", trigger.ID)
	}
	classes = triggerFirst(classes, tc)
	if classes, err = mergeByCause(in, window, classes, occs, trig, analyze); err != nil {
		return nil, err
	}
	tl.Annotate(classes, trigger.ID)
	d := &Diagnosis{
		Schema:       Schema,
		Repository:   in.Repository.FullName,
		Run:          runInfo(trigger, in.Workflow),
		Failure:      failureOf(trig),
		Window:       summarize(window, occs),
		Clusters:     classes,
		Verdict:      tl.Decide(classes[0]),
		FailureRate:  tl.FailureRate(trig.JobBase, trig.Step.Name, occs),
		TriggerClass: classes[0].ID,
		UnknownRuns:  unknownRuns(occs),
	}
	d.Cadence = history.Cadence(classes[0].Count, trig.Step.Name, cmp.Or(in.Workflow.Name, trigger.Name), d.Window)
	out := &Outcome{Diagnosis: d, Window: window, Occurrences: occs, Classes: classes}
	if history.IsPullRequestRun(trigger) {
		pr, eocc, err := pullRequestView(in, trigger, window, occs, trig, classes[0], analyze, gates)
		if err != nil {
			return nil, err
		}
		d.PullRequest, out.Elsewhere = pr, eocc
		blameBase(d)
	}
	if err := explainTrigger(in, out, trigger, trig, analyze); err != nil {
		return nil, err
	}
	if d.PullRequest != nil && d.PullRequest.Classification == PRNew && d.Patch != nil {
		// the pull request's own change is the likely cause: its author
		// fixes it, a harness patch would hide it
		d.Patch = nil
		d.WhyThisFix = "No harness patch: only this pull request fails this way, so its change is the first place to look."
	}
	d.RedactSecrets()
	out.Occurrences = redactOccurrences(out.Occurrences)
	return out, nil
}

// triggerRun finds the trigger run (latest attempt) and checks that it failed.
func triggerRun(in Input) (gha.Run, error) {
	var trigger gha.Run
	found := false
	for _, r := range in.Runs {
		if r.ID == in.TriggerRunID && (!found || r.RunAttempt > trigger.RunAttempt) {
			trigger, found = r, true
		}
	}
	switch {
	case !found:
		return trigger, fmt.Errorf("run %d is not among the %d runs of the workflow", in.TriggerRunID, len(in.Runs))
	case !trigger.Completed():
		return trigger, fmt.Errorf("run %d has not completed (status %q): nothing to diagnose yet", trigger.ID, trigger.Status)
	case trigger.Conclusion == "success" || trigger.Conclusion == "skipped" || trigger.Conclusion == "neutral":
		return trigger, fmt.Errorf("run %d did not fail (conclusion %q): nothing to diagnose", trigger.ID, trigger.Conclusion)
	}
	if in.Source == nil {
		return trigger, errors.New("no source of jobs and logs")
	}
	return trigger, nil
}

// occurrences returns the occurrences of the window's failed runs, newest run
// first, reusing known ones for the same run attempt.
func occurrences(window []gha.Run, in Input, analyze history.Analyzer) ([]history.Occurrence, error) {
	type attempt struct {
		id int64
		n  int
	}
	known := map[attempt][]history.Occurrence{}
	for _, o := range in.Known {
		k := attempt{o.RunID, o.RunAttempt}
		known[k] = append(known[k], o)
	}
	var out []history.Occurrence
	for i := len(window) - 1; i >= 0; i-- {
		r := window[i]
		if r.Conclusion == "success" {
			continue
		}
		if k, ok := known[attempt{r.ID, r.RunAttempt}]; ok {
			out = append(out, k...)
			continue
		}
		occs, err := history.ExtractRun(r, in.Source, analyze)
		if err != nil {
			return nil, err
		}
		out = append(out, occs...)
	}
	return out, nil
}

// triggerOccurrence picks the trigger's occurrence: its first analysed failed
// job, else its first occurrence.
func triggerOccurrence(occs []history.Occurrence, trigger int64) (history.Occurrence, bool) {
	var first *history.Occurrence
	for i := range occs {
		o := &occs[i]
		if o.RunID != trigger {
			continue
		}
		if !o.Unknown && !o.Cancelled {
			return *o, true
		}
		if first == nil {
			first = o
		}
	}
	if first == nil {
		return history.Occurrence{}, false
	}
	return *first, true
}

// Synthetic signatures of occurrences without an analysed log.
const (
	sigCancelled = "run cancelled"
	sigNoData    = "no jobs or log available"
	sigNoLog     = "log unavailable"
)

// clusterable returns the occurrences that take part in clustering, with a
// synthetic signature for those that have no log: cancelled runs and runs
// without jobs data (no step) form classes of their own; occurrences whose
// step is known but whose log is missing are left out, because their class
// cannot be told, unless the trigger is one of them.
func clusterable(occs []history.Occurrence, trig history.Occurrence) []history.Occurrence {
	out := make([]history.Occurrence, 0, len(occs))
	for _, o := range occs {
		switch {
		case o.Cancelled:
			o.Signature = sigCancelled
		case o.Unknown && o.Step.Name == "":
			o.Signature = sigNoData + " (" + o.Conclusion + ")"
		case o.Unknown:
			if !trig.Unknown || o.Step.Name != trig.Step.Name || o.JobBase != trig.JobBase {
				continue
			}
			o.Signature = sigNoLog
		}
		out = append(out, o)
	}
	return out
}

func triggerClassIndex(classes []history.Class, trig history.Occurrence) int {
	for i, c := range classes {
		if c.Step == trig.Step.Name && c.Job == trig.JobBase && slices.Contains(c.Runs, trig.RunID) {
			return i
		}
	}
	return -1
}

// triggerFirst moves the trigger's class to the front, keeping the order of
// the others.
func triggerFirst(classes []history.Class, i int) []history.Class {
	out := make([]history.Class, 0, len(classes))
	out = append(out, classes[i])
	out = append(out, classes[:i]...)
	return append(out, classes[i+1:]...)
}

func runInfo(r gha.Run, wf Workflow) RunInfo {
	return RunInfo{ID: r.ID, Number: r.RunNumber, Attempt: r.RunAttempt, Workflow: cmp.Or(wf.Name, r.Name),
		WorkflowPath: cmp.Or(wf.Path, r.Path), Branch: r.HeadBranch, HeadSHA: r.HeadSHA, Event: r.Event, HTMLURL: r.HTMLURL}
}

// failureOf reports the trigger's failure with its cause lines (all lines
// when none is marked as a cause).
func failureOf(o history.Occurrence) Failure {
	f := Failure{Job: JobRef{ID: o.JobID, Name: o.JobName}, Step: o.Step, Signature: o.Signature,
		SignatureID: o.SignatureID, ExitCode: o.ExitCode, Unknown: o.Unknown, Lines: []analysis.Line{}}
	f.Lines = append(f.Lines, causeLines(o.Lines)...)
	if len(f.Lines) == 0 && len(o.Lines) > 0 {
		f.Lines = append(f.Lines, o.Lines...)
	}
	return f
}

// causeLines returns the lines whose role is cause.
func causeLines(lines []analysis.Line) []analysis.Line {
	var out []analysis.Line
	for _, l := range lines {
		if l.Role == analysis.RoleCause {
			out = append(out, l)
		}
	}
	return out
}

// summarize is history.Summarize plus the count of unknown runs.
func summarize(window []gha.Run, occs []history.Occurrence) history.Window {
	w := history.Summarize(window)
	w.Unknown = len(unknownRuns(occs))
	return w
}

// unknownRuns lists the runs (newest first) none of whose failed jobs could
// be analysed.
func unknownRuns(occs []history.Occurrence) []int64 {
	analysed := map[int64]bool{}
	for _, o := range occs {
		if !o.Unknown {
			analysed[o.RunID] = true
		}
	}
	var out []int64
	for _, o := range occs {
		if o.Unknown && !analysed[o.RunID] {
			out = append(out, o.RunID)
			analysed[o.RunID] = true // listed once
		}
	}
	return out
}

package diagnosis

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"testing/fstest"

	"github.com/polylane/polylane/analysis/gha"

	"github.com/polylane/polylane/analysis"
	"github.com/polylane/polylane/analysis/history"
	"github.com/polylane/polylane/causal"
)

// explainTrigger runs the causal stage for the trigger's class and fills the
// document's chain, patch, impact and lint fields. A trigger whose log could
// not be read still gets a chain (the causal stage says the mechanism is
// unknown); only a failure to read data that exists aborts the diagnosis.
//
// The trigger's log is read again with the log of the same job in the last
// passing run as its baseline, when there is one: its cause lines become the
// document's, while the signature stays that of the log alone.
func explainTrigger(in Input, out *Outcome, trigger gha.Run, trig history.Occurrence, analyze history.Analyzer) error {
	d := out.Diagnosis
	tree := in.Tree
	if tree == nil {
		tree = fstest.MapFS{}
	}
	job, err := triggerJob(in.Source, trig)
	if err != nil {
		return err
	}
	var baseRun int64
	if !trig.Unknown && job.ID != 0 {
		if analyze, baseRun, err = triggerAnalyzer(in, trigger, job.Name, analyze); err != nil {
			return err
		}
	}
	result, err := reanalyze(in.Source, job, trig, analyze)
	if err != nil {
		return err
	}
	if baseRun != 0 {
		if lines := causeLines(result.Lines); len(lines) > 0 {
			d.Failure.Lines, d.Failure.BaselineRun = lines, baseRun
		}
	}
	var class *history.Class
	if len(out.Classes) > 0 {
		class = &out.Classes[0]
	}
	x, err := causal.Explain(causal.Input{
		Repo:         tree,
		Repository:   d.Repository,
		Branch:       d.Run.Branch,
		WorkflowName: d.Run.Workflow,
		WorkflowPath: d.Run.WorkflowPath,
		Job:          job,
		Step:         d.Failure.Step,
		RunID:        d.Run.ID,
		Result:       result,
		OpenLog:      logOpener(in.Source, job.ID, trig.Unknown),
		Class:        class,
		Classes:      out.Classes,
		Window:       d.Window,
		Verdict:      d.Verdict,
		Cadence:      d.Cadence,
		Occurrences:  classOccurrences(out.Occurrences, class),
		Catalogue:    in.Catalogue,
	})
	if err != nil {
		return fmt.Errorf("explain run %d: %w", d.Run.ID, err)
	}
	d.Chain, d.Patch, d.Impact = x.Chain, x.Patch, x.Impact
	d.Failure.StepLines = result.Steps
	d.Summary, d.WhyThisFix = x.WhatHappened, x.WhyThisFix
	for _, sec := range append(result.Redacted, x.Redacted...) {
		d.noteSecrets([]string{sec.Kind}, sec.Line)
	}
	d.Lint = findLint(tree)
	d.NotAnalysed = x.NotAnalysed
	r, err := firstBadRange(in.Compare, d.Verdict, x.Reach)
	if err != nil {
		return err
	}
	d.FirstBadRange = r
	return nil
}

// triggerJob returns the trigger's failing job with its steps; a run without
// jobs data gives a job that only has the occurrence's id and name.
func triggerJob(src history.Source, trig history.Occurrence) (gha.Job, error) {
	job := gha.Job{ID: trig.JobID, Name: trig.JobName, RunID: trig.RunID}
	jobs, err := src.Jobs(trig.RunID)
	if errors.Is(err, fs.ErrNotExist) {
		return job, nil
	}
	if err != nil {
		return job, fmt.Errorf("jobs of run %d: %w", trig.RunID, err)
	}
	for _, j := range jobs {
		if j.ID == trig.JobID {
			return j, nil
		}
	}
	return job, nil
}

// reanalyze analyses the trigger job's log again to get the whole result
// (the running command, the step's line range, the endpoint), which an
// occurrence does not keep. Without a log it rebuilds what the occurrence has.
func reanalyze(src history.Source, job gha.Job, trig history.Occurrence, analyze history.Analyzer) (*analysis.Result, error) {
	fromOccurrence := &analysis.Result{Lines: trig.Lines, Signature: trig.Signature, SignatureID: trig.SignatureID,
		Step: &trig.Step, ExitCode: trig.ExitCode}
	if trig.Unknown || job.ID == 0 {
		return fromOccurrence, nil
	}
	rc, err := src.OpenLog(job.ID)
	if errors.Is(err, fs.ErrNotExist) {
		return fromOccurrence, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open log of job %d: %w", job.ID, err)
	}
	defer rc.Close()
	res, err := analyze(rc, job.Steps)
	if err != nil {
		return nil, fmt.Errorf("analyse log of job %d: %w", job.ID, err)
	}
	return res, nil
}

// logOpener streams the trigger job's log for the causal stage; nil when the
// log is known to be missing.
func logOpener(src history.Source, jobID int64, unknown bool) func() (io.ReadCloser, error) {
	if unknown || jobID == 0 {
		return nil
	}
	return func() (io.ReadCloser, error) { return src.OpenLog(jobID) }
}

// classOccurrences returns the occurrences of the trigger's class.
func classOccurrences(occs []history.Occurrence, class *history.Class) []history.Occurrence {
	if class == nil {
		return nil
	}
	var out []history.Occurrence
	for _, o := range occs {
		if !o.Unknown && slices.Contains(class.Runs, o.RunID) {
			out = append(out, o)
		}
	}
	return out
}

package diagnosis

import (
	"cmp"
	"fmt"
	"slices"
	"testing/fstest"
	"time"

	"github.com/polylane/polylane/analysis/gha"
	"github.com/polylane/polylane/analysis/history"
	"github.com/polylane/polylane/causal"
)

// maxCauseProbes bounds the other classes of the trigger's step that the
// causal stage explains to tell whether they are the trigger's cause.
const maxCauseProbes = 4

// mergeByCause merges into the trigger's class (classes[0]) the other
// classes of its job and step whose failure the causal stage explains with
// the same mechanism rule and the same producer: wordings the signature
// keeps apart (a library missing, or too old to have a name) that are one
// cause. An unknown mechanism or a failure without a harness producer
// merges nothing. Each class is explained from its newest run's log,
// against the trigger's tree, once: the cause is kept on the occurrence
// (occs is updated), so a later diagnosis that knows it reads no log. The
// classes are returned with the merged ones removed.
func mergeByCause(in Input, window []gha.Run, classes []history.Class, occs []history.Occurrence, trig history.Occurrence, analyze history.Analyzer) ([]history.Class, error) {
	var probes []int
	for i := 1; i < len(classes) && len(probes) < maxCauseProbes; i++ {
		if classes[i].Step == classes[0].Step && classes[i].Job == classes[0].Job {
			probes = append(probes, i)
		}
	}
	if len(probes) == 0 {
		return classes, nil
	}
	ti := slices.IndexFunc(occs, func(o history.Occurrence) bool { return sameOccurrence(o, trig) })
	if ti < 0 {
		return classes, nil
	}
	want, err := cachedCause(in, occs, ti, analyze)
	if err != nil || !want.Known() {
		return classes, err
	}
	at := map[int64]time.Time{}
	for _, r := range window {
		at[r.ID] = r.CreatedAt
	}
	merged := map[int]bool{}
	for _, i := range probes {
		oi := newestOccurrence(occs, classes[i])
		if oi < 0 {
			continue
		}
		got, err := cachedCause(in, occs, oi, analyze)
		if err != nil {
			return nil, err
		}
		if got == want {
			classes[0] = mergeClasses(classes[0], classes[i], at)
			merged[i] = true
		}
	}
	out := classes[:0:0]
	for i, c := range classes {
		if !merged[i] {
			out = append(out, c)
		}
	}
	return out, nil
}

// newestOccurrence is the index of the occurrence of the class's newest
// run with a log, -1 without one.
func newestOccurrence(occs []history.Occurrence, c history.Class) int {
	for _, id := range c.Runs {
		for i, o := range occs {
			if o.RunID == id && !o.Unknown && o.Step.Name == c.Step && o.JobBase == c.Job {
				return i
			}
		}
	}
	return -1
}

// sameOccurrence reports whether a and b are the failure of one job step
// of one run attempt.
func sameOccurrence(a, b history.Occurrence) bool {
	return a.RunID == b.RunID && a.RunAttempt == b.RunAttempt && a.JobID == b.JobID && a.Step.Number == b.Step.Number
}

// cachedCause is the cause of occs[i]: kept from an earlier diagnosis, or
// explained now and kept.
func cachedCause(in Input, occs []history.Occurrence, i int, analyze history.Analyzer) (history.Cause, error) {
	if c := occs[i].Cause; c != nil {
		return *c, nil
	}
	c, err := causeOf(in, occs[i], analyze)
	if err != nil {
		return c, err
	}
	occs[i].Cause = &c
	return c, nil
}

// causeOf explains one occurrence with the causal stage alone (no history,
// no baseline) and returns its mechanism rule and producer line.
func causeOf(in Input, o history.Occurrence, analyze history.Analyzer) (history.Cause, error) {
	job, err := triggerJob(in.Source, o)
	if err != nil || job.ID == 0 {
		return history.Cause{}, err
	}
	result, err := reanalyze(in.Source, job, o, analyze)
	if err != nil {
		return history.Cause{}, err
	}
	tree := in.Tree
	if tree == nil {
		tree = fstest.MapFS{}
	}
	x, err := causal.Explain(causal.Input{
		Repo: tree, Repository: in.Repository.FullName, WorkflowName: in.Workflow.Name, WorkflowPath: in.Workflow.Path,
		Job: job, Step: o.Step, RunID: o.RunID, Result: result, OpenLog: logOpener(in.Source, job.ID, o.Unknown),
		Catalogue: in.Catalogue,
	})
	if err != nil {
		return history.Cause{}, fmt.Errorf("explain run %d: %w", o.RunID, err)
	}
	c := x.Chain
	if c == nil || c.Producer.Ambiguous {
		return history.Cause{}, nil
	}
	return history.Cause{Rule: c.Mechanism.Rule, File: c.Producer.File, Line: c.Producer.Line}, nil
}

// mergeClasses adds class b's runs and wordings to class a, which keeps its
// id and signature. at gives the runs' creation times, to order them.
func mergeClasses(a, b history.Class, at map[int64]time.Time) history.Class {
	wordings := a.Wordings
	if len(wordings) == 0 {
		wordings = []history.Wording{{Signature: a.Signature, Runs: a.Count}}
	}
	more := b.Wordings
	if len(more) == 0 {
		more = []history.Wording{{Signature: b.Signature, Runs: b.Count}}
	}
	for _, w := range more {
		if i := slices.IndexFunc(wordings, func(x history.Wording) bool { return x.Signature == w.Signature }); i >= 0 {
			wordings[i].Runs += w.Runs
			continue
		}
		wordings = append(wordings, w)
	}
	slices.SortStableFunc(wordings, func(x, y history.Wording) int { return cmp.Compare(y.Runs, x.Runs) })
	a.Wordings = wordings
	for _, m := range append([]string{b.Signature}, b.Members...) {
		if !slices.Contains(a.Members, m) && m != a.Signature {
			a.Members = append(a.Members, m)
		}
	}
	if !slices.Contains(a.Members, a.Signature) {
		a.Members = append([]string{a.Signature}, a.Members...)
	}
	for _, id := range b.Runs {
		if !slices.Contains(a.Runs, id) {
			a.Runs = append(a.Runs, id)
		}
	}
	slices.SortFunc(a.Runs, func(x, y int64) int { return cmp.Or(at[y].Compare(at[x]), cmp.Compare(y, x)) })
	a.Count = len(a.Runs)
	if b.FirstSeen.Before(a.FirstSeen) {
		a.FirstSeen, a.FirstSHA = b.FirstSeen, b.FirstSHA
	}
	if b.LastSeen.After(a.LastSeen) {
		a.LastSeen = b.LastSeen
	}
	for _, e := range b.Endpoints {
		if !slices.Contains(a.Endpoints, e) {
			a.Endpoints = append(a.Endpoints, e)
		}
	}
	return a
}

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

// cause is what makes two classes one: the mechanism rule that matched and
// the harness line that produced the failure.
type cause struct {
	rule string
	file string
	line int
}

// known reports whether the cause names both a rule and a producer line;
// an unknown mechanism or a failure with no harness producer merges nothing.
func (c cause) known() bool { return c.rule != "" && c.file != "" && c.line > 0 }

// mergeByCause merges into the trigger's class (classes[0]) the other
// classes of its job and step whose failure the causal stage explains with
// the same mechanism rule and the same producer: wordings the signature
// keeps apart (a library missing, or too old to have a name) that are one
// cause. Each class is explained from its newest run's log, against the
// trigger's tree. The classes are returned with the merged ones removed.
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
	want, err := causeOf(in, trig, analyze)
	if err != nil || !want.known() {
		return classes, err
	}
	at := map[int64]time.Time{}
	for _, r := range window {
		at[r.ID] = r.CreatedAt
	}
	merged := map[int]bool{}
	for _, i := range probes {
		o, ok := newestOccurrence(occs, classes[i])
		if !ok {
			continue
		}
		got, err := causeOf(in, o, analyze)
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

// newestOccurrence is the occurrence of the class's newest run with a log.
func newestOccurrence(occs []history.Occurrence, c history.Class) (history.Occurrence, bool) {
	for _, id := range c.Runs {
		for _, o := range occs {
			if o.RunID == id && !o.Unknown && o.Step.Name == c.Step && o.JobBase == c.Job {
				return o, true
			}
		}
	}
	return history.Occurrence{}, false
}

// causeOf explains one occurrence with the causal stage alone (no history,
// no baseline) and returns its mechanism rule and producer line.
func causeOf(in Input, o history.Occurrence, analyze history.Analyzer) (cause, error) {
	job, err := triggerJob(in.Source, o)
	if err != nil || job.ID == 0 {
		return cause{}, err
	}
	result, err := reanalyze(in.Source, job, o, analyze)
	if err != nil {
		return cause{}, err
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
		return cause{}, fmt.Errorf("explain run %d: %w", o.RunID, err)
	}
	c := x.Chain
	if c == nil || c.Producer.Ambiguous {
		return cause{}, nil
	}
	return cause{rule: c.Mechanism.Rule, file: c.Producer.File, line: c.Producer.Line}, nil
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

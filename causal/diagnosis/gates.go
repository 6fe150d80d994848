package diagnosis

import (
	"io/fs"
	"strings"

	"github.com/polylane/polylane/analysis"
	"github.com/polylane/polylane/analysis/history"
	"github.com/polylane/polylane/causal/harness"
)

// gate is how a gate job of the workflow is recognised (see harness.Job.Gate).
type gate struct{ checks, always bool }

// gateJobs reads the trigger's workflow from the tree and returns its gate
// jobs by job name and id; nil when the workflow cannot be read.
func gateJobs(tree fs.FS, path string) map[string]gate {
	if tree == nil || path == "" {
		return nil
	}
	data, err := fs.ReadFile(tree, strings.TrimPrefix(path, "./"))
	if err != nil {
		return nil
	}
	wf, err := harness.ParseWorkflow(path, data)
	if err != nil {
		return nil
	}
	out := map[string]gate{}
	for _, j := range wf.Jobs {
		if checks, always := j.Gate(); checks || always {
			out[j.ID] = gate{checks, always}
			if j.Name != "" {
				out[j.Name] = gate{checks, always}
			}
		}
	}
	return out
}

// withoutGates drops, from each run, the failures of gate jobs when another
// job of the run failed: the gate failed because a job it needs failed, so
// the run belongs to that job's class and is counted there once. A job that
// runs always() is a gate only when its failure states no cause of its own.
func withoutGates(occs []history.Occurrence, gates map[string]gate) []history.Occurrence {
	if len(gates) == 0 {
		return occs
	}
	isGate := func(o history.Occurrence) bool {
		g, ok := gates[o.JobBase]
		if !ok {
			g, ok = gates[o.JobName]
		}
		return ok && (g.checks || !ownCause(o))
	}
	other := map[int64]bool{}
	for _, o := range occs {
		if !o.Cancelled && !isGate(o) {
			other[o.RunID] = true
		}
	}
	out := occs[:0:0]
	for _, o := range occs {
		if other[o.RunID] && isGate(o) {
			continue
		}
		out = append(out, o)
	}
	return out
}

// ownCause reports whether an occurrence states a cause beyond the runner's
// exit-code line.
func ownCause(o history.Occurrence) bool {
	for _, l := range o.Lines {
		if l.Role == analysis.RoleCause && !strings.Contains(l.Text, "Process completed with exit code") {
			return true
		}
	}
	return false
}

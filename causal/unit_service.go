package causal

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/polylane/polylane/causal/harness"
)

// runnerRetry is the runner's own retry of a service image pull.
var runnerRetry = regexp.MustCompile(`(?i)back off [0-9.]+ seconds before retry`)

// runnerRetries returns the log lines where the runner retried a step of
// its own (a service image pull) before the cause.
func (x *explainer) runnerRetries() []logLine {
	var out []logLine
	for _, l := range x.log.before() {
		if runnerRetry.MatchString(l.Text) {
			out = append(out, l)
		}
	}
	return out
}

// runnerUnit says what happens to a failed runner step today: the runner's
// own retries, when the log shows them.
func (x *explainer) runnerUnit() (FailedUnit, bool) {
	retries := x.runnerRetries()
	if len(retries) == 0 {
		return FailedUnit{}, false
	}
	id := x.ev.log(retries[len(retries)-1], "the runner retries on its own")
	x.ids["retries"] = append(x.ids["retries"], id)
	return FailedUnit{Retried: true, Summary: fmt.Sprintf("the runner already retried it %d %s with a back-off before it gave up%s; nothing in the workflow adds more",
		len(retries), plural(len(retries), "time", "times"), cite(id))}, true
}

// serviceBlast says which other jobs pull the image of the service the
// producer names.
func (x *explainer) serviceBlast(symbol string) (BlastRadius, bool) {
	name, ok := strings.CutPrefix(symbol, "services.")
	if !ok || x.job == nil {
		return BlastRadius{}, false
	}
	var svc *harness.Service
	for _, s := range x.job.Services {
		if s.Name == name {
			svc = s
		}
	}
	if svc == nil || svc.Image.Text == "" {
		return BlastRadius{}, false
	}
	var callers []Location
	var names []string
	for wi, wf := range x.repo.Workflows() {
		if wi >= maxBlastWorkflows {
			break
		}
		for _, job := range wf.Jobs {
			for _, s := range job.Services {
				if s.Image.Text != svc.Image.Text || x.wf != nil && wf.Path == x.wf.Path && job.ID == x.job.ID {
					continue
				}
				callers = append(callers, Location{File: wf.Path, Line: s.Line, Symbol: "services." + s.Name})
				names = append(names, fmt.Sprintf("%s › %s › services.%s", wf.Path, job.ID, s.Name))
			}
		}
	}
	if len(callers) == 0 {
		return BlastRadius{Summary: fmt.Sprintf("no other job runs a service container from %s; only job %s does", svc.Image.Text, x.job.ID)}, true
	}
	return BlastRadius{Callers: callers, Summary: fmt.Sprintf("%d other job(s) also run %s as a service: %s", len(callers), svc.Image.Text, strings.Join(dedupe(names, 5), "; "))}, true
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

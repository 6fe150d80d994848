package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/polylane/polylane/store"
)

// EvidenceChance is the chance below which green runs on a fix branch are
// taken as evidence that the fix works: the chance that they would have
// happened without it.
const EvidenceChance = 0.05

// Chance is the probability that n runs in a row pass by chance when the
// class fails a run with probability p: (1−p)^n. p is clamped to [0, 1];
// n ≤ 0 gives 1.
func Chance(p float64, n int) float64 {
	p = min(max(p, 0), 1)
	if n <= 0 {
		return 1
	}
	return math.Pow(1-p, float64(n))
}

// maxEvidenceRuns bounds RunsForEvidence for a vanishing rate.
const maxEvidenceRuns = 1_000_000

// RunsForEvidence is how many green runs in a row bring the chance below
// EvidenceChance at failure rate p; 0 when no number does (p ≤ 0), at most
// maxEvidenceRuns.
func RunsForEvidence(p float64) int {
	switch {
	case p <= 0 || math.IsNaN(p):
		return 0
	case p >= 1:
		return 1
	}
	x := math.Ceil(math.Log(EvidenceChance) / math.Log1p(-p))
	if x >= maxEvidenceRuns || math.IsNaN(x) {
		return maxEvidenceRuns
	}
	n := int(x)
	for Chance(p, n) >= EvidenceChance { // rounding at the boundary
		n++
	}
	for n > 1 && Chance(p, n-1) < EvidenceChance {
		n--
	}
	return n
}

// ChanceStatement says in plain words what n green runs of a workflow on
// the fix branch show when the class fails at rate p over the window.
// rateKnown is false when the window gave no rate. The workflow name is
// quoted in backticks; the caller renders the sentence as prose.
func ChanceStatement(workflow string, n int, p float64, rateKnown bool) string {
	runs := func(k int) string {
		if k == 1 {
			return "1 green run"
		}
		return strconv.Itoa(k) + " green runs"
	}
	wf := "`" + workflow + "`"
	head := runs(n) + " of " + wf + " on the fix branch"
	if n <= 0 {
		head = "No green run of " + wf + " on the fix branch yet"
	}
	switch {
	case !rateKnown:
		return head + "; the class's failure rate over the window is not known, so how likely that is without the fix cannot be said."
	case p <= 0:
		return head + "; the class failed in none of the window's runs, so green runs cannot tell whether the fix works."
	}
	rate := percent(p)
	need := RunsForEvidence(p)
	if n <= 0 {
		return fmt.Sprintf("%s; at this class's %s failure rate, %s in a row would happen by chance less than 5%% of the time.", head, rate, runs(need))
	}
	c := Chance(p, n)
	if c < EvidenceChance {
		return fmt.Sprintf("%s; at this class's %s failure rate that happens by chance %s of the time, below 5%%: it is evidence that the fix works.",
			head, rate, percentBelow(c, EvidenceChance))
	}
	return fmt.Sprintf("%s; at this class's %s failure rate that happens by chance %s of the time, so it is not yet evidence. The chance falls below 5%% at %s in a row (%d more).",
		head, rate, percent(c), runs(need), need-n)
}

// percentBelow is percent with as many decimals as it takes (up to four)
// for a probability under limit not to read as limit or more: 4.99%, not
// 5.0%.
func percentBelow(p, limit float64) string {
	s := percent(p)
	for d := 2; d <= 4 && p < limit; d++ {
		v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
		if err != nil || v < limit*100 {
			break
		}
		s = strconv.FormatFloat(p*100, 'f', d, 64) + "%"
	}
	return s
}

// percent renders a probability as a percentage a reader can take in:
// whole percents from 10%, one decimal below, "less than 0.1%" under that.
func percent(p float64) string {
	v := p * 100
	switch {
	case v >= 9.95:
		return strconv.FormatFloat(math.Round(v), 'f', -1, 64) + "%"
	case v >= 0.05:
		s := strconv.FormatFloat(v, 'f', 1, 64)
		return strings.TrimSuffix(s, ".0") + "%"
	case v <= 0:
		return "0%"
	}
	return "less than 0.1%"
}

// Verification is what the repository's own CI said of a fix pull
// request's branch, for the "Verification" section.
type Verification struct {
	Branch  string
	HeadSHA string // the branch head the results are of
	// Workflows is the latest completed attempt of each workflow at
	// HeadSHA, in the order they first completed.
	Workflows []VerifiedRun
	// Refuting is the run that failed in the fixed class's way, if any.
	Refuting *VerifiedRun
	// Workflow is the workflow whose job failed in the class; Green counts
	// its green runs at HeadSHA; Rate is the class's failure rate over the
	// window (RateKnown false when the window gave none).
	Workflow  string
	Green     int
	Rate      float64
	RateKnown bool
	// WorkflowRun is the newest run of Workflow at HeadSHA, and
	// WorkflowGreen whether its latest attempt passed: the run a rerun
	// repeats.
	WorkflowRun   int64
	WorkflowGreen bool
	// Restarted is set when the branch moved to a commit Polylane did not
	// write, and the count started again.
	Restarted bool
	// RerunLimit is fix_pull_requests.verify_reruns (0: off); Reruns how
	// many were asked; RerunRefused GitHub's refusal.
	RerunLimit   int
	Reruns       int
	RerunRefused string
}

// VerifiedRun is one workflow's result on the fix branch.
type VerifiedRun struct {
	Workflow   string
	RunID      int64
	Attempt    int
	Conclusion string
	FailedJob  string
	Cause      string
	InClass    bool
	// Runs and Green count the workflow's completed attempts at the head
	// and the green ones among them.
	Runs  int
	Green int
}

// FailingCheck reports whether the run failed other than in the class's
// way: a conclusion that fails a check (a cancelled, skipped or neutral
// run does not).
func (w VerifiedRun) FailingCheck() bool {
	switch w.Conclusion {
	case "success", "skipped", "neutral", "cancelled", "stale":
		return false
	}
	return !w.InClass
}

// Refuted reports whether the fix branch failed in the class's way.
func (v *Verification) Refuted() bool { return v != nil && v.Refuting != nil }

// verification is the "Verification" section: each workflow's result on
// the fix branch, then the flaky-class statement.
func (r *renderer) verification(b *strings.Builder) {
	v := r.opts.Verification
	if v == nil {
		return
	}
	b.WriteString("#### Verification\n\n")
	if v.Refuting != nil {
		b.WriteString("**Refuted: this fix is no longer recommended.** " + r.t(v.Refuting.Workflow) + " failed on the fix branch in this class's way")
		if v.Refuting.Cause != "" {
			b.WriteString(": " + r.c(v.Refuting.Cause))
		}
		b.WriteString(".\n\n")
	}
	var broken []VerifiedRun
	for _, w := range v.Workflows {
		if w.FailingCheck() {
			broken = append(broken, w)
		}
	}
	for _, w := range broken {
		b.WriteString("**Check failing:** " + r.t(w.Workflow))
		if w.FailedJob != "" {
			b.WriteString(" (job " + r.c(w.FailedJob) + ")")
		}
		b.WriteString(" " + r.t(w.Conclusion) + " on the fix branch")
		if w.Cause != "" {
			b.WriteString(": " + r.c(w.Cause))
		}
		b.WriteString(". It is not this class's failure; the change must pass it before merging.\n\n")
	}
	where := "the fix branch " + r.c(v.Branch)
	if v.HeadSHA != "" {
		where += " at " + r.shortSHA(v.HeadSHA)
	}
	if len(v.Workflows) == 0 {
		b.WriteString("No workflow of the repository has completed on " + where + " yet.\n\n")
	} else {
		b.WriteString("The repository's own workflows on " + where + ":\n\n")
		for _, w := range v.Workflows {
			b.WriteString("- " + r.t(w.Workflow) + ": " + r.t(w.Conclusion))
			if w.Attempt > 1 {
				b.WriteString(fmt.Sprintf(" (attempt %d)", w.Attempt))
			}
			if w.Runs > 1 {
				b.WriteString(fmt.Sprintf(", latest of %d runs at this head, %d green", w.Runs, w.Green))
			}
			if w.FailedJob != "" {
				b.WriteString(", job " + r.c(w.FailedJob))
			}
			if w.Cause != "" {
				b.WriteString(": " + r.c(w.Cause))
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	if v.Restarted {
		b.WriteString("The branch was pushed to by someone other than Polylane, so the count of green runs started again at its new head.\n\n")
	}
	if v.Refuting == nil && v.Workflow != "" {
		b.WriteString(r.p(ChanceStatement(v.Workflow, v.Green, v.Rate, v.RateKnown)) + "\n\n")
	}
	switch {
	case v.RerunRefused != "":
		b.WriteString("Polylane could not re-run the failing job on the fix branch: GitHub answered " + r.c(v.RerunRefused) + ". Re-running jobs needs the app's `actions: write` permission.\n\n")
	case v.RerunLimit > 0:
		b.WriteString(fmt.Sprintf("Polylane re-ran the failing job on the fix branch %d of at most %d times (fix_pull_requests.verify_reruns).\n\n", v.Reruns, v.RerunLimit))
	}
}

// BuildVerification builds the Verification section of a fix pull request
// from the runs recorded on its branch (oldest first): each workflow's
// latest attempt at the branch's current head, the failure that refutes
// the fix, and the green runs of the class's workflow (workflowID, else by
// name) at that head. The branch's current
// head is the head of its newest run (runs come oldest first), unless Polylane moved the branch
// after that run: then no run of the new head has completed yet. A head
// that Polylane did not write restarts the count.
func BuildVerification(f store.FixPullRequest, runs []store.FixVerificationRun, workflow string, workflowID int64) *Verification {
	v := &Verification{Branch: f.Branch, HeadSHA: f.HeadSHA, Workflow: workflow}
	if n := len(runs); n > 0 {
		last := runs[n-1] // the newest run: run ids grow as runs are created, a rerun keeps its id
		if f.HeadSHA == "" || last.HeadSHA == f.HeadSHA || !f.UpdatedAt.After(last.CompletedAt) {
			v.HeadSHA = last.HeadSHA
		}
	}
	v.Restarted = f.HeadSHA != "" && v.HeadSHA != f.HeadSHA
	index := map[int64]int{}
	for _, r := range runs {
		if r.HeadSHA != v.HeadSHA {
			continue
		}
		vr := VerifiedRun{Workflow: r.WorkflowName, RunID: r.RunID, Attempt: r.Attempt, Conclusion: r.Conclusion,
			FailedJob: r.FailedJob, Cause: r.Cause, InClass: r.InClass}
		if r.InClass {
			refuting := vr
			v.Refuting = &refuting
		}
		ofClass := workflowID != 0 && r.WorkflowID == workflowID || workflowID == 0 && r.WorkflowName == workflow
		if ofClass && r.Conclusion == "success" {
			v.Green++
		}
		if ofClass && r.RunID >= v.WorkflowRun {
			v.WorkflowRun, v.WorkflowGreen = r.RunID, r.Conclusion == "success"
		}
		i, ok := index[r.WorkflowID]
		if !ok {
			i = len(v.Workflows)
			index[r.WorkflowID] = i
			v.Workflows = append(v.Workflows, vr)
		}
		runs, green := v.Workflows[i].Runs+1, v.Workflows[i].Green
		if r.Conclusion == "success" {
			green++
		}
		v.Workflows[i] = vr // runs come oldest first: the latest attempt wins
		v.Workflows[i].Runs, v.Workflows[i].Green = runs, green
	}
	return v
}

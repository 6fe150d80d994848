package dashboard

import (
	"context"
	"strings"
	"time"

	"github.com/polylane/polylane/analysis/redact"
	"github.com/polylane/polylane/server/report"
	"github.com/polylane/polylane/store"
)

// FixVerification is what the repository's own CI said of the class's
// open fix pull request, as its Verification section says it.
type FixVerification struct {
	Number    int    `json:"number"`
	URL       string `json:"url"`
	Branch    string `json:"branch"`
	HeadSHA   string `json:"head_sha"`
	Refuted   bool   `json:"refuted"`
	Failing   int    `json:"failing_checks"` // workflows failing other than in the class's way
	Green     int    `json:"green_runs"`
	Restarted bool   `json:"restarted"`
	// Rate is the class's share of its workflow's finished runs over the
	// class window; Chance is (1−Rate)^Green, the chance of the green runs
	// without the fix.
	Rate      float64           `json:"class_rate"`
	Chance    float64           `json:"chance"`
	Statement string            `json:"statement"`
	Reruns    int               `json:"reruns"`
	Refused   string            `json:"rerun_refused,omitempty"`
	Runs      []VerificationRun `json:"runs"`
}

// VerificationRun is one recorded run attempt on the fix branch.
type VerificationRun struct {
	RunID       int64     `json:"run_id"`
	Attempt     int       `json:"attempt"`
	Workflow    string    `json:"workflow"`
	HeadSHA     string    `json:"head_sha"`
	Conclusion  string    `json:"conclusion"`
	FailedJob   string    `json:"failed_job,omitempty"`
	Cause       string    `json:"cause,omitempty"`
	InClass     bool      `json:"in_class"`
	Current     bool      `json:"at_current_head"`
	CompletedAt time.Time `json:"completed_at"`
	URL         string    `json:"url"`
}

// fixVerification fills the verification of the class's open fix pull
// request, from the runs recorded on its branch and the class's rate over
// the page's timeline.
func (d *Dashboard) fixVerification(ctx context.Context, repo store.Repository, c store.FailureClass, data *ClassData) error {
	f, err := d.st.GetFixPullRequest(ctx, repo.ID, c.ID)
	if err != nil || f.State != store.FixOpen {
		return nil // no open fix: nothing being verified
	}
	runs, err := d.st.ListFixVerificationRuns(ctx, repo.ID, c.ID)
	if err != nil {
		return err
	}
	state, err := d.st.GetFixVerification(ctx, repo.ID, c.ID)
	if err != nil {
		return err
	}
	workflow := ""
	for _, r := range runs {
		if r.WorkflowID == c.WorkflowID {
			workflow = r.WorkflowName
		}
	}
	if workflow == "" {
		workflow = c.WorkflowPath
	}
	v := report.BuildVerification(f, runs, workflow, c.WorkflowID)
	finished, with := 0, 0
	for _, day := range data.Timeline {
		finished, with = finished+day.Finished, with+day.WithClass
	}
	out := &FixVerification{Number: f.Number, URL: d.pullURL(repo.FullName, f.Number), Branch: f.Branch, HeadSHA: v.HeadSHA,
		Refuted: v.Refuted(), Green: v.Green, Restarted: v.Restarted, Reruns: state.Reruns, Refused: redact.String(state.Refused),
		Runs: []VerificationRun{}}
	if finished > 0 {
		out.Rate = float64(with) / float64(finished)
	}
	out.Chance = report.Chance(out.Rate, v.Green)
	if !out.Refuted {
		out.Statement = strings.ReplaceAll(report.ChanceStatement(workflow, v.Green, out.Rate, finished > 0), "`", "")
	}
	for _, w := range v.Workflows {
		if w.FailingCheck() {
			out.Failing++
		}
	}
	for i := len(runs) - 1; i >= 0; i-- {
		r := runs[i]
		out.Runs = append(out.Runs, VerificationRun{RunID: r.RunID, Attempt: r.Attempt, Workflow: r.WorkflowName, HeadSHA: r.HeadSHA,
			Conclusion: r.Conclusion, FailedJob: r.FailedJob, Cause: redact.String(r.Cause), InClass: r.InClass,
			Current: r.HeadSHA == v.HeadSHA, CompletedAt: r.CompletedAt, URL: d.runURL(repo.FullName, r.RunID)})
	}
	data.Verification = out
	return nil
}

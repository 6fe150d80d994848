package diagnosis

import (
	"github.com/polylane/polylane/analysis"
	"github.com/polylane/polylane/analysis/history"
	"github.com/polylane/polylane/analysis/redact"
	"github.com/polylane/polylane/causal"
	"github.com/polylane/polylane/causal/harness"
	"github.com/polylane/polylane/causal/impact"
	"github.com/polylane/polylane/causal/patch"
)

// Schema is the value of the document's "schema" field.
const Schema = "polylane.diagnosis/v1"

// Diagnosis is the polylane.diagnosis/v1 document (contracts.md §2): what the
// CLI prints with --json, what the server stores and the dashboard serves.
// Fields after Verdict that the contract does not name are additions.
type Diagnosis struct {
	Schema     string          `json:"schema"`
	Repository string          `json:"repository"`
	Run        RunInfo         `json:"run"`
	Failure    Failure         `json:"failure"`
	Window     history.Window  `json:"window"`
	Clusters   []history.Class `json:"clusters"`
	Verdict    history.Verdict `json:"verdict"`
	Chain      *causal.Chain   `json:"chain"`
	Patch      *patch.Patch    `json:"patch"`
	Impact     *impact.Impact  `json:"impact"`

	// PullRequest is present when the trigger run belongs to a pull request:
	// whether the failure is the pull request's own.
	PullRequest *PullRequest `json:"pull_request,omitempty"`

	// FirstBadRange is set when the first bad commit is a range (the
	// verdict's last_good_sha): its commits, and those of them that touched
	// what the failing step builds or tests.
	FirstBadRange *FirstBadRange `json:"first_bad_range,omitempty"`

	// FailureRate is the failure rate of the failing step over the window.
	FailureRate history.Rate `json:"failure_rate"`
	// Cadence says in one sentence how often the trigger's class happens.
	Cadence string `json:"cadence"`
	// TriggerClass is the id of the class that holds the trigger's failure.
	TriggerClass string `json:"trigger_class"`
	// UnknownRuns lists failed runs of the window whose jobs or log could not
	// be read, newest first.
	UnknownRuns []int64 `json:"unknown_runs,omitempty"`
	// Summary says in a short paragraph what failed and why; WhyThisFix says
	// why the patch fixes the mechanism, or why there is no patch. Both are
	// built from the evidence by the causal stage.
	Summary    string `json:"summary,omitempty"`
	WhyThisFix string `json:"why_this_fix,omitempty"`
	// Lint is the repository's declared lint command, when one was found.
	Lint *Lint `json:"lint,omitempty"`
	// NotAnalysed lists the repository files the diagnosis did not parse
	// because they are over a safety limit, and which limit.
	NotAnalysed []harness.Skipped `json:"not_analysed,omitempty"`
	// RedactedSecrets lists the credentials the trigger's job log printed
	// on lines Polylane kept (cause, context and cited lines), which every
	// text of the document shows as "[redacted: KIND]": their kind and log
	// line, never the value. GitHub did not mask them; they should be
	// rotated.
	RedactedSecrets []redact.Secret `json:"redacted_secrets,omitempty"`
}

// TriggerCluster returns the class that holds the trigger's failure: the
// one TriggerClass names, else the first that contains the trigger, else
// nil.
func (d *Diagnosis) TriggerCluster() *history.Class {
	for i := range d.Clusters {
		if d.TriggerClass != "" && d.Clusters[i].ID == d.TriggerClass {
			return &d.Clusters[i]
		}
	}
	for i := range d.Clusters {
		if d.Clusters[i].ContainsTrigger {
			return &d.Clusters[i]
		}
	}
	return nil
}

// Lint is the lint command a repository declares (a make or task target, a
// workflow step) and the file and 1-based line that declare it. Polylane
// reports it; it does not run it.
type Lint struct {
	Command string `json:"command"`
	File    string `json:"file"`
	Line    int    `json:"line"`
}

// RunInfo describes the run being diagnosed.
type RunInfo struct {
	ID           int64  `json:"id"`
	Number       int    `json:"number"`
	Attempt      int    `json:"attempt"`
	Workflow     string `json:"workflow"`
	WorkflowPath string `json:"workflow_path"`
	Branch       string `json:"branch"`
	HeadSHA      string `json:"head_sha"`
	Event        string `json:"event"`
	HTMLURL      string `json:"html_url"`
}

// Failure is the trigger run's failure: job, step, cause lines and signature.
type Failure struct {
	Job         JobRef           `json:"job"`
	Step        analysis.StepRef `json:"step"`
	Lines       []analysis.Line  `json:"lines"`
	Signature   string           `json:"signature"`
	SignatureID string           `json:"signature_id,omitempty"`
	ExitCode    *int             `json:"exit_code"`
	// Unknown is set when the failing job's log could not be read.
	Unknown bool `json:"unknown,omitempty"`
	// StepLines locate the failing job's steps in its raw log (first and
	// last line of each), so that citations can link to GitHub's step view.
	StepLines []analysis.StepSpan `json:"step_lines,omitempty"`
	// BaselineRun is the passing run whose log of the same job was the
	// baseline of Lines: lines printed there too were weighed as no cause.
	// Signature stays that of the log alone, so that it clusters with the
	// history's failures. 0 when no passing log was read.
	BaselineRun int64 `json:"baseline_run,omitempty"`
}

// JobRef names a job.
type JobRef struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

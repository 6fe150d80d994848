package causal

import (
	"io"
	"io/fs"

	"github.com/polylane/polylane/analysis/gha"

	"github.com/polylane/polylane/analysis"
	"github.com/polylane/polylane/analysis/history"
	"github.com/polylane/polylane/analysis/redact"
	"github.com/polylane/polylane/causal/catalogue"
	"github.com/polylane/polylane/causal/harness"
	"github.com/polylane/polylane/causal/impact"
	"github.com/polylane/polylane/causal/patch"
)

// Input is everything Explain needs about one failure class.
type Input struct {
	// Repo is the repository tree at the trigger run's head_sha.
	Repo fs.FS
	// Repository is the full name ("owner/name"); Branch the trigger's branch.
	Repository string
	Branch     string
	// WorkflowName and WorkflowPath identify the workflow.
	WorkflowName string
	WorkflowPath string
	// Job is the failing job (ID and Name at least; Steps help the log reader).
	Job gha.Job
	// Step is the failing step.
	Step analysis.StepRef
	// RunID is the trigger run id.
	RunID int64
	// Result is the analysis of the trigger job's log.
	Result *analysis.Result
	// OpenLog streams the trigger job's raw log; nil when the log is missing.
	OpenLog func() (io.ReadCloser, error)
	// Class is the trigger's failure class and Classes all classes of the window.
	Class   *history.Class
	Classes []history.Class
	Window  history.Window
	Verdict history.Verdict
	// Cadence is the history stage's cadence sentence, passed through.
	Cadence string
	// Occurrences are the failures of the trigger class in the window (other
	// runs' cause lines), newest first or in any order.
	Occurrences []history.Occurrence
	// Catalogue is the error-family catalogue to recognise failures with
	// (nil: catalogue.Default; a benchmark passes one without some
	// families).
	Catalogue *catalogue.Catalogue
}

// Explanation is what Explain returns: the causal chain, the proposed patch
// (nil when no harness change is right) and its production impact.
type Explanation struct {
	Chain *Chain
	Patch *patch.Patch
	// Impact is the production-impact assessment of the patch's files; nil
	// when there is no patch.
	Impact *impact.Impact
	// WhatHappened is a short paragraph saying what failed and why.
	WhatHappened string
	// WhyThisFix is a paragraph saying why the patch fixes the mechanism, or
	// why there is no patch.
	WhyThisFix string
	// NotAnalysed lists the repository files left unparsed because they are
	// over a safety limit (size, nesting, the diagnosis's read budget).
	NotAnalysed []harness.Skipped
	// Redacted are the secrets removed from trigger-log lines the chain
	// cites (kind and line, never the secret).
	Redacted []redact.Secret
	// Reach is what the failing step builds or tests (its files and
	// directories), to tell which commits of a range touched it.
	Reach Reach
}

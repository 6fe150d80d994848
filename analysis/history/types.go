package history

import (
	"time"

	"github.com/polylane/polylane/analysis"
)

// Occurrence is the failure of one run in the window: the failing job and step,
// the cause lines and the signature. A run whose log could not be read is kept
// with Unknown set rather than dropped.
type Occurrence struct {
	RunID       int64            `json:"run_id"`
	RunNumber   int              `json:"run_number"`
	RunAttempt  int              `json:"run_attempt"`
	HeadSHA     string           `json:"head_sha"`
	CreatedAt   time.Time        `json:"created_at"`
	JobID       int64            `json:"job_id"`
	JobName     string           `json:"job_name"`
	Step        analysis.StepRef `json:"step"`
	Signature   string           `json:"signature"`
	SignatureID string           `json:"signature_id"`
	Lines       []analysis.Line  `json:"lines"`
	ExitCode    *int             `json:"exit_code,omitempty"`
	Unknown     bool             `json:"unknown,omitempty"`
}

// Window is the set of runs a diagnosis looks at. Field names are part of the
// polylane.diagnosis/v1 contract.
type Window struct {
	Branch string    `json:"branch"`
	Runs   int       `json:"runs"`
	Failed int       `json:"failed"`
	From   time.Time `json:"from"`
	To     time.Time `json:"to"`
}

// Patterns of a class.
const (
	Intermittent = "intermittent"
	Persistent   = "persistent"
)

// Class is a failure class: the failures of one step that share a cause. Field
// names are part of the polylane.diagnosis/v1 contract.
type Class struct {
	ID              string    `json:"id"`
	Step            string    `json:"step"`
	Signature       string    `json:"signature"`
	Count           int       `json:"count"`
	Runs            []int64   `json:"runs"`
	FirstSeen       time.Time `json:"first_seen"`
	LastSeen        time.Time `json:"last_seen"`
	ContainsTrigger bool      `json:"contains_trigger"`
	Pattern         string    `json:"pattern"`
}

// Verdict kinds.
const (
	Flaky      = "flaky"
	Regression = "regression"
	Broken     = "broken"
	New        = "new"
)

// Verdict is the judgement on the trigger run's failure class. Field names are
// part of the polylane.diagnosis/v1 contract.
type Verdict struct {
	Kind        string  `json:"kind"`
	FirstBadSHA *string `json:"first_bad_sha"`
	Confidence  float64 `json:"confidence"`
	// Reason says in one sentence why this verdict was reached.
	Reason string `json:"reason,omitempty"`
}

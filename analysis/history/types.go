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
	// JobBase is the job name without its matrix values, shared by the matrix
	// siblings of one job; classes are keyed on it together with the step name.
	JobBase string `json:"job_base,omitempty"`
	// Cancelled is set for a cancelled run whose jobs were cancelled: nothing
	// failed, so there is no step or log to analyse.
	Cancelled bool `json:"cancelled,omitempty"`
	// Conclusion is the run's conclusion (failure, timed_out, cancelled, ...).
	Conclusion string `json:"conclusion,omitempty"`
	// ErrorKind, Endpoint and Command are the analysis engine's reading of the
	// cause: the failure kind it states (ECONNRESET, timeout, ...), the remote
	// endpoint it names, and the last command echoed before it.
	ErrorKind string `json:"error_kind,omitempty"`
	// ExitLine is the log line that reported the failing exit code.
	ExitLine int    `json:"exit_line,omitempty"`
	Endpoint string `json:"endpoint,omitempty"`
	Command  string `json:"command,omitempty"`
	// Passed lists the steps that succeeded in this run (all jobs), so that the
	// pattern of a class can tell a green run of its step from one that never
	// reached it.
	Passed []JobStep `json:"passed,omitempty"`
	// Cause is the causal stage's reading of the failure (mechanism rule
	// and producer line), kept once it was computed so that a later
	// diagnosis compares classes by cause without reading the log again;
	// nil when it was never computed.
	Cause *Cause `json:"cause,omitempty"`
}

// Cause is the mechanism rule that explains a failure and the harness line
// that produced it; all empty when the causal stage named neither.
type Cause struct {
	Rule string `json:"rule,omitempty"`
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
}

// Known reports whether the cause names both a rule and a producer line.
func (c Cause) Known() bool { return c.Rule != "" && c.File != "" && c.Line > 0 }

// JobStep names a step inside a job (by the job's base name).
type JobStep struct {
	Job  string `json:"job"`
	Step string `json:"step"`
}

// Window is the set of runs a diagnosis looks at. Field names are part of the
// polylane.diagnosis/v1 contract.
type Window struct {
	Branch string    `json:"branch"`
	Runs   int       `json:"runs"`
	Failed int       `json:"failed"`
	From   time.Time `json:"from"`
	To     time.Time `json:"to"`
	// Unknown counts failed runs whose jobs or log could not be read.
	Unknown int `json:"unknown,omitempty"`
	// Cancelled counts cancelled runs (they are also counted in Failed).
	Cancelled int `json:"cancelled,omitempty"`
}

// Patterns of a class.
const (
	Intermittent = "intermittent"
	Persistent   = "persistent"
)

// Class is a failure class: the failures of one step that share a cause. Field
// names are part of the polylane.diagnosis/v1 contract.
type Class struct {
	ID   string `json:"id"`
	Step string `json:"step"`
	// Job is the base name of the job the step belongs to.
	Job       string `json:"job,omitempty"`
	Signature string `json:"signature"`
	Count     int    `json:"count"`
	// Runs are the ids of the runs in the class, newest first.
	Runs            []int64   `json:"runs"`
	FirstSeen       time.Time `json:"first_seen"`
	LastSeen        time.Time `json:"last_seen"`
	ContainsTrigger bool      `json:"contains_trigger"`
	Pattern         string    `json:"pattern"`
	// Family is the error family of the class (network, timeout, test, ...),
	// empty when no family was recognised.
	Family string `json:"family,omitempty"`
	// Endpoints are the remote endpoints (host or host:port) the failures name.
	Endpoints []string `json:"endpoints,omitempty"`
	// Members are the distinct signatures merged into the class, most runs first.
	Members []string `json:"members,omitempty"`
	// Wordings, for a class of several signatures, counts the runs of each
	// (most runs first): the wordings one cause took in the window.
	Wordings []Wording `json:"wordings,omitempty"`
	// FirstSHA is the head commit of the oldest run of the class.
	FirstSHA string `json:"first_sha,omitempty"`
}

// Wording is one signature of a class and the number of its runs.
type Wording struct {
	Signature string `json:"signature"`
	Runs      int    `json:"runs"`
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
	// LastGoodSHA is set when runs between the last green run and the
	// first bad one never got to the step (UntestedRuns of them): the
	// regression started somewhere in (LastGoodSHA, FirstBadSHA].
	LastGoodSHA  string `json:"last_good_sha,omitempty"`
	UntestedRuns int    `json:"untested_runs,omitempty"`
}

package analysis

// Line roles in a Result.
const (
	RoleCause   = "cause"
	RoleContext = "context"
)

// Line is one line of a log: its 1-based number in the log as served (split on
// '\n'; a BOM line is line 1), its text without timestamp and ANSI sequences, and
// its role in the result. Field names are part of the polylane.analysis/v1 contract.
type Line struct {
	N    int    `json:"n"`
	Text string `json:"text"`
	Role string `json:"role,omitempty"`
}

// Result is what Analyze says about one job log. Field names are part of the
// polylane.analysis/v1 contract.
type Result struct {
	// Lines are ranked: the first cause line is the best single statement of why
	// the job failed.
	Lines     []Line `json:"lines"`
	Signature string `json:"signature"`
	// SignatureID is a short stable id derived from Signature.
	SignatureID string   `json:"signature_id"`
	Step        *StepRef `json:"step,omitempty"`
	ExitCode    *int     `json:"exit_code,omitempty"`
}

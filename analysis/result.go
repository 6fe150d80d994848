package analysis

import "github.com/polylane/polylane/analysis/redact"

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

	// The fields below are facts for later stages, beyond the v1 contract.

	// StepLines is the failing step's line range in the log.
	StepLines *LineRange `json:"step_lines,omitempty"`
	// ExitLine is the line that reported the exit code.
	ExitLine int `json:"exit_line,omitempty"`
	// Command is the last command echoed before the cause line ("task: [x] …",
	// "+ …" xtrace, "$ …", "##[command]…", or the step's "Run …" header), and
	// CommandLine its line number.
	Command     string `json:"command,omitempty"`
	CommandLine int    `json:"command_line,omitempty"`
	// Rule is the class of the cause line (compiler, test-failure, exception,
	// infra, error, runner-error, …).
	Rule string `json:"rule,omitempty"`
	// ErrorKind names the failure kind the cause states (ECONNRESET,
	// connection reset by peer, timeout, …), and Endpoint the remote endpoint
	// it names (127.0.0.1:32443).
	ErrorKind string `json:"error_kind,omitempty"`
	Endpoint  string `json:"endpoint,omitempty"`
	// Test names the failing test when a test runner reported one (the
	// innermost of nested tests: "chainsaw/workload-placement"); it leads the
	// signature.
	Test string `json:"test,omitempty"`
	// TotalLines is the number of lines read.
	TotalLines int `json:"total_lines"`
	// Steps are the step spans recovered from the log, in order.
	Steps []StepSpan `json:"steps,omitempty"`
	// Redacted lists the secrets removed from the lines, the command and
	// the test name above (their kind and log line, never the secret):
	// credentials the log printed without GitHub's mask.
	Redacted []redact.Secret `json:"redacted_secrets,omitempty"`
}

// LineRange is an inclusive range of 1-based line numbers.
type LineRange struct {
	First int `json:"first"`
	Last  int `json:"last"`
}

// Cause returns the first cause line, if any.
func (r *Result) Cause() (Line, bool) {
	for _, l := range r.Lines {
		if l.Role == RoleCause {
			return l, true
		}
	}
	return Line{}, false
}

// StepRef names a step by number and name; it is what the diagnosis reports.
type StepRef struct {
	Number int    `json:"number"`
	Name   string `json:"name"`
}

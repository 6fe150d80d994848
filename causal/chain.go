package causal

import "encoding/json"

// Chain is the causal chain of a failure class: what was seen, where it surfaced,
// the mechanism, the harness code that produced it, what happens to the failed unit
// today, how often it happens, what else it touches, and the evidence for each claim.
// Field names are part of the polylane.diagnosis/v1 contract.
type Chain struct {
	Signal          string      `json:"signal"`
	SurfacingSite   Site        `json:"surfacing_site"`
	Mechanism       Mechanism   `json:"mechanism"`
	Producer        Producer    `json:"producer"`
	FailedUnitToday FailedUnit  `json:"failed_unit_today"`
	Cadence         string      `json:"cadence"`
	BlastRadius     BlastRadius `json:"blast_radius"`
	Evidence        []Evidence  `json:"evidence"`
}

// Site is where a failure surfaced: a workflow file, line and step.
type Site struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Step string `json:"step"`
}

// Mechanism names how the failure happens.
type Mechanism struct {
	Category Category `json:"category"`
	Summary  string   `json:"summary"`
	// Rule is the id of the mechanism rule that matched, empty for unknown.
	Rule string `json:"rule,omitempty"`
	// Evidence lists the ids of the evidence entries the rule relied on.
	Evidence []string `json:"evidence,omitempty"`
	// Family is the id of the catalogued error family the cause line
	// belongs to, when the rule recognised it through the catalogue.
	Family string `json:"family,omitempty"`
	// KnownElsewhere are up to two public threads where the same error
	// family was diagnosed and fixed.
	KnownElsewhere []string `json:"known_elsewhere,omitempty"`
	// Test names the failed test of a test failure, when the runner's
	// output names it.
	Test *FailedTest `json:"test,omitempty"`
}

// Producer is the harness code whose behaviour makes the failure possible.
type Producer struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Symbol string `json:"symbol"`
	// Ambiguous is set when several places could be the producer; Candidates lists them.
	Ambiguous  bool       `json:"ambiguous,omitempty"`
	Candidates []Location `json:"candidates,omitempty"`
	// Gap says where the trace stopped below the producer: a file the
	// harness calls that is not in the repository or does not parse, a
	// recursion that was cut, a script reached only from the log.
	Gap string `json:"gap,omitempty"`
}

// MarshalJSON writes an empty producer file as null: a failure with no
// harness producer (a product regression) has none (contracts.md §3).
func (p Producer) MarshalJSON() ([]byte, error) {
	type plain Producer
	var file any = p.File
	if p.File == "" {
		file = nil
	}
	return json.Marshal(struct {
		File any `json:"file"`
		plain
	}{file, plain(p)})
}

// Location is a file:line position with the symbol (task, target, step) it belongs to.
type Location struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Symbol string `json:"symbol,omitempty"`
}

// FailedUnit says what happens to the failed unit today, such as existing retries.
type FailedUnit struct {
	Retried bool   `json:"retried"`
	Summary string `json:"summary"`
}

// BlastRadius says what else calls the producer.
type BlastRadius struct {
	Summary string     `json:"summary"`
	Callers []Location `json:"callers,omitempty"`
}

// Evidence kinds.
const (
	EvidenceFile = "file"
	EvidenceLog  = "log"
	EvidenceRuns = "runs"
)

// Evidence is one cited fact: a repository file line or a job log line.
type Evidence struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"`
	File  string `json:"file,omitempty"`
	Line  int    `json:"line,omitempty"`
	RunID int64  `json:"run_id,omitempty"`
	JobID int64  `json:"job_id,omitempty"`
	Text  string `json:"text"`
	// Note says in our words what the cited line shows.
	Note string `json:"note,omitempty"`
}

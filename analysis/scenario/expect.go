package scenario

import (
	"bytes"
	"encoding/json"
)

// Expect holds the facts of expect.json (contracts.md §3) that a correct
// diagnosis of the scenario must contain. Pointer and Optional fields tell an
// absent fact (not checked) from a present one; unknown fields are ignored.
type Expect struct {
	TriggerStep           *string        `json:"trigger_step"`
	Window                *ExpectWindow  `json:"window"`
	TriggerClusterCount   *int           `json:"trigger_cluster_count"`
	ClustersInTriggerStep *int           `json:"clusters_in_trigger_step"`
	Verdict               *string        `json:"verdict"`
	FirstBadSHA           OptionalString `json:"first_bad_sha"`
	CauseLineContains     *string        `json:"cause_line_contains"`
	Pattern               *string        `json:"pattern"`
	Mechanism             *string        `json:"mechanism"`
	MechanismAny          []string       `json:"mechanism_any"`
	ProducerFile          OptionalString `json:"producer_file"`
	ProducerLineRange     []int          `json:"producer_line_range"`
	PatchExpected         *bool          `json:"patch_expected"`
	PatchFiles            []string       `json:"patch_files"`
	PatchFilesAny         []string       `json:"patch_files_any"`
	CIOnly                *bool          `json:"ci_only"`
	AffectedContains      *string        `json:"affected_contains"`
	// PatchContainsAny, for a case whose maintainers fixed the harness,
	// lists words of their fix (a flag, a setting, a command); a patch that
	// resembles it adds at least one of them.
	PatchContainsAny []string `json:"patch_contains_any"`
	// PRClassification is the expected pull_request.classification of a
	// pull-request run; SeenElsewhereMin is the least number of runs outside
	// the pull request (other pull requests, base branch) in its class.
	PRClassification *string `json:"pr_classification"`
	SeenElsewhereMin *int    `json:"seen_elsewhere_min"`
	// RangeTouching, for a first bad commit that is a range, lists the
	// commits of the range that touched what the failing step builds or
	// tests (first_bad_range.touching), oldest first; empty when none did.
	RangeTouching []string `json:"range_touching"`
}

// ExpectWindow is the window fact of expect.json.
type ExpectWindow struct {
	Runs   *int `json:"runs"`
	Failed *int `json:"failed"`
}

// OptionalString is a JSON string fact that may be absent (Set is false), null
// (Set is true, Value is nil) or a string.
type OptionalString struct {
	Set   bool
	Value *string
}

// UnmarshalJSON records that the field was present and whether it was null.
func (o *OptionalString) UnmarshalJSON(data []byte) error {
	o.Set = true
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		o.Value = nil
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	o.Value = &s
	return nil
}

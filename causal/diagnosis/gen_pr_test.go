package diagnosis

import "strings"

// prScenarios are pull-request runs judged against the base branch and the
// other pull requests of their workflow. Their runs are written as
// owner+code pairs (see genScenario.owners), oldest first.
var prScenarios = []genScenario{
	owned(genScenario{name: "pr-flaky-across-prs", workflow: "CI", steps: goSteps, pr: genPR{number: 30, branch: "cart-coupons"},
		failures: map[byte]genFailure{'A': netReset},
		expect: map[string]any{"trigger_step": "Download modules", "window": map[string]int{"runs": 3, "failed": 1},
			"cause_line_contains": "connection reset by peer", "pr_classification": "flaky", "seen_elsewhere_min": 4}},
		"m. m. 1A m. 2. mA 1. 3A m. t. 2A m. t. tA"),
	owned(genScenario{name: "pr-flaky-fork", workflow: "CI", steps: goSteps,
		failures: map[byte]genFailure{'C': searchFlake},
		expect: map[string]any{"trigger_step": "Unit tests", "window": map[string]int{"runs": 3, "failed": 1},
			"cause_line_contains": "TestSearchSuggestions", "pr_classification": "flaky", "seen_elsewhere_min": 3}},
		"m. fC m. g. mC f. m. gC F. m. F. FC"),
	owned(genScenario{name: "pr-broken-base", workflow: "CI", steps: goSteps, pr: genPR{number: 31, branch: "merge-main"},
		failures: map[byte]genFailure{'A': cartRegression},
		expect: map[string]any{"trigger_step": "Unit tests", "window": map[string]int{"runs": 6, "failed": 2},
			"verdict": "regression", "first_bad_sha": "@A", "cause_line_contains": "TestCartTotal",
			"pr_classification": "broken-base", "seen_elsewhere_min": 4}},
		"m. t. 1. t. m. t. 2. t. mx mA 2A tA mA 1A tA"),
	owned(genScenario{name: "pr-broken-base-pr-only", workflow: "E2E", steps: goSteps, pr: genPR{number: 32, branch: "docs-typo"},
		failures: map[byte]genFailure{'B': compileError},
		expect: map[string]any{"trigger_step": "Build", "window": map[string]int{"runs": 3, "failed": 1},
			"cause_line_contains": "undefined: NewClient", "pr_classification": "broken-base", "seen_elsewhere_min": 4}},
		"1. 2. t. 3. 1. 2B 3B 1B t. 2B tB"),
	owned(genScenario{name: "pr-new", workflow: "CI", steps: goSteps, pr: genPR{number: 33, branch: "cart-rounding"},
		failures: map[byte]genFailure{'A': cartRegression, 'N': netReset},
		expect: map[string]any{"trigger_step": "Unit tests", "window": map[string]int{"runs": 5, "failed": 3},
			"verdict": "regression", "first_bad_sha": "@A", "cause_line_contains": "TestCartTotal",
			"pr_classification": "new", "seen_elsewhere_min": 0, "patch_expected": false}},
		"m. 1N m. t. 2. m. t. 1. tA m. 2N tA m. tA"),
	owned(genScenario{name: "pr-new-pr-only", workflow: "E2E", steps: goSteps, pr: genPR{number: 34, branch: "api-client"},
		failures: map[byte]genFailure{'B': compileError, 'N': netReset},
		expect: map[string]any{"trigger_step": "Build", "window": map[string]int{"runs": 3, "failed": 1},
			"cause_line_contains": "undefined: NewClient", "pr_classification": "new", "seen_elsewhere_min": 0, "patch_expected": false}},
		"1. 2. t. 1N 3. t. 2. 3. 1. tB"),
	owned(genScenario{name: "pr-unknown", workflow: "E2E", steps: goSteps, pr: genPR{number: 35, branch: "first"},
		failures: map[byte]genFailure{'B': compileError},
		expect: map[string]any{"trigger_step": "Build", "window": map[string]int{"runs": 2, "failed": 1},
			"pr_classification": "unknown", "seen_elsewhere_min": 0}},
		"t. tB"),
}

// owned sets g's owners and history from space-separated owner+code pairs.
func owned(g genScenario, runs string) genScenario {
	var owners, history strings.Builder
	for _, p := range strings.Fields(runs) {
		owners.WriteByte(p[0])
		history.WriteByte(p[1])
	}
	g.owners, g.history = owners.String(), history.String()
	return g
}

package diagnosis

import (
	"cmp"
	"io/fs"

	"github.com/polylane/polylane/analysis/history"
	"github.com/polylane/polylane/analysis/scenario"
	"github.com/polylane/polylane/causal/catalogue"
)

// Options adjust a diagnosis of a scenario directory.
type Options struct {
	// RunID overrides the scenario's trigger run when non-zero.
	RunID int64
	// Window is the number of runs to look at; 0 means the default (100).
	Window int
	// Analyze replaces the analysis engine (tests); nil means analysis.Analyze.
	Analyze history.Analyzer
	// Previous are earlier classes whose ids should be kept.
	Previous []history.Class
	// Catalogue replaces the shipped error-family catalogue (benchmarks
	// that leave a case's own families out); nil means catalogue.Default.
	Catalogue *catalogue.Catalogue
}

// FromScenario builds the Input of a scenario: its repository, workflow, runs,
// jobs and logs (read lazily), and repo/ tree.
func FromScenario(s *scenario.Scenario, opts Options) Input {
	return Input{
		Repository: Repository{ID: s.Repository.ID, FullName: s.Repository.FullName,
			DefaultBranch: s.Repository.DefaultBranch, HTMLURL: s.Repository.HTMLURL},
		Workflow:     Workflow{ID: s.Workflow.ID, Name: s.Workflow.Name, Path: s.Workflow.Path},
		TriggerRunID: cmp.Or(opts.RunID, s.TriggerRunID),
		Runs:         s.Runs,
		Source:       s,
		Analyze:      opts.Analyze,
		Tree:         s.Repo(),
		Previous:     opts.Previous,
		WindowSize:   opts.Window,
		Catalogue:    opts.Catalogue,
		Compare:      s.Compare,
	}
}

// DiagnoseScenario loads the scenario directory fsys and diagnoses it. It is
// the code path of `polylane diagnose --scenario DIR`.
func DiagnoseScenario(fsys fs.FS, opts Options) (*Outcome, *scenario.Scenario, error) {
	s, err := scenario.Load(fsys)
	if err != nil {
		return nil, nil, err
	}
	out, err := Diagnose(FromScenario(s, opts))
	if err != nil {
		return nil, s, err
	}
	return out, s, nil
}

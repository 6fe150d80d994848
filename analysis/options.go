package analysis

import "github.com/polylane/polylane/analysis/gha"

// Options tune Analyze and NewScanner. The zero value is ready to use.
type Options struct {
	// Steps are the jobs API steps of the job whose log is read; with them the
	// scanner names steps exactly and finds the failing one by conclusion.
	Steps []gha.Step
	// Baseline holds the normalised lines of passing logs of the same job;
	// lines found there count as evidence against being a cause.
	Baseline *Baseline
	// MaxLineBytes caps the length of one line (DefaultMaxLineBytes when 0);
	// longer lines are truncated.
	MaxLineBytes int
}

package diagnosis

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/polylane/polylane/analysis"
	"github.com/polylane/polylane/analysis/gha"
	"github.com/polylane/polylane/analysis/history"
)

// BaselineFunc returns the baseline of the job named jobName in a passing
// run: the lines of its log, which count as evidence against being the
// cause of the trigger's failure. A run, job or log that is absent gives a
// nil baseline and no error.
type BaselineFunc func(pass gha.Run, jobName string) (*analysis.Baseline, error)

// SourceBaseline reads the passing run's jobs and the log of its successful
// job named jobName from src.
func SourceBaseline(src history.Source) BaselineFunc {
	return func(pass gha.Run, jobName string) (*analysis.Baseline, error) {
		jobs, err := src.Jobs(pass.ID)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("jobs of passing run %d: %w", pass.ID, err)
		}
		for _, j := range jobs {
			if j.Name != jobName || j.Conclusion != "success" {
				continue
			}
			rc, err := src.OpenLog(j.ID)
			if errors.Is(err, fs.ErrNotExist) {
				return nil, nil
			}
			if err != nil {
				return nil, fmt.Errorf("open log of passing job %d: %w", j.ID, err)
			}
			b := analysis.NewBaseline()
			err = b.Add(rc)
			if closeErr := rc.Close(); err == nil {
				err = closeErr
			}
			if err != nil {
				return nil, fmt.Errorf("log of passing job %d: %w", j.ID, err)
			}
			return b, nil
		}
		return nil, nil
	}
}

// passingRun returns the most recent run of the workflow that succeeded
// before the trigger was created: on the trigger's branch, else on the
// default branch. The latest attempt of each run counts.
func passingRun(runs []gha.Run, trigger gha.Run, defaultBranch string) (gha.Run, bool) {
	var same, base gha.Run
	for _, r := range history.LatestAttempts(runs) {
		if r.ID == trigger.ID || r.Conclusion != "success" || !r.CreatedAt.Before(trigger.CreatedAt) {
			continue
		}
		switch {
		case r.HeadBranch == trigger.HeadBranch && (same.ID == 0 || r.CreatedAt.After(same.CreatedAt)):
			same = r
		case r.HeadBranch == defaultBranch && defaultBranch != "" && (base.ID == 0 || r.CreatedAt.After(base.CreatedAt)):
			base = r
		}
	}
	if same.ID != 0 {
		return same, true
	}
	return base, base.ID != 0
}

// triggerAnalyzer returns the analyzer of the trigger's job: the analysis
// engine with the log of the same job in the last passing run as its
// baseline, when there is one. A custom in.Analyze (tests) is used as it is.
// base is the passing run whose log was used (0 when none).
func triggerAnalyzer(in Input, trigger gha.Run, jobName string, analyze history.Analyzer) (history.Analyzer, int64, error) {
	if in.Analyze != nil || in.NoBaseline {
		return analyze, 0, nil
	}
	pass, ok := passingRun(in.Runs, trigger, in.Repository.DefaultBranch)
	if !ok {
		return analyze, 0, nil
	}
	of := in.Baseline
	if of == nil {
		of = SourceBaseline(in.Source)
	}
	b, err := of(pass, jobName)
	if err != nil || b == nil {
		return analyze, 0, err
	}
	return func(log io.Reader, steps []gha.Step) (*analysis.Result, error) {
		return analysis.Analyze(log, analysis.Options{Steps: steps, Baseline: b})
	}, pass.ID, nil
}

package diagnosis

import (
	"io"

	"github.com/polylane/polylane/analysis/gha"

	"github.com/polylane/polylane/analysis"
)

// defaultAnalyzer analyses a job log with the analysis engine, giving it the
// jobs-API steps of the job.
func defaultAnalyzer(log io.Reader, steps []gha.Step) (*analysis.Result, error) {
	return analysis.Analyze(log, analysis.Options{Steps: steps})
}

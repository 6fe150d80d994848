package history

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/polylane/polylane/analysis/gha"

	"github.com/polylane/polylane/analysis"
)

// Analyzer analyses one job log given the jobs-API steps of that job. The
// pipeline passes a function that calls analysis.Analyze.
type Analyzer func(log io.Reader, steps []gha.Step) (*analysis.Result, error)

// Source reads the jobs of a run and the log of a job. Both return an error
// wrapping fs.ErrNotExist when the data is absent; the run is then kept as an
// Unknown occurrence. Any other error aborts the diagnosis.
type Source interface {
	Jobs(runID int64) ([]gha.Job, error)
	OpenLog(jobID int64) (io.ReadCloser, error)
}

// maxOccurrenceLines bounds the lines kept per occurrence.
const maxOccurrenceLines = 12

// ExtractRun turns one failed run into occurrences: one per failed or
// timed-out job (matrix siblings are each analysed), with the failing step
// from the jobs API (refined by the analysis when the API names none), and the
// cause lines, signature and exit code of analyze. A run whose jobs file is
// missing, or a job whose log is missing, yields an Unknown occurrence; a
// cancelled run whose jobs were cancelled yields one Cancelled occurrence.
func ExtractRun(run gha.Run, src Source, analyze Analyzer) ([]Occurrence, error) {
	base := Occurrence{RunID: run.ID, RunNumber: run.RunNumber, RunAttempt: run.RunAttempt,
		HeadSHA: run.HeadSHA, CreatedAt: run.CreatedAt, Conclusion: run.Conclusion}
	jobs, err := src.Jobs(run.ID)
	if errors.Is(err, fs.ErrNotExist) {
		base.Unknown = true
		return []Occurrence{base}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read jobs of run %d: %w", run.ID, err)
	}
	bases := jobBases(jobs)
	base.Passed = passedSteps(jobs, bases)
	var out []Occurrence
	for i, job := range jobs {
		if job.Conclusion != "failure" && job.Conclusion != "timed_out" {
			continue
		}
		o := base
		o.JobID, o.JobName, o.JobBase = job.ID, job.Name, bases[i]
		o.Step = failingStep(job)
		if err := analyzeJob(&o, job, src, analyze); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	if len(out) == 0 {
		o := base
		o.Cancelled = run.Conclusion == "cancelled" || allCancelled(jobs)
		o.Unknown = !o.Cancelled
		out = append(out, o)
	}
	return out, nil
}

// analyzeJob reads the job's log into o, or marks o Unknown when it is missing.
func analyzeJob(o *Occurrence, job gha.Job, src Source, analyze Analyzer) error {
	log, err := src.OpenLog(job.ID)
	if errors.Is(err, fs.ErrNotExist) {
		o.Unknown = true
		return nil
	}
	if err != nil {
		return fmt.Errorf("open log of job %d: %w", job.ID, err)
	}
	res, err := analyze(log, job.Steps)
	closeErr := log.Close()
	if err != nil {
		return fmt.Errorf("analyse log of job %d: %w", job.ID, err)
	}
	if closeErr != nil {
		return fmt.Errorf("close log of job %d: %w", job.ID, closeErr)
	}
	o.Signature, o.SignatureID, o.ExitCode = res.Signature, res.SignatureID, res.ExitCode
	o.ErrorKind, o.Endpoint, o.Command, o.ExitLine = res.ErrorKind, res.Endpoint, res.Command, res.ExitLine
	o.Lines = keepLines(res.Lines, res.ExitLine)
	if o.Step.Name == "" && res.Step != nil {
		o.Step = *res.Step
	}
	return nil
}

// keepLines bounds the lines kept for an occurrence: the cause lines and the
// lines just before the exit line first, then the others in rank order.
func keepLines(lines []analysis.Line, exit int) []analysis.Line {
	if len(lines) <= maxOccurrenceLines {
		return lines
	}
	key := func(l analysis.Line) bool {
		return l.Role == analysis.RoleCause || exit > 0 && l.N < exit && l.N >= exit-tailReach
	}
	out := make([]analysis.Line, 0, maxOccurrenceLines)
	for _, l := range lines {
		if key(l) && len(out) < maxOccurrenceLines {
			out = append(out, l)
		}
	}
	for _, l := range lines {
		if !key(l) && len(out) < maxOccurrenceLines {
			out = append(out, l)
		}
	}
	return out
}

// failingStep is the step the jobs API marks as failed: the first failed step
// that is not a post step, else the first failed one; for a timed-out job,
// the step that was cancelled when time ran out.
func failingStep(job gha.Job) analysis.StepRef {
	var post, cancelled *gha.Step
	for i := range job.Steps {
		s := &job.Steps[i]
		switch s.Conclusion {
		case "failure", "timed_out":
			if !strings.HasPrefix(s.Name, "Post ") {
				return analysis.StepRef{Number: s.Number, Name: s.Name}
			}
			if post == nil {
				post = s
			}
		case "cancelled":
			if cancelled == nil {
				cancelled = s
			}
		}
	}
	switch {
	case post != nil:
		return analysis.StepRef{Number: post.Number, Name: post.Name}
	case cancelled != nil && job.Conclusion == "timed_out":
		return analysis.StepRef{Number: cancelled.Number, Name: cancelled.Name}
	}
	return analysis.StepRef{}
}

func allCancelled(jobs []gha.Job) bool {
	for _, j := range jobs {
		if j.Conclusion != "cancelled" && j.Conclusion != "skipped" {
			return false
		}
	}
	return len(jobs) > 0
}

// passedSteps lists the steps that succeeded in any job of the run.
func passedSteps(jobs []gha.Job, bases []string) []JobStep {
	var out []JobStep
	for i, j := range jobs {
		for _, s := range j.Steps {
			if s.Conclusion == "success" {
				out = append(out, JobStep{Job: bases[i], Step: s.Name})
			}
		}
	}
	return out
}

// jobBases returns the base name of each job: the name without a trailing
// matrix suffix " (a, b)". Jobs of one run with the same list of steps are
// matrix siblings even when their names are custom ("Test on ubuntu", "Test on
// macos"); they share the longest common prefix of their names when it is
// meaningful.
func jobBases(jobs []gha.Job) []string {
	bases := make([]string, len(jobs))
	groups := map[string][]int{}
	for i, j := range jobs {
		bases[i] = stripMatrix(j.Name)
		if len(j.Steps) > 0 {
			groups[stepList(j.Steps)] = append(groups[stepList(j.Steps)], i)
		}
	}
	for _, idx := range groups {
		if len(idx) < 2 {
			continue
		}
		prefix := bases[idx[0]]
		for _, i := range idx[1:] {
			prefix = commonPrefix(prefix, bases[i])
		}
		prefix = wordPrefix(prefix, bases, idx)
		if len(prefix) < 3 {
			continue
		}
		for _, i := range idx {
			bases[i] = prefix
		}
	}
	return bases
}

// stripMatrix removes a trailing parenthesised matrix suffix from a job name.
func stripMatrix(name string) string {
	name = strings.TrimSpace(name)
	if strings.HasSuffix(name, ")") {
		if i := strings.LastIndex(name, " ("); i > 0 {
			return strings.TrimSpace(name[:i])
		}
	}
	return name
}

func stepList(steps []gha.Step) string {
	var b strings.Builder
	for _, s := range steps {
		b.WriteString(s.Name)
		b.WriteByte('\n')
	}
	return b.String()
}

func commonPrefix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return a[:n]
}

// wordPrefix cuts prefix back to a word boundary of every name in idx and
// trims trailing separators, so "lint" and "link-check" share nothing.
func wordPrefix(prefix string, names []string, idx []int) string {
	boundary := func(n int) bool {
		for _, i := range idx {
			if n < len(names[i]) && !isSeparator(names[i][n]) {
				return false
			}
		}
		return true
	}
	n := len(prefix)
	for n > 0 && !boundary(n) {
		n--
	}
	return strings.TrimRight(prefix[:n], " -_:/(,")
}

func isSeparator(c byte) bool {
	return c == ' ' || c == '-' || c == '_' || c == ':' || c == '/' || c == '(' || c == ','
}

package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"

	"github.com/polylane/polylane/analysis/gha"
)

// Schema is the value of scenario.json's "schema" field this package reads.
const Schema = "polylane.scenario/v1"

// File names inside a scenario directory.
const (
	ScenarioFile = "scenario.json"
	RunsFile     = "runs.json"
	ExpectFile   = "expect.json"
	JobsDir      = "jobs"
	LogsDir      = "logs"
	RepoDir      = "repo"
)

// Owner is the account that owns a repository.
type Owner struct {
	Login string `json:"login"`
}

// Repository is the repository object of scenario.json, with GitHub's field names.
type Repository struct {
	ID            int64  `json:"id"`
	Name          string `json:"name"`
	FullName      string `json:"full_name"`
	Owner         Owner  `json:"owner"`
	DefaultBranch string `json:"default_branch"`
	HTMLURL       string `json:"html_url"`
	Private       bool   `json:"private"`
}

// Workflow identifies the workflow a scenario is about.
type Workflow struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	Path string `json:"path"`
}

// Scenario is a loaded scenario directory. Runs are read eagerly; jobs files and
// logs are read on demand through Jobs and OpenLog, so that large logs are
// streamed and a missing file only matters to the run it belongs to.
type Scenario struct {
	Schema         string     `json:"schema"`
	Repository     Repository `json:"repository"`
	InstallationID int64      `json:"installation_id"`
	Workflow       Workflow   `json:"workflow"`
	TriggerRunID   int64      `json:"trigger_run_id"`

	// Runs are the workflow runs of runs.json in file order (newest first as
	// GitHub serves them); every branch and event is present.
	Runs []gha.Run `json:"-"`
	// TotalCount is runs.json's total_count.
	TotalCount int `json:"-"`
	// Expect holds the facts of expect.json, nil when the file is absent.
	Expect *Expect `json:"-"`

	fsys fs.FS
}

// runList is the body of runs.json.
type runList struct {
	TotalCount   int       `json:"total_count"`
	WorkflowRuns []gha.Run `json:"workflow_runs"`
}

// jobList is the body of jobs/<run_id>.json.
type jobList struct {
	TotalCount int       `json:"total_count"`
	Jobs       []gha.Job `json:"jobs"`
}

// Load reads a scenario directory through fsys (the CLI passes os.DirFS(dir)).
// It reads scenario.json, runs.json and, when present, expect.json, and checks
// that the trigger run is listed. Errors name the file and what is wrong with it.
// Missing jobs files and logs are not errors here: they are the reader's concern.
func Load(fsys fs.FS) (*Scenario, error) {
	s := &Scenario{fsys: fsys}
	if err := readJSON(fsys, ScenarioFile, s); err != nil {
		return nil, err
	}
	if err := s.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", ScenarioFile, err)
	}
	var runs runList
	if err := readJSON(fsys, RunsFile, &runs); err != nil {
		return nil, err
	}
	if runs.WorkflowRuns == nil {
		return nil, fmt.Errorf("%s: no \"workflow_runs\" array", RunsFile)
	}
	s.Runs, s.TotalCount = runs.WorkflowRuns, runs.TotalCount
	if _, ok := s.Run(s.TriggerRunID); !ok {
		return nil, fmt.Errorf("%s: trigger run %d (trigger_run_id of %s) is not listed", RunsFile, s.TriggerRunID, ScenarioFile)
	}
	expect, err := loadExpect(fsys)
	if err != nil {
		return nil, err
	}
	s.Expect = expect
	return s, nil
}

func (s *Scenario) validate() error {
	switch {
	case s.Schema == "":
		return fmt.Errorf("missing \"schema\" (want %q)", Schema)
	case s.Schema != Schema:
		return fmt.Errorf("schema is %q, want %q", s.Schema, Schema)
	case s.TriggerRunID <= 0:
		return errors.New("missing or invalid \"trigger_run_id\"")
	case s.Repository.FullName == "":
		return errors.New("missing \"repository.full_name\"")
	}
	return nil
}

func loadExpect(fsys fs.FS) (*Expect, error) {
	var e Expect
	err := readJSON(fsys, ExpectFile, &e)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &e, nil
}

// Run returns the run with the given id. When the listing holds several
// attempts of one run, the latest attempt is returned.
func (s *Scenario) Run(id int64) (gha.Run, bool) {
	var best gha.Run
	found := false
	for _, r := range s.Runs {
		if r.ID == id && (!found || r.RunAttempt > best.RunAttempt) {
			best, found = r, true
		}
	}
	return best, found
}

// Jobs reads jobs/<runID>.json and returns the jobs of the run's latest attempt
// listed there. A missing file yields an error that wraps fs.ErrNotExist.
func (s *Scenario) Jobs(runID int64) ([]gha.Job, error) {
	var list jobList
	if err := readJSON(s.fsys, JobsDir+"/"+strconv.FormatInt(runID, 10)+".json", &list); err != nil {
		return nil, err
	}
	return latestAttempt(list.Jobs), nil
}

// latestAttempt keeps the jobs of the highest run_attempt present (a listing
// made with filter=all holds every attempt).
func latestAttempt(jobs []gha.Job) []gha.Job {
	maxAttempt := 0
	for _, j := range jobs {
		maxAttempt = max(maxAttempt, j.RunAttempt)
	}
	out := jobs[:0:0]
	for _, j := range jobs {
		if j.RunAttempt == maxAttempt || j.RunAttempt == 0 {
			out = append(out, j)
		}
	}
	return out
}

// OpenLog opens logs/<jobID>.txt for streaming. A missing log yields an error
// that wraps fs.ErrNotExist. The caller closes the reader.
func (s *Scenario) OpenLog(jobID int64) (io.ReadCloser, error) {
	name := LogsDir + "/" + strconv.FormatInt(jobID, 10) + ".txt"
	f, err := s.fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	return f, nil
}

// Repo returns the repository tree at the trigger run's head_sha (the repo/
// subtree). It is empty when the scenario has no repo/ directory.
func (s *Scenario) Repo() fs.FS {
	sub, err := fs.Sub(s.fsys, RepoDir)
	if err != nil { // only for an invalid name, which RepoDir is not
		return emptyFS{}
	}
	return sub
}

// emptyFS is a file system without files.
type emptyFS struct{}

func (emptyFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// readJSON decodes one file of fsys into v. Syntax and type errors carry the
// file name and the line and column where decoding stopped.
func readJSON(fsys fs.FS, name string, v any) error {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: file is missing: %w", name, fs.ErrNotExist)
		}
		return fmt.Errorf("read %s: %w", name, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return describeJSONError(name, data, err)
	}
	return nil
}

func describeJSONError(name string, data []byte, err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		line, col := position(data, syntax.Offset)
		return fmt.Errorf("%s: invalid JSON at line %d, column %d (offset %d): %w", name, line, col, syntax.Offset, err)
	case errors.As(err, &typ):
		line, col := position(data, typ.Offset)
		field := typ.Field
		if field == "" {
			field = "(top level)"
		}
		return fmt.Errorf("%s: field %s at line %d, column %d: JSON %s where %s was expected", name, field, line, col, typ.Value, typ.Type)
	default:
		return fmt.Errorf("%s: %w", name, err)
	}
}

// position converts a byte offset into a 1-based line and column.
func position(data []byte, offset int64) (line, col int) {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line = bytes.Count(before, []byte{'\n'}) + 1
	col = int(offset) - (bytes.LastIndexByte(before, '\n') + 1)
	if col == 0 {
		col = 1
	}
	return line, col
}

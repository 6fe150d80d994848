package scenario

import (
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
)

const scenarioJSON = `{
  "schema": "polylane.scenario/v1",
  "repository": {"id": 1, "name": "demo", "full_name": "acme/demo", "owner": {"login": "acme"},
                 "default_branch": "main", "html_url": "https://github.com/acme/demo", "private": false},
  "installation_id": 42,
  "workflow": {"id": 7, "name": "CI", "path": ".github/workflows/ci.yml"},
  "trigger_run_id": 102
}`

const runsJSON = `{"total_count": 3, "workflow_runs": [
  {"id": 102, "run_number": 3, "run_attempt": 1, "head_branch": "main", "head_sha": "c3", "event": "push",
   "status": "completed", "conclusion": "failure", "workflow_id": 7, "created_at": "2026-10-03T10:00:00Z"},
  {"id": 101, "run_number": 2, "run_attempt": 2, "head_branch": "main", "head_sha": "c2", "event": "push",
   "status": "completed", "conclusion": "success", "workflow_id": 7, "created_at": "2026-10-02T10:00:00Z"},
  {"id": 101, "run_number": 2, "run_attempt": 1, "head_branch": "main", "head_sha": "c2", "event": "push",
   "status": "completed", "conclusion": "failure", "workflow_id": 7, "created_at": "2026-10-02T10:00:00Z"}
]}`

const jobsJSON = `{"total_count": 2, "jobs": [
  {"id": 9001, "run_id": 102, "run_attempt": 1, "name": "test", "status": "completed", "conclusion": "failure",
   "steps": [{"number": 1, "name": "Set up job", "status": "completed", "conclusion": "success"},
             {"number": 2, "name": "Test", "status": "completed", "conclusion": "failure"}]}
]}`

func validFS() fstest.MapFS {
	return fstest.MapFS{
		"scenario.json": {Data: []byte(scenarioJSON)},
		"runs.json":     {Data: []byte(runsJSON)},
		"jobs/102.json": {Data: []byte(jobsJSON)},
		"logs/9001.txt": {Data: []byte("\ufeff2026-10-03T10:00:01.0000000Z hello\n")},
		"repo/Makefile": {Data: []byte("all:\n\ttrue\n")},
		"expect.json":   {Data: []byte(`{"trigger_step": "Test", "window": {"runs": 2, "failed": 1}, "first_bad_sha": null, "unknown_fact": 3}`)},
	}
}

func TestLoad(t *testing.T) {
	s, err := Load(validFS())
	if err != nil {
		t.Fatal(err)
	}
	if s.Repository.FullName != "acme/demo" || s.Workflow.Path != ".github/workflows/ci.yml" || s.InstallationID != 42 || len(s.Runs) != 3 || s.TotalCount != 3 {
		t.Errorf("scenario = %+v", s)
	}
	if r, ok := s.Run(101); !ok || r.RunAttempt != 2 || r.Conclusion != "success" {
		t.Errorf("Run(101) = %+v, %v; want the latest attempt", r, ok)
	}
	jobs, err := s.Jobs(102)
	if err != nil || len(jobs) != 1 || jobs[0].Steps[1].Conclusion != "failure" {
		t.Errorf("Jobs(102) = %+v, %v", jobs, err)
	}
	if _, err := s.Jobs(101); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Jobs(101) error = %v, want fs.ErrNotExist", err)
	}
	log, err := s.OpenLog(9001)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(log)
	log.Close()
	if !strings.Contains(string(b), "hello") {
		t.Errorf("log = %q", b)
	}
	if _, err := s.OpenLog(1); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenLog(1) error = %v, want fs.ErrNotExist", err)
	}
	if mk, err := fs.ReadFile(s.Repo(), "Makefile"); err != nil || !strings.HasPrefix(string(mk), "all:") {
		t.Errorf("repo Makefile = %q, %v", mk, err)
	}
	e := s.Expect
	if e == nil || *e.TriggerStep != "Test" || *e.Window.Runs != 2 || !e.FirstBadSHA.Set || e.FirstBadSHA.Value != nil || e.Verdict != nil || e.ProducerFile.Set {
		t.Errorf("expect = %+v", e)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name   string
		change func(fstest.MapFS)
		want   []string
	}{
		{"missing scenario", func(m fstest.MapFS) { delete(m, "scenario.json") }, []string{"scenario.json", "missing"}},
		{"bad JSON", func(m fstest.MapFS) { m["scenario.json"] = &fstest.MapFile{Data: []byte("{\n  \"schema\": ,\n}")} }, []string{"scenario.json", "line 2, column"}},
		{"wrong schema", func(m fstest.MapFS) {
			m["scenario.json"] = &fstest.MapFile{Data: []byte(strings.Replace(scenarioJSON, "scenario/v1", "scenario/v9", 1))}
		}, []string{"scenario.json", `"polylane.scenario/v9"`}},
		{"wrong type", func(m fstest.MapFS) {
			m["scenario.json"] = &fstest.MapFile{Data: []byte(strings.Replace(scenarioJSON, `"trigger_run_id": 102`, `"trigger_run_id": "102"`, 1))}
		}, []string{"scenario.json", "trigger_run_id", "line 7"}},
		{"missing runs", func(m fstest.MapFS) { delete(m, "runs.json") }, []string{"runs.json", "missing"}},
		{"runs without array", func(m fstest.MapFS) { m["runs.json"] = &fstest.MapFile{Data: []byte(`{"total_count": 0}`)} }, []string{"runs.json", "workflow_runs"}},
		{"trigger absent", func(m fstest.MapFS) {
			m["runs.json"] = &fstest.MapFile{Data: []byte(strings.ReplaceAll(runsJSON, `"id": 102`, `"id": 103`))}
		}, []string{"runs.json", "trigger run 102"}},
		{"bad expect", func(m fstest.MapFS) { m["expect.json"] = &fstest.MapFile{Data: []byte(`{"window": 3}`)} }, []string{"expect.json", "window"}},
	}
	for _, tt := range tests {
		m := validFS()
		tt.change(m)
		_, err := Load(m)
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", tt.name, err, w)
			}
		}
	}
	m := validFS()
	m["jobs/102.json"] = &fstest.MapFile{Data: []byte(`{"jobs": [}`)}
	s, err := Load(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Jobs(102); err == nil || !strings.Contains(err.Error(), "jobs/102.json") || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Jobs error = %v, want a syntax error naming jobs/102.json", err)
	}
}

func TestLoadWithoutExpectOrRepo(t *testing.T) {
	m := validFS()
	delete(m, "expect.json")
	delete(m, "repo/Makefile")
	s, err := Load(m)
	if err != nil {
		t.Fatal(err)
	}
	if s.Expect != nil {
		t.Errorf("expect = %+v, want nil", s.Expect)
	}
	if _, err := fs.ReadFile(s.Repo(), "Makefile"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("repo read error = %v", err)
	}
}

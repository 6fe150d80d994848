package scenario

import (
	"io"
	"testing"
	"testing/fstest"
)

// FuzzLoad feeds arbitrary scenario.json, runs.json, jobs and expect.json
// to the loader (a scenario directory is user input: a bug report's
// attachment, a capture). Loading and reading jobs and logs may fail, but
// never panic, and a loaded scenario always has its trigger run.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(scenarioJSON), []byte(runsJSON), []byte(jobsJSON), []byte(`{"window":{"runs":2}}`))
	f.Add([]byte(`{"schema":"polylane.scenario/v1","trigger_run_id":1,"repository":{"full_name":"a/b"}}`),
		[]byte(`{"workflow_runs":[{"id":1,"run_attempt":-5},{"id":1,"run_attempt":9223372036854775807}]}`), []byte(`{"jobs":null}`), []byte(`null`))
	f.Add([]byte(`{"schema":"polylane.scenario/v1","trigger_run_id":102,"repository":{"full_name":"../../etc"}}`),
		[]byte(`{"workflow_runs":[{"id":102,"pull_requests":[{"number":-1}],"created_at":"9999-99-99"}]}`), []byte(`{"jobs":[{"id":-1,"steps":[{"number":-3}]}]}`), []byte(`[]`))
	f.Add([]byte("\xff\xfe"), []byte("{"), []byte(""), []byte("\x00"))
	f.Fuzz(func(t *testing.T, scenario, runs, jobs, expect []byte) {
		fsys := fstest.MapFS{
			"scenario.json": {Data: scenario},
			"runs.json":     {Data: runs},
			"jobs/102.json": {Data: jobs},
			"logs/9001.txt": {Data: []byte("log\n")},
			"expect.json":   {Data: expect},
		}
		s, err := Load(fsys)
		if err != nil {
			return
		}
		if _, ok := s.Run(s.TriggerRunID); !ok {
			t.Fatalf("loaded without its trigger run %d", s.TriggerRunID)
		}
		list, err := s.Jobs(s.TriggerRunID)
		if err != nil {
			return
		}
		for _, j := range list {
			if rc, err := s.OpenLog(j.ID); err == nil {
				_, _ = io.Copy(io.Discard, rc)
				rc.Close()
			}
		}
	})
}

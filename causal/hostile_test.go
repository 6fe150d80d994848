package causal_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/polylane/polylane/analysis/gha"

	"github.com/polylane/polylane/analysis"
	"github.com/polylane/polylane/analysis/history"
	"github.com/polylane/polylane/causal"
)

// TestExplainHostile feeds Explain missing, broken and oversized input: it
// must answer with a chain (unknown when nothing holds), never panic or fail.
func TestExplainHostile(t *testing.T) {
	wf := "jobs:\n  j:\n    steps:\n      - name: S\n        run: task a\n"
	huge := strings.Repeat("x", 1<<20) + "\n"
	manyLines := strings.Repeat("2026-01-05T10:00:00.0000000Z task: [a] echo hi\n", 200000)
	tests := []struct {
		name string
		repo fstest.MapFS
		log  string
		open func() (io.ReadCloser, error)
		res  *analysis.Result
	}{
		{name: "empty repo", repo: fstest.MapFS{}, log: "x\n"},
		{name: "invalid workflow", repo: fstest.MapFS{".github/workflows/w.yml": {Data: []byte("jobs: [\n")}}, log: "boom\n"},
		{name: "cyclic taskfile", repo: fstest.MapFS{
			".github/workflows/w.yml": {Data: []byte(wf)},
			"Taskfile.yml":            {Data: []byte("version: '3'\ntasks:\n  a:\n    cmds:\n      - task: a\n      - task a\n")},
		}, log: "##[group]Run task a\ntask: [a] task a\nconnection reset by peer\n"},
		{name: "log open fails", repo: fstest.MapFS{".github/workflows/w.yml": {Data: []byte(wf)}},
			open: func() (io.ReadCloser, error) { return nil, errors.New("gone") }},
		{name: "no result", repo: fstest.MapFS{".github/workflows/w.yml": {Data: []byte(wf)}}, log: "##[error]Process completed with exit code 1.\n"},
		{name: "huge lines", repo: fstest.MapFS{".github/workflows/w.yml": {Data: []byte(wf)}}, log: huge + huge + "ECONNRESET\n",
			res: &analysis.Result{Lines: []analysis.Line{{N: 3, Text: "ECONNRESET", Role: analysis.RoleCause}}}},
		{name: "many echo lines", repo: fstest.MapFS{
			".github/workflows/w.yml": {Data: []byte(wf)},
			"Taskfile.yml":            {Data: []byte("version: '3'\ntasks:\n  a:\n    cmds:\n      - echo hi\n")},
		}, log: manyLines + "2026-01-05T10:00:01.0000000Z curl: (56) Recv failure: Connection reset by peer\n",
			res: &analysis.Result{Lines: []analysis.Line{{N: 200001, Text: "curl: (56) Recv failure: Connection reset by peer", Role: analysis.RoleCause}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			open := tt.open
			if open == nil {
				data := []byte(tt.log)
				open = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
			}
			in := causal.Input{
				Repo: tt.repo, Repository: "o/r", Branch: "main", WorkflowPath: ".github/workflows/w.yml",
				Job: gha.Job{ID: 1, Name: "j"}, Step: analysis.StepRef{Number: 2, Name: "S"}, RunID: 2,
				Result: tt.res, OpenLog: open, Verdict: history.Verdict{Kind: history.Flaky},
			}
			exp, err := causal.Explain(in)
			if err != nil {
				t.Fatalf("explain: %v", err)
			}
			if exp.Chain == nil || exp.Chain.Mechanism.Category == "" || exp.Chain.Mechanism.Summary == "" {
				t.Errorf("chain = %+v", exp.Chain)
			}
			if exp.Chain.Mechanism.Category == causal.Unknown && exp.Patch != nil {
				t.Error("an unknown mechanism must not carry a patch")
			}
		})
	}
	if _, err := causal.Explain(causal.Input{}); err == nil {
		t.Error("Explain without a repository must fail")
	}
}

package diagnosis

import (
	"io/fs"
	"sort"
	"strings"

	"github.com/polylane/polylane/causal/harness"
)

// lintNames are the target, task and script names that declare a lint
// command, most conventional first.
var lintNames = []string{"lint", "check", "vet", "fmt-check", "format-check"}

// findLint returns the repository's declared lint command: a Makefile target,
// a Taskfile task or a package.json script at the repository root, else a
// workflow step whose name says lint. Polylane reports it and never runs it.
func findLint(tree fs.FS) *Lint {
	repo := harness.NewRepo(tree)
	if mf, err := repo.FindMakefile("."); err == nil && mf != nil {
		for _, n := range lintNames {
			if t, ok := mf.Targets[n]; ok {
				return &Lint{Command: "make " + n, File: mf.Path, Line: t.Line}
			}
		}
	}
	if tf, err := repo.FindTaskfile("."); err == nil && tf != nil {
		for _, n := range lintNames {
			if t, ok := tf.Tasks[n]; ok && !t.Internal {
				return &Lint{Command: "task " + n, File: tf.Path, Line: t.Line}
			}
		}
	}
	if pj, err := repo.Package("."); err == nil && pj != nil {
		for _, n := range lintNames {
			if v, ok := pj.Scripts[n]; ok {
				return &Lint{Command: "npm run " + n, File: pj.Path, Line: v.Line}
			}
		}
	}
	return workflowLint(repo)
}

// workflowLint finds a workflow step named like a lint step that runs a
// command, in a stable order of workflows.
func workflowLint(repo *harness.Repo) *Lint {
	wfs := repo.Workflows()
	sort.Slice(wfs, func(i, j int) bool { return wfs[i].Path < wfs[j].Path })
	for _, wf := range wfs {
		for _, job := range wf.Jobs {
			for _, st := range job.Steps {
				name := strings.ToLower(st.Name)
				run := strings.TrimSpace(st.Run)
				if run == "" || !strings.Contains(name, "lint") {
					continue
				}
				first, _, _ := strings.Cut(run, "\n")
				return &Lint{Command: first, File: wf.Path, Line: st.RunLine}
			}
		}
	}
	return nil
}

package dashboardtest

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/polylane/polylane/analysis"
	"github.com/polylane/polylane/analysis/history"
	"github.com/polylane/polylane/causal"
	"github.com/polylane/polylane/causal/diagnosis"
	"github.com/polylane/polylane/causal/impact"
	"github.com/polylane/polylane/causal/patch"
	"github.com/polylane/polylane/store"
)

// Hostile is a cause line with markup in it: pages must show it as text.
const Hostile = `<script>alert("polylane")</script> "quoted" & <b>bold</b>`

// document builds a polylane.diagnosis/v1 document for a failed run.
func document(repo store.Repository, run store.WorkflowRun, c classSpec, window []store.WorkflowRun) json.RawMessage {
	exit := 1
	failed := 0
	for _, r := range window {
		if r.Conclusion == "failure" {
			failed++
		}
	}
	from, to := run.CreatedAt, run.CreatedAt
	if len(window) > 0 {
		from, to = window[len(window)-1].CreatedAt, window[0].CreatedAt
	}
	line := analysis.Line{N: 812, Text: c.cause, Role: "cause"}
	d := diagnosis.Diagnosis{
		Schema: diagnosis.Schema, Repository: repo.FullName,
		Run: diagnosis.RunInfo{ID: run.RunID, Number: run.RunNumber, Attempt: run.Attempt, Workflow: run.WorkflowName,
			WorkflowPath: run.WorkflowPath, Branch: run.Branch, HeadSHA: run.HeadSHA, Event: run.Event,
			HTMLURL: fmt.Sprintf("https://github.com/%s/actions/runs/%d", repo.FullName, run.RunID)},
		Failure: diagnosis.Failure{Job: diagnosis.JobRef{ID: jobID(run), Name: "test"},
			Step: analysis.StepRef{Number: c.stepNumber, Name: c.step}, Lines: []analysis.Line{line},
			Signature: c.signature, SignatureID: c.id, ExitCode: &exit},
		Window: history.Window{Branch: run.Branch, Runs: len(window), Failed: failed, From: from, To: to},
		Clusters: []history.Class{{ID: c.id, Step: c.step, Signature: c.signature, Count: 1, Runs: []int64{run.RunID},
			FirstSeen: run.CreatedAt, LastSeen: run.CreatedAt, ContainsTrigger: true, Pattern: history.Intermittent}},
		Verdict:      history.Verdict{Kind: history.Flaky, Confidence: 0.9},
		TriggerClass: c.id,
		Cadence:      fmt.Sprintf("%d failures in the last %d runs", failed, len(window)),
		Chain: &causal.Chain{
			Signal:          fmt.Sprintf("CI failing: %s on %s@%s", run.WorkflowName, repo.FullName, run.Branch),
			SurfacingSite:   causal.Site{File: run.WorkflowPath, Line: 31, Step: c.step},
			Mechanism:       causal.Mechanism{Category: causal.Category(c.mechanism), Summary: "A readiness gate passed while the rollout was still under way, so the next call hit a restarting server."},
			Producer:        causal.Producer{File: "Taskfile.yaml", Line: 58, Symbol: "e2e:install"},
			FailedUnitToday: causal.FailedUnit{Summary: "The step is not retried; one failure fails the run."},
			Cadence:         fmt.Sprintf("%d failures in the last %d runs", failed, len(window)),
			BlastRadius:     causal.BlastRadius{Summary: "Only the CI workflow calls this task."},
			Evidence: []causal.Evidence{
				{ID: "e1", Kind: causal.EvidenceFile, File: "Taskfile.yaml", Line: 58, Text: "kubectl rollout status deploy/api --timeout=60s"},
				{ID: "e2", Kind: causal.EvidenceLog, RunID: run.RunID, JobID: jobID(run), Line: 812, Text: c.cause},
			},
		},
		Patch: &patch.Patch{Title: "Wait for the rollout before calling the API",
			Files: []patch.FileChange{{Path: "Taskfile.yaml", Added: 3, Removed: 1}},
			Diff:  "--- a/Taskfile.yaml\n+++ b/Taskfile.yaml\n@@ -58 +58,3 @@\n-      - kubectl apply -f deploy/\n+      - kubectl apply -f deploy/\n+      - kubectl rollout status deploy/api --timeout=120s\n+      - kubectl wait --for=condition=Available deploy/api --timeout=120s\n"},
		Impact: &impact.Impact{CIOnly: true, Summary: "The patch changes CI tasks only; nothing deployed runs them.",
			DeployEdges: []impact.Edge{}, Affected: []string{}},
	}
	b, err := json.Marshal(d)
	if err != nil {
		panic(fmt.Sprintf("marshal generated diagnosis: %v", err)) // the document is built above from plain values
	}
	return b
}

// jobID is the id of a generated run's failing job.
func jobID(r store.WorkflowRun) int64 { return r.RunID*10 + 1 }

// dayOf is the UTC day of a time.
func dayOf(t time.Time) time.Time { return t.UTC().Truncate(24 * time.Hour) }

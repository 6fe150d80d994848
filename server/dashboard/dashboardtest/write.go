package dashboardtest

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/polylane/polylane/store"
)

// generate draws the runs of the repository, newest first.
func (g *repoGen) generate() {
	n := g.opts.RunsPerRepo
	span := time.Duration(g.opts.Days) * 24 * time.Hour
	step := span / time.Duration(n)
	for i := range n {
		created := g.opts.End.Add(-time.Duration(i)*step - time.Duration(g.rng.Int64N(int64(step)/2+1))).Truncate(time.Second)
		if i == 0 {
			created = g.opts.End
		}
		wf := g.workflows[0]
		if len(g.workflows) > 1 && g.rng.IntN(3) == 0 {
			wf = g.workflows[1+g.rng.IntN(len(g.workflows)-1)]
		}
		run := store.WorkflowRun{RepositoryID: g.repo.ID, RunID: g.repo.ID*1_000_000 + int64(n-i), Attempt: 1,
			WorkflowID: wf.WorkflowID, WorkflowPath: wf.Path, WorkflowName: wf.Name, RunNumber: n - i,
			HeadSHA: fmt.Sprintf("%016x%016x%08x", g.rng.Uint64(), g.rng.Uint64(), g.rng.Uint32()), Branch: "main",
			Event: "push", Status: "completed", Conclusion: "success", CreatedAt: created}
		roll := g.rng.Float64()
		switch {
		case roll < g.opts.FailureRate:
			c := g.pickClass(wf.WorkflowID)
			if c.id == g.fixClass && created.After(g.fixAt) {
				break // the fix worked: this class no longer fails runs
			}
			run.Conclusion = "failure"
			g.occ[run.Key()] = c
		case roll < g.opts.FailureRate+0.03:
			run.Conclusion = "cancelled"
		}
		run.HTMLURL = fmt.Sprintf("https://github.com/%s/actions/runs/%d", g.repo.FullName, run.RunID)
		g.runs = append(g.runs, run)
	}
}

// pickClass draws a class of a workflow by weight.
func (g *repoGen) pickClass(workflowID int64) classSpec {
	list := g.classes[workflowID]
	total := 0
	for _, c := range list {
		total += c.weight
	}
	k := g.rng.IntN(total)
	for _, c := range list {
		if k < c.weight {
			return c
		}
		k -= c.weight
	}
	return list[0]
}

// write generates the history and stores it through the Store API.
func (g *repoGen) write(ctx context.Context, st store.Store) error {
	g.generate()
	type stats struct {
		first, last time.Time
		count       int
	}
	seen := map[string]*stats{}
	for i := len(g.runs) - 1; i >= 0; i-- { // oldest first, as runs arrive
		run := g.runs[i]
		if err := st.UpsertRun(ctx, run); err != nil {
			return fmt.Errorf("seed %s: %w", g.repo.FullName, err)
		}
		c, failed := g.occ[run.Key()]
		if !failed {
			continue
		}
		lines, _ := json.Marshal([]map[string]any{{"n": 812, "text": c.cause, "role": "cause"}})
		exit := 1
		o := store.Occurrence{JobID: jobID(run), JobName: "test", StepNumber: c.stepNumber, StepName: c.step,
			Signature: c.signature, SignatureID: c.id, CauseLines: lines, ExitCode: &exit, ClassID: c.id}
		if err := st.PutOccurrences(ctx, run.Key(), []store.Occurrence{o}); err != nil {
			return fmt.Errorf("seed %s: %w", g.repo.FullName, err)
		}
		s := seen[c.id]
		if s == nil {
			s = &stats{first: run.CreatedAt}
			seen[c.id] = s
		}
		s.last, s.count = run.CreatedAt, s.count+1
	}
	for _, list := range g.classes {
		for _, c := range list {
			s := seen[c.id]
			if s == nil {
				continue
			}
			fc := store.FailureClass{RepositoryID: g.repo.ID, ID: c.id, WorkflowID: c.workflow.WorkflowID,
				WorkflowPath: c.workflow.Path, Step: c.step, Signature: c.signature, FirstSeen: s.first, LastSeen: s.last,
				Count: s.count, Pattern: "intermittent", Verdict: "flaky"}
			if err := st.UpsertClass(ctx, fc); err != nil {
				return fmt.Errorf("seed %s: %w", g.repo.FullName, err)
			}
		}
	}
	if err := g.writeFix(ctx, st, seen[g.fixClass] != nil); err != nil {
		return err
	}
	return g.writeDiagnoses(ctx, st)
}

// writeFix records the merged fix pull request of the fixed class.
func (g *repoGen) writeFix(ctx context.Context, st store.Store, classStored bool) error {
	if g.fixClass == "" || !classStored {
		g.fixClass = ""
		return nil
	}
	p := store.FixPullRequest{RepositoryID: g.repo.ID, ClassID: g.fixClass, Number: 7, Branch: "polylane/fix-" + g.fixClass,
		State: store.FixMerged, HeadSHA: g.runs[0].HeadSHA, CreatedAt: g.fixAt.Add(-48 * time.Hour), ClosedAt: g.fixAt}
	if err := st.UpsertFixPullRequest(ctx, p); err != nil {
		return fmt.Errorf("seed fix pull request of %s: %w", g.repo.FullName, err)
	}
	return nil
}

// writeDiagnoses diagnoses the newest failed runs.
func (g *repoGen) writeDiagnoses(ctx context.Context, st store.Store) error {
	// The newest failed runs, and the newest failed run of every class so
	// that each class has a diagnosis with its chain.
	var picked []store.WorkflowRun
	covered := map[string]bool{}
	for _, run := range g.runs {
		c, ok := g.occ[run.Key()]
		if ok && (len(picked) < g.opts.Diagnoses || !covered[c.id]) {
			picked = append(picked, run)
			covered[c.id] = true
		}
	}
	for i := len(picked) - 1; i >= 0; i-- {
		run := picked[i]
		c := g.occ[run.Key()]
		var window []store.WorkflowRun
		for _, r := range g.runs {
			if r.WorkflowID == run.WorkflowID && !r.CreatedAt.After(run.CreatedAt) && len(window) < 100 {
				window = append(window, r)
			}
		}
		id, err := st.PutDiagnosis(ctx, store.Diagnosis{RepositoryID: g.repo.ID, RunID: run.RunID, Attempt: 1,
			Document: document(g.repo, run, c, window), Verdict: "flaky", ClassID: c.id, CreatedAt: run.CreatedAt.Add(3 * time.Minute)})
		if err != nil {
			return fmt.Errorf("seed diagnosis of %s: %w", g.repo.FullName, err)
		}
		g.diagIDs = append([]int64{id}, g.diagIDs...)
	}
	return nil
}

// report adds what was generated to the summary. Callers serialise it.
func (g *repoGen) report(out *Seeded) {
	out.Runs += len(g.runs)
	perWF := map[int64][]Failure{}
	for _, run := range g.runs {
		if c, ok := g.occ[run.Key()]; ok {
			perWF[run.WorkflowID] = append(perWF[run.WorkflowID], Failure{Day: dayOf(run.CreatedAt), ClassID: c.id})
		}
	}
	out.Failures[g.repo.ID] = perWF
	for _, w := range g.workflows {
		out.Workflows[g.repo.ID] = append(out.Workflows[g.repo.ID], w.WorkflowID)
	}
	out.Diagnoses[g.repo.ID] = g.diagIDs
	if g.fixClass != "" {
		out.FixedClass, out.FixMergedAt = g.fixClass, g.fixAt
	}
}

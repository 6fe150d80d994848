package worker

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/polylane/polylane/server/jobs"

	"github.com/polylane/polylane/analysis/gha"

	"github.com/polylane/polylane/causal/diagnosis"
	"github.com/polylane/polylane/causal/patch"
	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/store/storetest"
)

// storedDiagnosis reads the diagnosis of a run attempt.
func (r *rig) storedDiagnosis(t testing.TB, runID int64, attempt int) (store.Diagnosis, *diagnosis.Diagnosis) {
	t.Helper()
	rec, err := r.st.GetDiagnosis(testCtx(t), store.RunKey{RepositoryID: r.sc.Repository.ID, RunID: runID, Attempt: attempt})
	if err != nil {
		t.Fatal(err)
	}
	doc := &diagnosis.Diagnosis{}
	if err := json.Unmarshal(rec.Document, doc); err != nil {
		t.Fatal(err)
	}
	return rec, doc
}

// otherFailure returns the newest failed run of the trigger's branch and
// event before the trigger: another trigger whose history is cached.
func otherFailure(t testing.TB, sc interface {
	Run(int64) (gha.Run, bool)
}, runs []gha.Run, trigger int64) gha.Run {
	t.Helper()
	trig, _ := sc.Run(trigger)
	var best gha.Run
	for _, r := range runs {
		if r.ID != trigger && r.Failed() && r.HeadBranch == trig.HeadBranch && r.Event == trig.Event &&
			r.CreatedAt.Before(trig.CreatedAt) && r.CreatedAt.After(best.CreatedAt) {
			best = r
		}
	}
	if best.ID == 0 {
		t.Skip("the scenario has no other failure on the trigger's branch")
	}
	return best
}

// TestDiagnosisCalls diagnoses the scenario's trigger with an empty history
// (cold), then a new attempt of it and another failed run with the history
// cached (warm), counting the GitHub calls each makes.
func TestDiagnosisCalls(t *testing.T) {
	dir := sharedScenario(t, "karmada-rollout")
	for _, b := range storetest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			r := newRig(t, b, dir)
			ctx := testCtx(t)
			trigger := r.sc.TriggerRunID
			a := r.deliver(t, trigger)
			r.sim.ResetRecording()
			start := time.Now()
			if err := r.w.diagnose(ctx, a); err != nil {
				t.Fatal(err)
			}
			cold, coldTook, coldKinds := r.callCounts(), time.Since(start), r.callBreakdown()
			_, doc := r.storedDiagnosis(t, trigger, 1)
			if doc.Patch == nil || !strings.Contains(doc.Patch.Diff, "Taskfile.yaml") || doc.Verdict.Kind != "flaky" {
				t.Fatalf("cold diagnosis: verdict %s, patch %v", doc.Verdict.Kind, doc.Patch != nil)
			}

			attempt, err := r.sim.AddRunAttempt(r.repo, trigger, "failure")
			if err != nil {
				t.Fatal(err)
			}
			a2 := r.deliver(t, trigger)
			if a2.Attempt != attempt {
				t.Fatalf("delivery of attempt %d carries attempt %d", attempt, a2.Attempt)
			}
			r.sim.ResetRecording()
			if err := r.w.diagnose(ctx, a2); err != nil {
				t.Fatal(err)
			}
			rerun, rerunKinds := r.callCounts(), r.callBreakdown()

			other := otherFailure(t, r.sc, r.sc.Runs, trigger)
			a3 := r.deliver(t, other.ID)
			r.sim.ResetRecording()
			start = time.Now()
			if err := r.w.diagnose(ctx, a3); err != nil {
				t.Fatal(err)
			}
			warm, warmTook, warmKinds := r.callCounts(), time.Since(start), r.callBreakdown()
			report := fmt.Sprintf("%s: cold %+v %v in %s; warm re-run attempt %+v %v; warm other run %+v %v in %s",
				b.Name, cold, coldKinds, coldTook.Round(time.Millisecond), rerun, rerunKinds, warm, warmKinds, warmTook.Round(time.Millisecond))
			t.Log(report)
			if path := os.Getenv("POLYLANE_CALLS_REPORT"); path != "" {
				f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
				if err == nil {
					fmt.Fprintln(f, report)
					f.Close()
				}
			}
			for _, c := range []struct {
				name  string
				calls int64
			}{{"warm re-run", rerun.API}, {"warm other run", warm.API}} {
				if c.calls > 6 {
					t.Errorf("%s made %d API calls, want at most 6", c.name, c.calls)
				}
			}
			if cold.API <= warm.API {
				t.Errorf("cold %d API calls, warm %d: the cache saved nothing", cold.API, warm.API)
			}
		})
	}
}

// TestPublishAndFixConverge publishes a default-branch diagnosis: one fix
// pull request on polylane/fix-<class> whose commit applies the patch to
// the default branch, one assessment comment on it; working the jobs again
// writes nothing.
func TestPublishAndFixConverge(t *testing.T) {
	dir := sharedScenario(t, "karmada-rollout")
	r := newRig(t, storetest.Backends()[0], dir)
	ctx := testCtx(t)
	doc, pa, fa := r.diagnoseTrigger(t)
	r.sim.ResetRecording()
	for round := range 2 {
		before := r.writes()
		if err := r.w.publish(ctx, pa); err != nil {
			t.Fatal(err)
		}
		if err := r.w.fix(ctx, fa); err != nil {
			t.Fatal(err)
		}
		if round == 1 && r.writes() != before {
			t.Fatalf("working the jobs again wrote %d times to GitHub", r.writes()-before)
		}
	}
	checkFix(t, r, doc)
}

// diagnoseTrigger delivers and diagnoses the scenario's trigger and
// returns its diagnosis with the publish and fix jobs that follow.
func (r *rig) diagnoseTrigger(t *testing.T) (*diagnosis.Diagnosis, jobs.PublishArgs, jobs.FixArgs) {
	t.Helper()
	trigger := r.sc.TriggerRunID
	a := r.deliver(t, trigger)
	if err := r.w.diagnose(testCtx(t), a); err != nil {
		t.Fatal(err)
	}
	_, doc := r.storedDiagnosis(t, trigger, 1)
	pa := jobs.PublishArgs{DeliveryGUID: a.DeliveryGUID, InstallationID: a.InstallationID, RepositoryID: a.RepositoryID, RunID: trigger, Attempt: 1}
	fa := jobs.FixArgs{DeliveryGUID: a.DeliveryGUID, InstallationID: a.InstallationID, RepositoryID: a.RepositoryID,
		ClassID: doc.TriggerClass, RunID: trigger, Attempt: 1}
	return doc, pa, fa
}

// checkFix asserts the published state: one fix pull request whose branch
// changes exactly the patch's files as the patch says, and one assessment
// comment on it.
func checkFix(t *testing.T, r *rig, doc *diagnosis.Diagnosis) {
	t.Helper()
	pulls := r.botPulls()
	if len(pulls) != 1 {
		t.Fatalf("%d fix pull requests, want 1", len(pulls))
	}
	pr := pulls[0]
	if !strings.HasPrefix(pr.Head, "polylane/fix-") || pr.Base != r.sc.Repository.DefaultBranch || pr.State != "open" {
		t.Fatalf("fix pull request %+v", pr)
	}
	mainFiles, err := r.sim.FilesAt(r.repo, pr.Base)
	if err != nil {
		t.Fatal(err)
	}
	fixFiles, err := r.sim.FilesAt(r.repo, pr.Head)
	if err != nil {
		t.Fatal(err)
	}
	diffs, err := patch.Files(doc.Patch.Diff)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, fd := range diffs {
		want[fd.Path] = true
		patched, err := patch.Apply(mainFiles[fd.Path], fd.Diff)
		if err != nil || string(patched) != string(fixFiles[fd.Path]) {
			t.Fatalf("%s on the fix branch is not the patch applied to the default branch (%v)", fd.Path, err)
		}
	}
	for p := range fixFiles {
		if string(fixFiles[p]) != string(mainFiles[p]) && !want[p] {
			t.Errorf("the fix branch changes %s, which the patch does not", p)
		}
	}
	comments := r.botComments(pr.Number)
	if len(comments) != 1 || !strings.HasPrefix(comments[0].Body, "<!-- polylane:assessment") {
		t.Fatalf("%d assessment comments on the fix pull request, want 1", len(comments))
	}
}

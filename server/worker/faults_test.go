package worker

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/polylane/polylane/server/jobs"

	"github.com/rs/zerolog"

	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/server/githubtest"
	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/store/storetest"
)

// publishRound works the publish and fix jobs of the trigger once, as a
// fresh worker (a new process) would.
func (r *rig) publishRound(ctx context.Context, t testing.TB, pa jobs.PublishArgs, fa jobs.FixArgs) error {
	gh, err := ghclient.New(ghclient.Config{AppID: r.sim.AppID(), PrivateKey: r.sim.PrivateKeyPEM(), BaseURL: r.sim.APIURL(),
		Timeout: 2 * time.Second, MaxWait: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	w := &Worker{opts: r.w.opts, st: r.st, gh: gh, log: zerolog.Nop()}
	w.opts.GitHub = gh
	if err := w.publish(ctx, pa); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	if err := w.fix(ctx, fa); err != nil {
		return fmt.Errorf("fix: %w", err)
	}
	return nil
}

// TestPublishUnderFaults records the writes of a clean publish and fix,
// then for every write index fails that write (the write committed but its
// answer lost, or a 502 before it is applied) and works the jobs again
// with fresh workers: the published state must converge to exactly one fix
// pull request, one fix branch and one assessment comment.
func TestPublishUnderFaults(t *testing.T) {
	dir := sharedScenario(t, "karmada-rollout")
	b := storetest.Backends()[0]
	// Diagnose once; each case starts from a fresh simulator and a fresh
	// store seeded with what publishing reads (the delivery, repository,
	// run and diagnosis), as a new process would find them.
	first := newRig(t, b, dir)
	a := first.deliver(t, first.sc.TriggerRunID)
	if err := first.w.diagnose(testCtx(t), a); err != nil {
		t.Fatal(err)
	}
	seed := snapshot(t, first, a)
	setup := func(t *testing.T) (*rig, jobs.PublishArgs, jobs.FixArgs) {
		r := newRig(t, b, dir)
		seed.restore(t, r)
		pa := jobs.PublishArgs(a)
		fa := jobs.FixArgs{DeliveryGUID: a.DeliveryGUID, InstallationID: a.InstallationID, RepositoryID: a.RepositoryID,
			ClassID: seed.diag.ClassID, RunID: a.RunID, Attempt: a.Attempt}
		r.sim.ResetRecording()
		return r, pa, fa
	}
	base, pa, fa := setup(t)
	if err := base.publishRound(testCtx(t), t, pa, fa); err != nil {
		t.Fatal(err)
	}
	var writes []string
	for _, w := range base.sim.Writes() {
		writes = append(writes, w.Method+" "+w.Path)
	}
	if len(writes) == 0 {
		t.Fatal("a clean publish wrote nothing")
	}
	faults := []githubtest.FaultKind{githubtest.FaultResponseLost, githubtest.FaultServerError, githubtest.FaultReset}
	for i, call := range writes {
		for _, kind := range faults {
			name := fmt.Sprintf("write%02d %s %s", i+1, strings.ReplaceAll(call, "/", "_"), kind)
			t.Run(name, func(t *testing.T) {
				r, pa, fa := setup(t)
				seen := 0
				h := r.sim.InjectFault(githubtest.Fault{Kind: kind, Match: func(c githubtest.Call) bool {
					if !c.Write {
						return false
					}
					seen++
					return seen == i+1
				}})
				ctx := testCtx(t)
				var err error
				for try := 0; try < 5; try++ {
					if err = r.publishRound(ctx, t, pa, fa); err == nil {
						break
					}
				}
				if err != nil {
					t.Fatalf("did not converge: %v", err)
				}
				if h.Hits() != 1 {
					t.Fatalf("fault fired %d times", h.Hits())
				}
				_, doc := r.storedDiagnosis(t, pa.RunID, pa.Attempt)
				checkFix(t, r, doc)
				branches := 0
				for ref := range r.sim.Refs(r.repo) {
					if strings.HasPrefix(ref, "refs/heads/polylane/") {
						branches++
					}
				}
				if branches != 1 {
					t.Fatalf("%d fix branches, want 1", branches)
				}
			})
		}
	}
}

// published state of a diagnosed delivery, to seed fresh stores with.
type seedState struct {
	inst  store.Installation
	repo  store.Repository
	deliv store.Delivery
	run   store.WorkflowRun
	diag  store.Diagnosis
	class store.FailureClass
}

func snapshot(t *testing.T, r *rig, a jobs.DiagnoseArgs) seedState {
	t.Helper()
	ctx := testCtx(t)
	var s seedState
	var err error
	if s.inst, err = r.st.GetInstallation(ctx, a.InstallationID); err != nil {
		t.Fatal(err)
	}
	if s.repo, err = r.st.GetRepository(ctx, a.RepositoryID); err != nil {
		t.Fatal(err)
	}
	if s.deliv, err = r.st.GetDelivery(ctx, a.DeliveryGUID); err != nil {
		t.Fatal(err)
	}
	key := store.RunKey{RepositoryID: a.RepositoryID, RunID: a.RunID, Attempt: a.Attempt}
	if s.run, err = r.st.GetRun(ctx, key); err != nil {
		t.Fatal(err)
	}
	if s.diag, err = r.st.GetDiagnosis(ctx, key); err != nil {
		t.Fatal(err)
	}
	if s.class, err = r.st.GetClass(ctx, a.RepositoryID, s.diag.ClassID); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s seedState) restore(t *testing.T, r *rig) {
	t.Helper()
	ctx := testCtx(t)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(r.st.UpsertInstallation(ctx, s.inst))
	must(r.st.UpsertRepository(ctx, s.repo))
	_, err := r.st.RecordDelivery(ctx, s.deliv, nil, nil)
	must(err)
	must(r.st.UpsertRun(ctx, s.run))
	must(r.st.UpsertClass(ctx, s.class))
	_, err = r.st.PutDiagnosis(ctx, store.Diagnosis{RepositoryID: s.diag.RepositoryID, RunID: s.diag.RunID, Attempt: s.diag.Attempt,
		Document: s.diag.Document, Verdict: s.diag.Verdict, ClassID: s.diag.ClassID})
	must(err)
}

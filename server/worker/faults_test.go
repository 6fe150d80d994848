package worker

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/server/githubtest"
	"github.com/polylane/polylane/store/storetest"
)

// publishRound works the publish and fix jobs of the trigger once, as a
// fresh worker (a new process) would.
func (r *rig) publishRound(ctx context.Context, t testing.TB, pa PublishArgs, fa FixArgs) error {
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
	setup := func(t *testing.T) (*rig, PublishArgs, FixArgs) {
		r := newRig(t, b, dir)
		a := r.deliver(t, r.sc.TriggerRunID)
		if err := r.w.diagnose(testCtx(t), a); err != nil {
			t.Fatal(err)
		}
		_, doc := r.storedDiagnosis(t, a.RunID, a.Attempt)
		pa := PublishArgs{DeliveryGUID: a.DeliveryGUID, InstallationID: a.InstallationID, RepositoryID: a.RepositoryID, RunID: a.RunID, Attempt: a.Attempt}
		fa := FixArgs{DeliveryGUID: a.DeliveryGUID, InstallationID: a.InstallationID, RepositoryID: a.RepositoryID,
			ClassID: doc.TriggerClass, RunID: a.RunID, Attempt: a.Attempt}
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

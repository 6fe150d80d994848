package worker

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/server/githubtest"
	"github.com/polylane/polylane/store/storetest"
)

// TestFirstBadRangeNamesTheCommitThatTouchedTheStep: four cancelled runs
// sit between the last green run and the first red one. The cold diagnosis
// compares the range on GitHub and names the one commit that changed the
// failed test's package; a warm diagnosis reads the range from the cache
// and stays within six GitHub calls.
func TestFirstBadRangeNamesTheCommitThatTouchedTheStep(t *testing.T) {
	dir := filepath.Join("..", "..", "causal", "diagnosis", "testdata", "scenarios", "range-one-commit-touches")
	r := newRig(t, storetest.Backends()[0], dir)
	ctx := testCtx(t)
	trigger := r.sc.TriggerRunID
	a := r.deliver(t, trigger)
	r.sim.ResetRecording()
	if err := r.w.diagnose(ctx, a); err != nil {
		t.Fatal(err)
	}
	cold := r.callBreakdown()
	_, doc := r.storedDiagnosis(t, trigger, 1)
	fr := doc.FirstBadRange
	if fr == nil || fr.Commits != 5 || len(fr.Touching) != 1 {
		t.Fatalf("first bad range = %+v (verdict %s: %s)", fr, doc.Verdict.Kind, doc.Verdict.Reason)
	}
	if fr.Touching[0].SHA != r.sc.Expect.RangeTouching[0] || fr.Touching[0].Files[0] != "cart/discount.go" || fr.Touching[0].HTMLURL == "" {
		t.Errorf("touching = %+v, want %s changing cart/discount.go", fr.Touching, r.sc.Expect.RangeTouching[0])
	}
	if cold["compare"] != 1 || cold["commit"] != 5 {
		t.Errorf("cold diagnosis: %d compare and %d commit calls, want 1 and 5 (%v)", cold["compare"], cold["commit"], cold)
	}

	attempt, warm, kinds := r.rediagnose(t, trigger)
	if warm.API > 6 || kinds["compare"] != 0 || kinds["commit"] != 0 {
		t.Errorf("warm diagnosis: %d API calls %v, want at most 6 and no compare", warm.API, kinds)
	}
	_, doc2 := r.storedDiagnosis(t, trigger, attempt)
	if doc2.FirstBadRange == nil || len(doc2.FirstBadRange.Touching) != 1 || doc2.FirstBadRange.Touching[0].SHA != fr.Touching[0].SHA {
		t.Errorf("warm first bad range = %+v", doc2.FirstBadRange)
	}
}

// TestSameCauseIsExplainedOnce: a class of the trigger's step is compared
// by cause from its newest run's log once; the warm diagnosis reads the
// cause kept with the stored occurrence and downloads only the trigger's
// log, within six GitHub calls, and still makes one class of the two
// wordings.
func TestSameCauseIsExplainedOnce(t *testing.T) {
	dir := filepath.Join("..", "..", "causal", "diagnosis", "testdata", "scenarios", "two-wordings-same-producer")
	r := newRig(t, storetest.Backends()[0], dir)
	ctx := testCtx(t)
	trigger := r.sc.TriggerRunID
	if err := r.w.diagnose(ctx, r.deliver(t, trigger)); err != nil {
		t.Fatal(err)
	}
	_, doc := r.storedDiagnosis(t, trigger, 1)
	if len(doc.Clusters) != 1 || doc.Clusters[0].Count != 5 || len(doc.Clusters[0].Wordings) != 2 {
		t.Fatalf("cold classes = %+v", doc.Clusters)
	}
	attempt, warm, kinds := r.rediagnose(t, trigger)
	if warm.API > 6 || kinds["log-address"] > 1 {
		t.Errorf("warm diagnosis: %d API calls %v, want at most 6 and only the trigger's log", warm.API, kinds)
	}
	_, doc2 := r.storedDiagnosis(t, trigger, attempt)
	if len(doc2.Clusters) != 1 || doc2.Clusters[0].Count != 5 {
		t.Errorf("warm classes = %+v", doc2.Clusters)
	}
}

// rediagnose diagnoses a new attempt of a run and returns the attempt and
// the GitHub calls that diagnosis made.
func (r *rig) rediagnose(t *testing.T, runID int64) (int, ghclient.Calls, map[string]int) {
	t.Helper()
	if _, err := r.sim.AddRunAttempt(r.repo, runID, "failure"); err != nil {
		t.Fatal(err)
	}
	a := r.deliver(t, runID)
	r.sim.ResetRecording()
	if err := r.w.diagnose(testCtx(t), a); err != nil {
		t.Fatal(err)
	}
	return a.Attempt, r.callCounts(), r.callBreakdown()
}

// TestRangeCompareFailureIsRetried: GitHub failing the compare call fails
// the diagnosis for a retry, not for good; once GitHub answers, the range
// is named.
func TestRangeCompareFailureIsRetried(t *testing.T) {
	dir := filepath.Join("..", "..", "causal", "diagnosis", "testdata", "scenarios", "range-one-commit-touches")
	r := newRig(t, storetest.Backends()[0], dir)
	h := r.sim.InjectFault(githubtest.Fault{Kind: githubtest.FaultServerError, Times: -1, Path: "/repos/*/*/compare/*"})
	a := r.deliver(t, r.sc.TriggerRunID)
	err := r.w.diagnose(testCtx(t), a)
	var perm permanent
	if err == nil || errors.As(err, &perm) {
		t.Fatalf("diagnose with compare failing: %v, want an error to retry", err)
	}
	h.Remove()
	if err := r.w.diagnose(testCtx(t), a); err != nil {
		t.Fatal(err)
	}
	if _, doc := r.storedDiagnosis(t, r.sc.TriggerRunID, 1); doc.FirstBadRange == nil || len(doc.FirstBadRange.Touching) != 1 {
		t.Errorf("first bad range after the retry = %+v", doc.FirstBadRange)
	}
}

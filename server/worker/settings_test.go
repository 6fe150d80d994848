package worker

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/polylane/polylane/server/jobs"

	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/store/storetest"
)

const configPath = ".github/polylane.yml"

// TestConfigFromDefaultBranch: a pull request's copy of the file changes
// nothing; the default branch's copy does, and an invalid one is reported
// in the comment while the defaults keep Polylane talking.
func TestConfigFromDefaultBranch(t *testing.T) {
	for _, b := range storetest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			r := newRig(t, b, conversationScenario)
			ctx := testCtx(t)
			run, number := r.prFailure(t)
			main := r.sc.Repository.DefaultBranch

			// The pull request's head turns comments off: ignored.
			r.commit(t, run.HeadBranch, map[string]string{configPath: "comments:\n  pull_requests: false\nworkflows: [nothing.yml]\n"})
			first := r.diagnoseAndPublish(t, run.ID)
			comments := r.botComments(number)
			if len(comments) != 1 || strings.Contains(comments[0].Body, "[!CAUTION]") {
				t.Fatalf("with only the pull request's copy: %d comments", len(comments))
			}

			// An invalid file on the default branch: reported, defaults used.
			r.commit(t, main, map[string]string{configPath: "window: 5000\nllm:\n  enabled: maybe\ncolour: blue\n"})
			pa := jobs.PublishArgs{DeliveryGUID: first.DeliveryGUID, InstallationID: r.sc.InstallationID, RepositoryID: r.sc.Repository.ID,
				RunID: run.ID, Attempt: run.RunAttempt}
			if err := r.w.publish(ctx, pa); err != nil {
				t.Fatal(err)
			}
			body := r.botComments(number)[0].Body
			for _, want := range []string{"[!CAUTION]", "line 1: window must be at most 1000, not 5000", "llm.enabled must be true or false", "colour is not a known key"} {
				if !strings.Contains(body, want) {
					t.Errorf("comment lacks %q:\n%s", want, body[:min(len(body), 1500)])
				}
			}

			// The default branch's copy turns comments off: the next run is not commented.
			r.commit(t, main, map[string]string{configPath: "comments:\n  pull_requests: false\n"})
			before := r.botComments(number)[0].Body
			if _, err := r.sim.AddRunAttempt(r.repo, run.ID, "failure"); err != nil {
				t.Fatal(err)
			}
			a2 := r.diagnoseAndPublish(t, run.ID)
			if got := r.botComments(number); len(got) != 1 || got[0].Body != before {
				t.Errorf("comments turned off on the default branch, yet the comment changed")
			}
			if _, err := r.st.GetDiagnosis(ctx, store.RunKey{RepositoryID: a2.RepositoryID, RunID: a2.RunID, Attempt: a2.Attempt}); err != nil {
				t.Errorf("the run was not diagnosed: %v", err)
			}

			// Workflows the file does not name are not diagnosed at all.
			r.commit(t, main, map[string]string{configPath: "workflows: [nothing.yml]\n"})
			if _, err := r.sim.AddRunAttempt(r.repo, run.ID, "failure"); err != nil {
				t.Fatal(err)
			}
			a3 := r.deliver(t, run.ID)
			if err := r.w.diagnose(ctx, a3); err != nil {
				t.Fatal(err)
			}
			d, err := r.st.GetDelivery(ctx, a3.DeliveryGUID)
			if err != nil || d.State != store.DeliveryIgnored || !strings.Contains(d.Error, "not among the workflows") {
				t.Errorf("delivery of an unwatched workflow: %v %s %q", err, d.State, d.Error)
			}
			if _, err := r.st.GetDiagnosis(ctx, store.RunKey{RepositoryID: a3.RepositoryID, RunID: a3.RunID, Attempt: a3.Attempt}); !isNotFound(err) {
				t.Errorf("an unwatched workflow was diagnosed: %v", err)
			}
		})
	}
}

// TestStaleOnNewHead marks the assessment stale when the pull request's
// head moves, once, and the next diagnosis replaces it.
func TestStaleOnNewHead(t *testing.T) {
	r := newRig(t, storetest.Backends()[0], conversationScenario)
	ctx := testCtx(t)
	run, number := r.prFailure(t)
	r.diagnoseAndPublish(t, run.ID)
	head := r.commit(t, run.HeadBranch, map[string]string{"NEWS.md": "moved on\n"})
	ev, err := r.sim.PullRequestEvent("synchronize", r.repo, number, run.HeadSHA)
	if err != nil {
		t.Fatal(err)
	}
	r.post(t, ev, "sync-1")
	a := jobs.PullRequestArgs{DeliveryGUID: "sync-1", InstallationID: r.sc.InstallationID, RepositoryID: r.sc.Repository.ID,
		Number: number, Action: jobs.PullSynchronize, HeadSHA: head}
	r.sim.ResetRecording()
	for range 2 {
		if err := r.w.pullRequestDone(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	if n := r.writes(); n != 1 {
		t.Errorf("%d writes for two synchronize jobs of one head, want 1", n)
	}
	body := r.botComments(number)[0].Body
	if !strings.Contains(body, "**Out of date.**") || !strings.Contains(body, "`"+head[:7]+"`") {
		t.Fatalf("comment after the head moved:\n%s", body[:min(len(body), 800)])
	}
	rec, _ := r.storedDiagnosis(t, run.ID, run.RunAttempt)
	if !rec.Stale {
		t.Error("diagnosis not marked stale")
	}
	// The head moving to the diagnosed commit again is not stale.
	same := a
	same.HeadSHA = run.HeadSHA
	if err := r.w.pullRequestEvent(ctx, same); err != nil {
		t.Fatal(err)
	}
	// The next diagnosis of the pull request replaces the stale comment.
	if _, err := r.sim.AddRunAttempt(r.repo, run.ID, "failure"); err != nil {
		t.Fatal(err)
	}
	r.diagnoseAndPublish(t, run.ID)
	if body := r.botComments(number)[0].Body; strings.Contains(body, "Out of date") {
		t.Error("the next diagnosis kept the stale note")
	}
}

// TestFixLifecycle closes a fix pull request once its class has not
// recurred for the configured number of runs (and not before), and records
// a merged one with its merge time.
func TestFixLifecycle(t *testing.T) {
	for _, b := range storetest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			r := newRig(t, b, conversationScenario)
			ctx := testCtx(t)
			a, doc := r.fixTrigger(t)
			trigger := a.RunID
			f, err := r.st.GetFixPullRequest(ctx, a.RepositoryID, doc.TriggerClass)
			if err != nil || f.State != store.FixOpen {
				t.Fatalf("fix pull request: %+v %v", f, err)
			}
			repo, _ := r.st.GetRepository(ctx, a.RepositoryID)
			class, _ := r.st.GetClass(ctx, a.RepositoryID, doc.TriggerClass)
			clean, err := r.w.runsSince(ctx, repo, class.WorkflowID, class.LastSeen, 1000)
			if err != nil {
				t.Fatal(err)
			}
			need := clean + 2
			r.commit(t, repo.DefaultBranch, map[string]string{configPath: "fix_pull_requests:\n  close_after_runs: " + itoa(need) + "\n"})
			la := jobs.LifecycleArgs{InstallationID: a.InstallationID, RepositoryID: a.RepositoryID, WorkflowID: class.WorkflowID, RunID: trigger, Attempt: a.Attempt}
			addClean := func(n int) {
				for i := range n {
					id := int64(9_000_000_000) + int64(clean*10+i)
					run := store.WorkflowRun{RepositoryID: repo.ID, RunID: id, Attempt: 1, WorkflowID: class.WorkflowID, Branch: repo.DefaultBranch,
						Event: "push", Status: "completed", Conclusion: "success", CreatedAt: time.Now().Add(time.Duration(i) * time.Minute)}
					if err := r.st.UpsertRun(ctx, run); err != nil {
						t.Fatal(err)
					}
				}
				clean += n
			}
			addClean(1)
			if err := r.w.lifecycleDone(ctx, la); err != nil {
				t.Fatal(err)
			}
			if f, _ := r.st.GetFixPullRequest(ctx, a.RepositoryID, doc.TriggerClass); f.State != store.FixOpen {
				t.Fatalf("closed after %d of %d clean runs", clean, need)
			}
			addClean(1)
			for range 2 {
				if err := r.w.lifecycleDone(ctx, la); err != nil {
					t.Fatal(err)
				}
			}
			f, _ = r.st.GetFixPullRequest(ctx, a.RepositoryID, doc.TriggerClass)
			pulls := r.botPulls()
			if f.State != store.FixClosed || f.ClosedAt.IsZero() || len(pulls) != 1 || pulls[0].State != "closed" || pulls[0].Merged {
				t.Fatalf("after %d clean runs: record %+v, pull requests %+v", clean, f, pulls)
			}
			var closing int
			for _, c := range r.botComments(f.Number) {
				if strings.HasPrefix(c.Body, "<!-- polylane:closing") && strings.Contains(c.Body, "has not recurred in the last") {
					closing++
				}
			}
			if closing != 1 {
				t.Errorf("%d closing comments, want 1", closing)
			}
		})
	}
}

// TestMergeRecorded records a merged fix pull request with its merge time,
// from the pull_request event.
func TestMergeRecorded(t *testing.T) {
	r := newRig(t, storetest.Backends()[0], conversationScenario)
	ctx := testCtx(t)
	trigger := r.sc.TriggerRunID
	a := r.diagnoseAndPublish(t, trigger)
	_, doc := r.storedDiagnosis(t, trigger, a.Attempt)
	if err := r.w.fix(ctx, jobs.FixArgs{DeliveryGUID: a.DeliveryGUID, InstallationID: a.InstallationID, RepositoryID: a.RepositoryID,
		ClassID: doc.TriggerClass, RunID: trigger, Attempt: a.Attempt}); err != nil {
		t.Fatal(err)
	}
	pr := r.botPulls()[0]
	if err := r.sim.MarkMerged(r.repo, pr.Number, strings.Repeat("ab", 20)); err != nil {
		t.Fatal(err)
	}
	ev, err := r.sim.PullRequestEvent("closed", r.repo, pr.Number, "")
	if err != nil {
		t.Fatal(err)
	}
	r.post(t, ev, "merged")
	var p struct {
		PullRequest struct {
			MergedAt time.Time `json:"merged_at"`
			Head     struct {
				Ref string `json:"ref"`
			} `json:"head"`
		} `json:"pull_request"`
	}
	if err := json.Unmarshal(ev.Payload, &p); err != nil || p.PullRequest.MergedAt.IsZero() {
		t.Fatalf("payload: %v", err)
	}
	args := jobs.PullRequestArgs{DeliveryGUID: "merged", InstallationID: a.InstallationID, RepositoryID: a.RepositoryID,
		Number: pr.Number, Action: jobs.PullClosed, HeadRef: p.PullRequest.Head.Ref, Merged: true, ClosedAt: p.PullRequest.MergedAt}
	if err := r.w.pullRequestDone(ctx, args); err != nil {
		t.Fatal(err)
	}
	f, err := r.st.GetFixPullRequest(ctx, a.RepositoryID, doc.TriggerClass)
	if err != nil || f.State != store.FixMerged || !f.ClosedAt.Equal(p.PullRequest.MergedAt.UTC().Truncate(time.Microsecond)) {
		t.Fatalf("merged fix pull request: %+v %v (merged at %s)", f, err, p.PullRequest.MergedAt)
	}
	if d, _ := r.st.GetDelivery(ctx, "merged"); d.State != store.DeliveryDone {
		t.Errorf("delivery %s", d.State)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestConfigMutesAreRecorded: a class that the default branch's
// .github/polylane.yml mutes is marked muted in the store when a diagnosis
// is published (so the dashboard shows it), with the file's reason, and the
// mark goes when the file no longer names the class.
func TestConfigMutesAreRecorded(t *testing.T) {
	r := newRig(t, storetest.Backends()[0], conversationScenario)
	ctx := testCtx(t)
	run, number := r.prFailure(t)
	a := r.diagnoseAndPublish(t, run.ID)
	_, doc := r.storedDiagnosis(t, run.ID, run.RunAttempt)
	class := doc.TriggerClass
	if class == "" {
		t.Fatal("the diagnosis names no class")
	}
	pa := jobs.PublishArgs(a)
	main := r.sc.Repository.DefaultBranch

	r.commit(t, main, map[string]string{configPath: "muted_classes:\n  - id: " + class + "\n    reason: upstream mirror flakes\n"})
	if err := r.w.publish(ctx, pa); err != nil {
		t.Fatal(err)
	}
	c, err := r.st.GetClass(ctx, r.sc.Repository.ID, class)
	if err != nil {
		t.Fatal(err)
	}
	if !c.MutedInConfig || c.ConfigMuteReason != "upstream mirror flakes" || c.Muted {
		t.Fatalf("class after a publication under a file that mutes it: in config %v (%q), by command %v",
			c.MutedInConfig, c.ConfigMuteReason, c.Muted)
	}
	if body := r.botComments(number)[0].Body; !strings.Contains(body, "(muted class)") {
		t.Errorf("the comment is not the muted form:\n%s", body[:min(len(body), 600)])
	}

	r.commit(t, main, map[string]string{configPath: "comments:\n  pull_requests: true\n"})
	if err := r.w.publish(ctx, pa); err != nil {
		t.Fatal(err)
	}
	if c, err := r.st.GetClass(ctx, r.sc.Repository.ID, class); err != nil || c.MutedInConfig {
		t.Fatalf("class after the file stopped muting it: in config %v, %v", c.MutedInConfig, err)
	}
}

// TestFixPullRequestLabels: a new fix pull request gets the labels that
// fix_pull_requests.labels names; updating it later adds none again.
func TestFixPullRequestLabels(t *testing.T) {
	r := newRig(t, storetest.Backends()[0], conversationScenario)
	ctx := testCtx(t)
	r.commit(t, r.sc.Repository.DefaultBranch, map[string]string{configPath: "fix_pull_requests:\n  labels: [ci, polylane-fix]\n"})
	trigger := r.sc.TriggerRunID
	a := r.diagnoseAndPublish(t, trigger)
	_, doc := r.storedDiagnosis(t, trigger, a.Attempt)
	fa := jobs.FixArgs{DeliveryGUID: a.DeliveryGUID, InstallationID: a.InstallationID, RepositoryID: a.RepositoryID,
		ClassID: doc.TriggerClass, RunID: trigger, Attempt: a.Attempt}
	for range 2 {
		if err := r.w.fix(ctx, fa); err != nil {
			t.Fatal(err)
		}
	}
	pulls := r.botPulls()
	if len(pulls) != 1 {
		t.Fatalf("%d fix pull requests, want 1", len(pulls))
	}
	if got := strings.Join(r.sim.Labels(r.repo, pulls[0].Number), ","); got != "ci,polylane-fix" {
		t.Errorf("fix pull request labels %q, want ci,polylane-fix", got)
	}
	var labelCalls int
	for _, w := range r.sim.Writes() {
		if strings.HasSuffix(w.Path, "/labels") {
			labelCalls++
		}
	}
	if labelCalls != 1 {
		t.Errorf("%d label writes for one new pull request updated once, want 1", labelCalls)
	}
}

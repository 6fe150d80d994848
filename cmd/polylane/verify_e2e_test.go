package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/polylane/polylane/server/githubtest"
)

// TestFixVerificationEndToEnd runs the verification loop through the real
// server over loopback, on SQLite and PostgreSQL: the fix pull request is
// open; a green run of its branch completes and its delivery edits the
// description; a run failing in the class's way refutes the fix, recorded
// in the store, with no second comment; a redelivery writes nothing.
func TestFixVerificationEndToEnd(t *testing.T) {
	dir := sharedScenarioDir(t, "karmada-rollout")
	for _, b := range e2eBackends() {
		t.Run(b.name, func(t *testing.T) {
			app := startApp(t, dir, b.url(t))
			app.deliver(t, app.sc.TriggerRunID)
			app.waitFor(t, 10*time.Second, "fix pull request with its comment", func() bool {
				pulls := app.botPulls()
				return len(pulls) > 0 && len(app.botComments(pulls[0].Number)) > 0 && app.idle()
			})
			fix := app.botPulls()[0]
			body := func() string {
				for _, p := range app.sim.PullRequests(app.repo) {
					if p.Number == fix.Number {
						return p.Body
					}
				}
				return ""
			}
			run := func(conclusion string) githubtest.Delivery {
				id, err := app.sim.RunOnBranch(app.repo, githubtest.BranchRun{Branch: fix.Head, Like: app.sc.TriggerRunID, Conclusion: conclusion})
				if err != nil {
					t.Fatal(err)
				}
				return app.deliver(t, id)
			}
			run("success")
			app.waitFor(t, 10*time.Second, "the description counting the green run", func() bool {
				return strings.Contains(body(), "1 green run of `E2E Tests` on the fix branch") && app.idle()
			})
			last := run("failure")
			app.waitFor(t, 20*time.Second, "the description saying the fix is refuted", func() bool {
				return strings.Contains(body(), "**Refuted: this fix is no longer recommended.**") && app.idle()
			})
			if n := len(app.botComments(fix.Number)); n != 1 {
				t.Fatalf("%d comments of Polylane on the fix pull request, want its one assessment", n)
			}
			fixes, err := app.st.ListFixPullRequests(context.Background(), app.sc.Repository.ID)
			if err != nil || len(fixes) != 1 || fixes[0].Branch != fix.Head {
				t.Fatalf("fix pull requests %+v (%v)", fixes, err)
			}
			runs, err := app.st.ListFixVerificationRuns(context.Background(), app.sc.Repository.ID, fixes[0].ClassID)
			if err != nil || len(runs) != 2 || runs[0].Conclusion != "success" || !runs[1].InClass || runs[1].Cause == "" {
				t.Fatalf("verification record %+v (%v)", runs, err)
			}
			writes := len(app.sim.Writes())
			again, err := app.sim.Redeliver(context.Background(), last)
			if err != nil || again.Status != http.StatusOK {
				t.Fatalf("redelivery: %v %d", err, again.Status)
			}
			time.Sleep(time.Second)
			if n := len(app.sim.Writes()); n != writes || !app.idle() {
				t.Fatalf("the redelivery caused %d writes to GitHub", n-writes)
			}
		})
	}
}

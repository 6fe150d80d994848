package webhook_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"net/http"
	"net/http/httptest"

	"github.com/rs/zerolog"

	"github.com/polylane/polylane/server"
	"github.com/polylane/polylane/server/githubtest"
	"github.com/polylane/polylane/server/webhook"
	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/store/storetest"
)

// TestConversationEvents checks which comments, pull request events and
// successful runs start a job, and that redeliveries and repeated edits
// start none.
func TestConversationEvents(t *testing.T) {
	for _, b := range storetest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			r := newRig(t, b, 0)
			ctx := context.Background()
			comment := func(login, body string) int64 {
				id, err := r.sim.AddIssueComment(tinyRepo, tinyPR, login, body)
				if err != nil {
					t.Fatal(err)
				}
				return id
			}
			send := func(guid string, build func(*githubtest.Server) (githubtest.Event, error)) int {
				ev, err := build(r.sim)
				if err != nil {
					t.Fatal(err)
				}
				status, text := r.post(t, ev.Name, guid, ev.Payload, "", "application/json")
				if status >= 300 {
					t.Fatalf("%s: %d %s", guid, status, text)
				}
				return status
			}
			commentEvent := func(action string, id int64, sender string) func(*githubtest.Server) (githubtest.Event, error) {
				return func(s *githubtest.Server) (githubtest.Event, error) {
					return s.IssueCommentEvent(action, tinyRepo, id, sender)
				}
			}
			stored := func(guid string) bool {
				_, err := r.st.GetDelivery(ctx, guid)
				if err != nil && !errors.Is(err, store.ErrNotFound) {
					t.Fatal(err)
				}
				return err == nil
			}

			help := comment("octocat", "Thanks!\n@polylane help\n> @polylane fix")
			if got := send("c1", commentEvent("created", help, "")); got != 202 || r.jobs(t) != 1 {
				t.Fatalf("command: status %d, %d jobs", got, r.jobs(t))
			}
			if d, err := r.st.GetDelivery(ctx, "c1"); err != nil || d.State != store.DeliveryQueued || d.Event != "issue_comment" {
				t.Fatalf("delivery of the command: %v %+v", err, d.State)
			}
			if got := send("c1", commentEvent("created", help, "")); got != 200 || r.jobs(t) != 1 {
				t.Fatalf("redelivery: status %d, %d jobs", got, r.jobs(t))
			}
			// A second delivery of the same comment (GitHub retried it under a new id) adds no job either.
			send("c1b", commentEvent("created", help, ""))
			if r.jobs(t) != 1 {
				t.Fatalf("a second delivery of the same commands queued a job")
			}

			ignored := []struct {
				guid  string
				build func(*githubtest.Server) (githubtest.Event, error)
			}{
				{"fenced", commentEvent("created", comment("octocat", "```\n@polylane fix\n```"), "")},
				{"quoted", commentEvent("created", comment("octocat", "> @polylane rerun"), "")},
				{"no command", commentEvent("created", comment("octocat", "looks good"), "")},
				{"bot", commentEvent("created", comment("dependabot[bot]", "@polylane fix"), "")},
				{"edited by another", commentEvent("edited", help, "mallory")},
				{"deleted", commentEvent("deleted", help, "")},
				{"pr opened", func(s *githubtest.Server) (githubtest.Event, error) {
					return s.PullRequestEvent("opened", tinyRepo, tinyPR, "")
				}},
				{"pr closed, not a fix", func(s *githubtest.Server) (githubtest.Event, error) {
					return s.PullRequestEvent("closed", tinyRepo, tinyPR, "")
				}},
				{"success without fix pr", runEvent(tinyPassed)},
			}
			for _, tc := range ignored {
				if got := send(tc.guid, tc.build); got != 202 || stored(tc.guid) {
					t.Errorf("%s: status %d, stored %v", tc.guid, got, stored(tc.guid))
				}
			}
			if n := r.jobs(t); n != 1 {
				t.Fatalf("%d jobs after ignored events, want 1", n)
			}

			// The author edits in a new command: a new job.
			if err := r.sim.EditIssueComment(tinyRepo, help, "@polylane explain"); err != nil {
				t.Fatal(err)
			}
			send("c2", commentEvent("edited", help, "octocat"))
			if n := r.jobs(t); n != 2 {
				t.Fatalf("%d jobs after the author's edit, want 2", n)
			}

			send("sync", func(s *githubtest.Server) (githubtest.Event, error) {
				return s.PullRequestEvent("synchronize", tinyRepo, tinyPR, "0000000000000000000000000000000000000001")
			})
			if n := r.jobs(t); n != 3 {
				t.Fatalf("%d jobs after synchronize, want 3", n)
			}

			// A success on the default branch starts a check once a fix pull request is open.
			tmpl := openFixC(t, r)
			// (the "no open fix pull request" answer is cached briefly; a new rig has none cached)
			r2 := newRigOn(t, r)
			body, _ := json.Marshal(tmpl)
			if status, text := r2.post(t, "workflow_run", "success", body, "", "application/json"); status != 202 {
				t.Fatalf("success: %d %s", status, text)
			}
			if n := r.jobs(t); n != 4 || !stored("success") {
				t.Fatalf("%d jobs after a success with an open fix pull request, want 4", n)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// newRigOn is a second webhook endpoint on the same store and simulator.
func newRigOn(t *testing.T, r *rig) *rig {
	t.Helper()
	return &rig{st: r.st, url: serveHook(t, r.st, webhook.Options{Secret: secret, Store: r.st}), sim: r.sim}
}

// serveHook serves a handler with opts over loopback and returns its URL.
func serveHook(t *testing.T, checker server.Checker, opts webhook.Options) string {
	t.Helper()
	h, err := webhook.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := server.New(server.Options{Logger: zerolog.Nop(), Checker: checker})
	srv.Method(http.MethodPost, "/webhooks/github", h)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return hs.URL + "/webhooks/github"
}

// TestFixBranchRuns: a completed run that is not diagnosed queues the
// fix's verification only on the branch of an open fix pull request of the
// repository itself; runs of other branches, and a fork's branch of the
// same name, never count.
func TestFixBranchRuns(t *testing.T) {
	for _, b := range storetest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			r := newRig(t, b, 0)
			// A failure on the default branch records the repository.
			if status, text := r.post(t, "workflow_run", "main-failure", r.event(t, runEvent(tinyFailed)), "", "application/json"); status != 202 {
				t.Fatalf("failure on main: %d %s", status, text)
			}
			tmpl := openFixC(t, r)
			run := tmpl["workflow_run"].(map[string]any)
			for i, tc := range []struct {
				name, branch, conclusion string
				headRepo                 int64
				queued                   bool
				reason                   string
			}{
				{"success on the fix branch", "polylane/fix-c", "success", tinyRepoID, true, "queued for verification"},
				{"cancelled on the fix branch", "polylane/fix-c", "cancelled", tinyRepoID, true, "queued for verification"},
				{"failure on the fix branch is diagnosed", "polylane/fix-c", "failure", tinyRepoID, true, "queued for diagnosis"},
				{"another fix branch", "polylane/fix-other", "success", tinyRepoID, false, "no open fix pull request of that branch"},
				{"a fork's branch of the same name", "polylane/fix-c", "success", 4242, false, "fork"},
				{"a feature branch", "feature", "success", tinyRepoID, false, "not diagnosed"},
			} {
				before := r.jobs(t)
				run["id"] = float64(50000 + i)
				run["head_branch"], run["conclusion"] = tc.branch, tc.conclusion
				run["head_repository"] = map[string]any{"id": tc.headRepo, "full_name": "someone/tiny"}
				body, _ := json.Marshal(tmpl)
				status, text := r.post(t, "workflow_run", "fix-"+strconv.Itoa(i), body, "", "application/json")
				if status != 202 || !strings.Contains(text, tc.reason) {
					t.Errorf("%s: %d %q, want 202 saying %q", tc.name, status, text, tc.reason)
				}
				if got := r.jobs(t) - before; got != map[bool]int64{true: 1, false: 0}[tc.queued] {
					t.Errorf("%s: %d jobs queued", tc.name, got)
				}
			}
		})
	}
}

// openFixC records an open fix pull request of class "c" on
// polylane/fix-c, and returns the delivery of a success on main to build
// other runs from.
func openFixC(t *testing.T, r *rig) map[string]any {
	t.Helper()
	ctx := context.Background()
	must(t, r.st.UpsertClass(ctx, store.FailureClass{RepositoryID: tinyRepoID, ID: "c", FirstSeen: time.Now(), LastSeen: time.Now(), Count: 1}))
	must(t, r.st.UpsertFixPullRequest(ctx, store.FixPullRequest{RepositoryID: tinyRepoID, ClassID: "c", Number: 77,
		Branch: "polylane/fix-c", State: store.FixOpen}))
	var tmpl map[string]any
	if err := json.Unmarshal(r.event(t, runEvent(tinyPassed)), &tmpl); err != nil {
		t.Fatal(err)
	}
	return tmpl
}

package webhook_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/polylane/polylane/analysis/scenario/scenariotest"
	"github.com/polylane/polylane/server"
	"github.com/polylane/polylane/server/dashboard"
	"github.com/polylane/polylane/server/webhook"
	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/store/storetest"
)

// octokitExample reads one of GitHub's example payloads from
// ../shared/data/octokit-webhooks (skipped, or failed when CI=true, when
// the data set is not there).
func octokitExample(t *testing.T, elem ...string) map[string]any {
	t.Helper()
	p := scenariotest.Path(t, append([]string{"data", "octokit-webhooks", "api.github.com"}, elem...)...)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return m
}

// repositoryEvent is a "repository" delivery with the given action, in the
// shape of GitHub's examples of that event: action, changes (renamed,
// transferred), repository, sender and installation. The shared data set
// holds no repository example, so its objects come from the pull_request
// example, whose repository, sender and installation objects are those
// every repository event carries.
func repositoryEvent(t *testing.T, action string) map[string]any {
	t.Helper()
	base := octokitExample(t, "pull_request", "opened.payload.json")
	ev := map[string]any{"action": action, "repository": base["repository"], "sender": base["sender"],
		"installation": base["installation"]}
	switch action {
	case "renamed":
		ev["changes"] = map[string]any{"repository": map[string]any{"name": map[string]any{"from": "Hello-World"}}}
	case "transferred":
		ev["changes"] = map[string]any{"owner": map[string]any{"from": map[string]any{"user": base["sender"]}}}
	}
	return ev
}

// exampleRepo is the repository of GitHub's examples, as they name it.
type exampleRepo struct {
	id, installation int64
	fullName, owner  string
}

func exampleRepoOf(t *testing.T, ev map[string]any) exampleRepo {
	t.Helper()
	repo := ev["repository"].(map[string]any)
	owner := repo["owner"].(map[string]any)
	return exampleRepo{id: int64(repo["id"].(float64)), installation: int64(ev["installation"].(map[string]any)["id"].(float64)),
		fullName: repo["full_name"].(string), owner: owner["login"].(string)}
}

// seed stores the example's installation (on account) and its repository.
func (e exampleRepo) seed(t *testing.T, st store.Store, account string, private bool) {
	t.Helper()
	ctx := context.Background()
	if err := st.UpsertInstallation(ctx, store.Installation{ID: e.installation, AccountLogin: account, AccountType: "User"}); err != nil {
		t.Fatal(err)
	}
	if err := st.UpsertRepository(ctx, store.Repository{ID: e.id, InstallationID: e.installation, FullName: e.fullName,
		DefaultBranch: "master", Private: private}); err != nil {
		t.Fatal(err)
	}
}

// postJSON signs and posts a payload built as a map.
func (r *rig) postJSON(t *testing.T, event, guid string, payload map[string]any) (int, string) {
	t.Helper()
	body, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	return r.post(t, event, guid, body, "", "application/json")
}

// TestRepositoryEventsKeepTheStoreTrue sends GitHub's repository events
// for a stored repository: the store follows its visibility, name, owner
// and deletion; archived and unarchived change nothing.
func TestRepositoryEventsKeepTheStoreTrue(t *testing.T) {
	rename := func(ev map[string]any) {
		repo := ev["repository"].(map[string]any)
		repo["name"], repo["full_name"] = "Hello-Octo", "Codertocat/Hello-Octo"
	}
	transfer := func(to string) func(map[string]any) {
		return func(ev map[string]any) {
			repo := ev["repository"].(map[string]any)
			repo["full_name"] = to + "/Hello-World"
			repo["owner"].(map[string]any)["login"] = to
		}
	}
	tests := []struct {
		name, action string
		private      bool                 // stored before the event
		account      string               // the installation's account ("": the example's owner)
		edit         func(map[string]any) // the payload's repository after the change
		want         func(e exampleRepo) store.Repository
	}{
		{"privatized", "privatized", false, "", func(ev map[string]any) { ev["repository"].(map[string]any)["private"] = true },
			func(e exampleRepo) store.Repository { return store.Repository{FullName: e.fullName, Private: true} }},
		{"publicized", "publicized", true, "", nil,
			func(e exampleRepo) store.Repository { return store.Repository{FullName: e.fullName} }},
		{"renamed", "renamed", false, "", rename,
			func(e exampleRepo) store.Repository { return store.Repository{FullName: "Codertocat/Hello-Octo"} }},
		{"transferred to the installation's account", "transferred", false, "Octocoders", transfer("Octocoders"),
			func(e exampleRepo) store.Repository { return store.Repository{FullName: "Octocoders/Hello-World"} }},
		{"transferred away from the installation's account", "transferred", false, "", transfer("Octocoders"),
			func(e exampleRepo) store.Repository {
				return store.Repository{FullName: "Octocoders/Hello-World", Removed: true}
			}},
		{"deleted", "deleted", false, "", nil,
			func(e exampleRepo) store.Repository { return store.Repository{FullName: e.fullName, Removed: true} }},
		{"archived", "archived", false, "", func(ev map[string]any) { ev["repository"].(map[string]any)["archived"] = true },
			func(e exampleRepo) store.Repository { return store.Repository{FullName: e.fullName} }},
		{"unarchived", "unarchived", true, "", nil,
			func(e exampleRepo) store.Repository { return store.Repository{FullName: e.fullName, Private: true} }},
	}
	for _, b := range storetest.Backends() {
		for _, tc := range tests {
			t.Run(b.Name+"/"+tc.name, func(t *testing.T) {
				r := newRig(t, b, 0)
				ev := repositoryEvent(t, tc.action)
				e := exampleRepoOf(t, ev)
				account := tc.account
				if account == "" {
					account = e.owner
				}
				e.seed(t, r.st, account, tc.private)
				if tc.edit != nil {
					tc.edit(ev)
				}
				if status, text := r.postJSON(t, "repository", "repo-"+tc.action, ev); status != http.StatusOK {
					t.Fatalf("answered %d %s, want 200", status, text)
				}
				got, err := r.st.GetRepository(context.Background(), e.id)
				if err != nil {
					t.Fatal(err)
				}
				want := tc.want(e)
				if got.FullName != want.FullName || got.Private != want.Private || got.Removed != want.Removed ||
					got.InstallationID != e.installation {
					t.Fatalf("stored %+v, want %+v", got, want)
				}
			})
		}
	}
}

// TestWorkflowRunRefreshesPrivateFlag: a delivery whose repository object
// says the repository is now private (or public again) updates the stored
// flag, even when nothing else about the repository changed.
func TestWorkflowRunRefreshesPrivateFlag(t *testing.T) {
	for _, b := range storetest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			r := newRig(t, b, 0)
			var run map[string]any
			if err := json.Unmarshal(r.event(t, runEvent(tinyFailed)), &run); err != nil {
				t.Fatal(err)
			}
			for i, private := range []bool{false, true, false} {
				run["repository"].(map[string]any)["private"] = private
				run["workflow_run"].(map[string]any)["id"] = 700 + i // a new run: a new body
				if status, text := r.postJSON(t, "workflow_run", "private-"+string(rune('a'+i)), run); status != http.StatusAccepted {
					t.Fatalf("run %d: %d %s", i, status, text)
				}
				got, err := r.st.GetRepository(context.Background(), tinyRepoID)
				if err != nil || got.Private != private {
					t.Fatalf("after a delivery saying private=%v: %v %+v", private, err, got)
				}
			}
		})
	}
}

// TestRepositoryPrivatizedHidesDashboard: on a public dashboard, a
// repository made private is no longer shown to a signed-out visitor, on
// its page or in the overview, from the moment GitHub says so.
func TestRepositoryPrivatizedHidesDashboard(t *testing.T) {
	for _, b := range storetest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			st := b.Open(t)
			h, err := webhook.New(webhook.Options{Secret: secret, Store: st})
			if err != nil {
				t.Fatal(err)
			}
			d, err := dashboard.New(dashboard.Options{Store: st, Public: true})
			if err != nil {
				t.Fatal(err)
			}
			srv := server.New(server.Options{Logger: zerolog.Nop(), Checker: st})
			srv.Method(http.MethodPost, "/webhooks/github", h)
			d.Mount(srv)
			hs := httptest.NewServer(srv.Handler())
			t.Cleanup(hs.Close)
			r := &rig{st: st, url: hs.URL + "/webhooks/github"}

			ev := repositoryEvent(t, "privatized")
			e := exampleRepoOf(t, ev)
			e.seed(t, st, e.owner, false)
			page := hs.URL + "/repos/" + e.fullName
			if status, _ := get(t, page); status != http.StatusOK {
				t.Fatalf("public repository page answered %d before the event", status)
			}
			if _, body := get(t, hs.URL+"/"); !strings.Contains(body, e.fullName) {
				t.Fatal("the overview does not list the public repository before the event")
			}
			ev["repository"].(map[string]any)["private"] = true
			if status, text := r.postJSON(t, "repository", "privatized-1", ev); status != http.StatusOK {
				t.Errorf("privatized answered %d %s", status, text)
			}
			if status, _ := get(t, page); status != http.StatusNotFound {
				t.Fatalf("the private repository's page answered %d to a signed-out visitor", status)
			}
			if status, _ := get(t, hs.URL+"/api/v1/repos/"+e.fullName); status != http.StatusNotFound {
				t.Fatalf("the private repository's API answered %d to a signed-out visitor", status)
			}
			if _, body := get(t, hs.URL+"/"); strings.Contains(body, e.fullName) {
				t.Fatal("the overview lists the private repository to a signed-out visitor")
			}
		})
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestOtherEventsBodiesChangeNoRecords resends signed bodies of other
// events under the names of the events that change records (the event
// name is not signed): a comment's deletion as a repository or an
// installation event, a comment as an installation event, a repository's
// deletion as an installation event. Each is refused; the repository and
// its installation stay as they were.
func TestOtherEventsBodiesChangeNoRecords(t *testing.T) {
	for _, b := range storetest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			r := newRig(t, b, 0)
			ctx := context.Background()
			r.send(t, installationEvent("created"), "created", http.StatusOK)
			commentID, err := r.sim.AddIssueComment(tinyRepo, tinyPR, "octocat", "thanks")
			if err != nil {
				t.Fatal(err)
			}
			comment := func(action string) []byte {
				ev, err := r.sim.IssueCommentEvent(action, tinyRepo, commentID, "")
				if err != nil {
					t.Fatal(err)
				}
				return ev.Payload
			}
			var run map[string]any
			if err := json.Unmarshal(r.event(t, runEvent(tinyFailed)), &run); err != nil {
				t.Fatal(err)
			}
			repoDeleted, _ := json.Marshal(map[string]any{"action": "deleted", "repository": run["repository"],
				"installation": map[string]any{"id": tinyInst}, "sender": run["sender"]})
			tests := []struct {
				name, event string
				body        []byte
			}{
				{"comment deleted as repository", "repository", comment("deleted")},
				{"comment deleted as installation", "installation", comment("deleted")},
				{"comment created as installation", "installation", comment("created")},
				{"repository deleted as installation", "installation", repoDeleted},
				{"repository deleted as installation_repositories", "installation_repositories", repoDeleted},
			}
			for i, tc := range tests {
				guid := "cross-" + string(rune('a'+i))
				if status, text := r.post(t, tc.event, guid, tc.body, "", "application/json"); status != http.StatusBadRequest {
					t.Errorf("%s: answered %d %s, want 400", tc.name, status, text)
				}
			}
			repo, err := r.st.GetRepository(ctx, tinyRepoID)
			if err != nil || repo.Removed {
				t.Errorf("repository: %v %+v", err, repo)
			}
			in, err := r.st.GetInstallation(ctx, tinyInst)
			if err != nil || in.Deleted || in.Suspended {
				t.Errorf("installation: %v %+v", err, in)
			}
		})
	}
}

package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/polylane/polylane/analysis/gha"

	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/server/githubtest"
)

// conversationScenario is an in-repository scenario with a failed pull
// request run whose diagnosis has a patch.
var conversationScenario = filepath.Join("..", "..", "causal", "diagnosis", "testdata", "scenarios", "rs-go-gotestsum-flake")

// prRun picks the scenario's failed pull-request run and its number.
func (a *appUnderTest) prRun(t *testing.T) (gha.Run, int) {
	t.Helper()
	for _, r := range a.sc.Runs {
		if r.Event == "pull_request" && r.Conclusion == "failure" && len(r.PullRequests) > 0 {
			return r, r.PullRequests[0].Number
		}
	}
	t.Fatal("no failed pull-request run")
	return gha.Run{}, 0
}

// comment posts a comment as login and delivers its event.
func (a *appUnderTest) comment(t *testing.T, number int, login, body string) {
	t.Helper()
	id, err := a.sim.AddIssueComment(a.repo, number, login, body)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := a.sim.IssueCommentEvent("created", a.repo, id, "")
	if err != nil {
		t.Fatal(err)
	}
	d, err := a.sim.Deliver(context.Background(), a.url+WebhookPath, ev)
	if err != nil || d.Status != http.StatusAccepted {
		t.Fatalf("comment delivery: %v %d %s", err, d.Status, d.Response)
	}
}

// replies lists Polylane's replies on an issue.
func (a *appUnderTest) replies(number int) []githubtest.IssueComment {
	var out []githubtest.IssueComment
	for _, c := range a.botComments(number) {
		if strings.HasPrefix(c.Body, "<!-- polylane:reply ") {
			out = append(out, c)
		}
	}
	return out
}

// writeDefaultBranchFile commits a file onto the default branch.
func (a *appUnderTest) writeDefaultBranchFile(t *testing.T, path, content string) {
	t.Helper()
	gh, err := ghclient.New(ghclient.Config{AppID: a.sim.AppID(), PrivateKey: a.sim.PrivateKeyPEM(), BaseURL: a.sim.APIURL()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	repo, err := gh.Repo(a.sc.InstallationID, a.repo)
	if err != nil {
		t.Fatal(err)
	}
	branch := a.sc.Repository.DefaultBranch
	head, err := repo.BranchHead(ctx, branch)
	if err != nil {
		t.Fatal(err)
	}
	c, err := repo.GetCommit(ctx, head)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := repo.CreateTree(ctx, c.Tree, []ghclient.TreeFile{{Path: path, Content: []byte(content)}})
	if err != nil {
		t.Fatal(err)
	}
	sha, err := repo.CreateCommit(ctx, "configure polylane", tree, []string{head})
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.MoveBranch(ctx, branch, sha, false); err != nil {
		t.Fatal(err)
	}
}

// TestConversationEndToEnd talks to serve through signed deliveries: a
// command is acknowledged and answered, a read-only commenter's mutating
// command is refused, and quoted commands are ignored.
func TestConversationEndToEnd(t *testing.T) {
	for _, b := range e2eBackends() {
		t.Run(b.name, func(t *testing.T) {
			app := startAppWith(t, conversationScenario, b.url(t), nil)
			run, number := app.prRun(t)
			app.deliver(t, run.ID)
			app.waitFor(t, 10*time.Second, "assessment comment", func() bool { return len(app.botComments(number)) > 0 && app.idle() })
			if err := app.sim.SetPermission(app.repo, "reader", "read"); err != nil {
				t.Fatal(err)
			}
			app.comment(t, number, "reader", "@polylane explain")
			app.waitFor(t, 10*time.Second, "the answer to explain", func() bool { return len(app.replies(number)) == 1 && app.idle() })
			if body := app.replies(number)[0].Body; !strings.Contains(body, "#### Causal chain") {
				t.Fatalf("explain reply:\n%s", body)
			}
			app.comment(t, number, "reader", "> @polylane fix\n@polylane fix")
			app.waitFor(t, 10*time.Second, "the refusal", func() bool { return len(app.replies(number)) == 2 && app.idle() })
			if body := app.replies(number)[1].Body; !strings.Contains(body, "needs write access") {
				t.Fatalf("fix by a reader:\n%s", body)
			}
			if len(app.botPulls()) != 0 {
				t.Fatal("a reader's fix command opened a pull request")
			}
		})
	}
}

// TestNarratorEndToEnd runs serve with the narrator pointed at a loopback
// chat-completions server: a repository that opted in gets the narrated
// wording (and /metrics counts the request); with the server unreachable
// the comment is still posted, in Polylane's words.
func TestNarratorEndToEnd(t *testing.T) {
	var calls atomic.Int64
	chat := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion", "model": "m",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant",
				"content": "SUMMARY: nothing grounded at all in 9999 runs.\nWHY THIS FIX: see `nowhere.go`."}}}})
	}))
	t.Cleanup(chat.Close)
	for _, tc := range []struct {
		name, url string
		wantCalls bool
	}{{"reachable", chat.URL + "/v1", true}, {"unreachable", deadURL(t), false}} {
		t.Run(tc.name, func(t *testing.T) {
			calls.Store(0)
			app := startAppWith(t, conversationScenario, "sqlite://"+filepath.Join(t.TempDir(), "e2e.db"), map[string]string{
				"POLYLANE_LLM_BASE_URL": tc.url, "POLYLANE_LLM_MODEL": "m", "POLYLANE_LLM_TIMEOUT": "2s"})
			app.writeDefaultBranchFile(t, ".github/polylane.yml", "llm:\n  enabled: true\n")
			run, number := app.prRun(t)
			app.deliver(t, run.ID)
			took := app.waitFor(t, 10*time.Second, "assessment comment", func() bool { return len(app.botComments(number)) > 0 && app.idle() })
			body := app.botComments(number)[0].Body
			// The scripted reply is not grounded: the validator rejects it and Polylane's own words stay.
			if strings.Contains(body, "9999") || strings.Contains(body, "Worded by an LLM") || !strings.Contains(body, "### Polylane:") {
				t.Fatalf("comment:\n%s", body)
			}
			if got := calls.Load() > 0; got != tc.wantCalls {
				t.Fatalf("model called: %v, want %v", got, tc.wantCalls)
			}
			metrics := scrape(t, app.url+"/metrics")
			outcome := `polylane_narrator_requests_total{kind="wording",outcome="rejected"} 1`
			if !tc.wantCalls {
				outcome = `polylane_narrator_requests_total{kind="wording",outcome="error"} 1`
			}
			if !strings.Contains(metrics, outcome) {
				t.Errorf("/metrics lacks %s", outcome)
			}
			t.Logf("%s: comment posted %s after the delivery", tc.name, took.Round(time.Millisecond))
		})
	}
}

// deadURL is an address where nothing listens.
func deadURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	return u
}

// scrape reads a metrics page.
func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

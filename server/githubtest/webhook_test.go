package githubtest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v66/github"
)

// receiver is a webhook endpoint that verifies and parses deliveries the
// way Polylane's handler does.
type receiver struct {
	mu      sync.Mutex
	secret  string
	events  []any
	headers []http.Header
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := github.ValidatePayload(r, []byte(rc.secret))
	if err != nil {
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	ev, err := github.ParseWebHook(github.WebHookType(r), body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	rc.events = append(rc.events, ev)
	rc.headers = append(rc.headers, r.Header.Clone())
	rc.mu.Unlock()
	w.WriteHeader(http.StatusAccepted)
}

func TestWebhookDeliveries(t *testing.T) {
	s := startTiny(t, Options{})
	rc := &receiver{secret: s.WebhookSecret()}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	comment, _ := s.AddIssueComment(tinyRepo, tinyPR, "dana", "@polylane help")
	if err := s.EditIssueComment(tinyRepo, comment, "@polylane explain"); err != nil {
		t.Fatal(err)
	}
	build := []func() (Event, error){
		func() (Event, error) { return s.WorkflowRunEvent(tinyRepo, tinyTrigger) },
		func() (Event, error) { return s.WorkflowRunEvent(tinyRepo, 9003) },
		func() (Event, error) { return s.IssueCommentEvent("created", tinyRepo, comment, "") },
		func() (Event, error) { return s.IssueCommentEvent("edited", tinyRepo, comment, "") },
		func() (Event, error) { return s.PullRequestEvent("synchronize", tinyRepo, tinyPR, "0123") },
		func() (Event, error) { return s.PullRequestEvent("closed", tinyRepo, tinyPR, "") },
		func() (Event, error) { return s.InstallationEvent("created", tinyInst) },
		func() (Event, error) { return s.InstallationEvent("deleted", tinyInst) },
		func() (Event, error) { return s.InstallationRepositoriesEvent("added", tinyInst, tinyRepo) },
		func() (Event, error) { return s.InstallationRepositoriesEvent("removed", tinyInst, tinyRepo) },
		s.PingEvent,
	}
	for i, b := range build {
		ev, err := b()
		if err != nil {
			t.Fatal(err)
		}
		d, err := s.Deliver(ctx(t), srv.URL, ev)
		if err != nil || d.Status != http.StatusAccepted {
			t.Fatalf("delivery %d (%s): %v status %d %s", i, ev.Name, err, d.Status, d.Response)
		}
	}
	checkParsedEvents(t, rc.events)
	h := rc.headers[0]
	if !strings.HasPrefix(h.Get("User-Agent"), "GitHub-Hookshot/") || h.Get("X-GitHub-Hook-Installation-Target-Type") != "integration" ||
		h.Get("X-GitHub-Hook-Installation-Target-ID") != "1" || len(h.Get("X-GitHub-Delivery")) != 36 ||
		!strings.HasPrefix(h.Get("X-Hub-Signature"), "sha1=") {
		t.Errorf("headers = %v", h)
	}
	first := s.Deliveries()[0]
	again, err := s.Redeliver(ctx(t), first)
	if err != nil || again.GUID != first.GUID || string(again.Payload) != string(first.Payload) {
		t.Errorf("redelivery: %v %s vs %s", err, again.GUID, first.GUID)
	}
	if len(s.Deliveries()) != len(build)+1 {
		t.Errorf("%d deliveries recorded", len(s.Deliveries()))
	}
}

// checkParsedEvents checks the fields Polylane reads from each event.
func checkParsedEvents(t *testing.T, events []any) {
	t.Helper()
	run := events[0].(*github.WorkflowRunEvent)
	if run.GetAction() != "completed" || run.GetWorkflowRun().GetID() != tinyTrigger || run.GetInstallation().GetID() != tinyInst ||
		run.GetRepo().GetFullName() != tinyRepo || run.GetWorkflow().GetPath() != ".github/workflows/ci.yml" ||
		run.GetSender().GetLogin() != "dana" || run.GetOrg().GetLogin() != "acme" || run.GetWorkflowRun().GetConclusion() != "failure" {
		t.Errorf("workflow_run = %+v", run)
	}
	prRun := events[1].(*github.WorkflowRunEvent)
	if prs := prRun.GetWorkflowRun().PullRequests; len(prs) != 1 || prs[0].GetNumber() != tinyPR || prs[0].GetBase().GetRepo().GetID() != 1001 {
		t.Errorf("workflow_run pull_requests = %+v", prs)
	}
	created := events[2].(*github.IssueCommentEvent)
	if created.GetAction() != "created" || !created.GetIssue().IsPullRequest() || created.GetIssue().GetNumber() != tinyPR ||
		created.GetComment().GetBody() != "@polylane explain" || created.GetInstallation().GetID() != tinyInst {
		t.Errorf("issue_comment = %+v", created)
	}
	edited := events[3].(*github.IssueCommentEvent)
	if edited.GetChanges().GetBody().GetFrom() != "@polylane help" || edited.GetSender().GetLogin() != "dana" {
		t.Errorf("issue_comment edited changes = %+v", edited.GetChanges())
	}
	sync := events[4].(*github.PullRequestEvent)
	if sync.GetAction() != "synchronize" || sync.GetBefore() != "0123" || sync.GetAfter() != sync.GetPullRequest().GetHead().GetSHA() {
		t.Errorf("pull_request synchronize = %+v", sync)
	}
	inst := events[6].(*github.InstallationEvent)
	if inst.GetAction() != "created" || inst.GetInstallation().GetID() != tinyInst || len(inst.Repositories) != 1 || inst.Repositories[0].GetFullName() != tinyRepo {
		t.Errorf("installation = %+v", inst)
	}
	removed := events[9].(*github.InstallationRepositoriesEvent)
	if removed.GetAction() != "removed" || len(removed.RepositoriesRemoved) != 1 || len(removed.RepositoriesAdded) != 0 {
		t.Errorf("installation_repositories = %+v", removed)
	}
	ping := events[10].(*github.PingEvent)
	if ping.GetHook().GetID() == 0 || ping.GetZen() == "" {
		t.Errorf("ping = %+v", ping)
	}
}

func TestWebhookSignatureRejectedWithWrongSecret(t *testing.T) {
	s := startTiny(t, Options{WebhookSecret: "It's a Secret to Everybody"})
	if got := s.Sign([]byte("Hello, World!")); got != "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17" {
		t.Errorf("signature = %s, want GitHub's documented test vector", got)
	}
	srv := httptest.NewServer(&receiver{secret: "another secret"})
	defer srv.Close()
	ev, _ := s.PingEvent()
	d, err := s.Deliver(ctx(t), srv.URL, ev)
	if err != nil || d.Status != http.StatusUnauthorized {
		t.Errorf("delivery with a mismatched secret: %v %d", err, d.Status)
	}
	if _, err := s.Deliver(ctx(t), "", ev); err == nil {
		t.Error("delivering without a URL must fail when the app has no webhook URL")
	}
}

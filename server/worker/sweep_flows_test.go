package worker

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/polylane/polylane/server/jobs"

	"github.com/polylane/polylane/analysis/gha"

	"github.com/polylane/polylane/server/githubtest"
	"github.com/polylane/polylane/server/report"
	"github.com/polylane/polylane/store"
)

// sweepFlow is one flow of the GitHub App whose calls the sweep faults,
// cut into stages: a case whose fault is in a stage starts from that
// stage's persisted starting point, so that only the first stage pays for
// the diagnosis. expect checks the flow's end state.
type sweepFlow struct {
	name   string
	stages []sweepStage
	expect func(t testing.TB, a *sweepApp, s *flowState)
}

// sweepStage is where cases start: the store of a snapshot ("" for an
// empty one), a setup done without faults before the calls are recorded,
// and start, which sets the flow going. Its cases fault the calls of the
// phases listed (nil: every phase).
type sweepStage struct {
	snapshot string
	setup    func(t testing.TB, a *sweepApp, s *flowState)
	start    func(t testing.TB, a *sweepApp, s *flowState)
	phases   map[string]bool
}

// flowState is what a flow's steps share.
type flowState struct {
	run      gha.Run  // the failed run delivered
	number   int      // the pull request of a pull-request flow
	accepted []string // GUIDs answered 202
	rejected []string // GUIDs answered 401
	comment  int64    // the comment with the command, in the mention flow
	// forgedComment and forgedRun are what the rejected deliveries were
	// about: nothing may be published for them.
	forgedComment int64
	forgedRun     int64
}

// sweepSnapshot is a store saved after a clean diagnosis of one run,
// stored without its publish job: cases of later stages start from a copy
// and queue that job themselves, as the diagnosis would have.
type sweepSnapshot struct {
	db    string
	state flowState
}

// Snapshot names.
const (
	snapDefaultBranch = "default-branch diagnosed"
	snapPullRequest   = "pull-request diagnosed"
)

// sweepFlows are the flows of issue 9: a default-branch failure diagnosed
// with its fix pull request and comment; a pull-request failure's sticky
// comment; "@polylane fix" on that pull request.
func sweepFlows() []sweepFlow {
	afterDiagnosis := map[string]bool{"diagnose": true}
	return []sweepFlow{
		{name: "default-branch", expect: expectDefaultBranch, stages: []sweepStage{
			{start: startDefaultBranch, phases: afterDiagnosis},
			{snapshot: snapDefaultBranch, start: startPublish},
		}},
		{name: "pull-request", expect: expectPullRequest, stages: []sweepStage{
			{start: startPullRequest, phases: afterDiagnosis},
			{snapshot: snapPullRequest, start: startPublish},
		}},
		{name: "mention-fix", expect: expectMention, stages: []sweepStage{
			{snapshot: snapPullRequest, setup: setupMention, start: startMention},
		}},
	}
}

// makeSnapshots diagnoses the default-branch trigger and a pull-request
// failure without faults and saves the stores.
func makeSnapshots(t testing.TB, base *sweepBase) map[string]sweepSnapshot {
	t.Helper()
	out := map[string]sweepSnapshot{}
	for name, start := range map[string]func(testing.TB, *sweepApp, *flowState){
		snapDefaultBranch: startDefaultBranch, snapPullRequest: startPullRequest} {
		a := newSweepApp(t, base, "")
		a.startWorker(t, false)
		s := &flowState{}
		start(t, a, s)
		a.settle(t, sweepSettle)
		a.expectDiagnosed(t, s.accepted[0], s.run)
		a.closeStore(t)
		dir := t.TempDir()
		out[name] = sweepSnapshot{db: copyDB(t, a.path, dir), state: flowState{run: s.run, number: s.number, accepted: s.accepted}}
	}
	return out
}

// startPublish queues the publish job of the snapshot's diagnosis, as the
// diagnose job does in the transaction that stores it.
func startPublish(t testing.TB, a *sweepApp, s *flowState) {
	t.Helper()
	d, err := a.st.GetDelivery(context.Background(), s.accepted[0])
	if err != nil {
		t.Fatal(err)
	}
	args := jobs.PublishArgs{DeliveryGUID: d.GUID, InstallationID: a.sc.InstallationID, RepositoryID: a.sc.Repository.ID,
		RunID: s.run.ID, Attempt: max(s.run.RunAttempt, 1)}
	if err := a.st.Enqueue(context.Background(), store.Job{Args: args}); err != nil {
		t.Fatal(err)
	}
	a.forgeOtherRun(t, s)
}

// forgeOtherRun sends a forged delivery of another failed default-branch
// run: it must be rejected, and that run never diagnosed.
func (a *sweepApp) forgeOtherRun(t testing.TB, s *flowState) {
	t.Helper()
	if s.forgedRun != 0 {
		return
	}
	other, _ := a.failedRun(t, "push", a.sc.TriggerRunID)
	s.forgedRun = other.ID
	a.forge(t, s, a.runEvent(t, other.ID))
}

// accept delivers an event, which must be answered 202.
func (a *sweepApp) accept(t testing.TB, s *flowState, ev githubtest.Event) {
	t.Helper()
	d := a.deliver(t, ev)
	if d.Status != http.StatusAccepted {
		t.Fatalf("%s delivery answered %d: %s", ev.Name, d.Status, d.Response)
	}
	s.accepted = append(s.accepted, d.GUID)
}

// forge sends an event with a signature made with the wrong secret; it
// must be answered 401.
func (a *sweepApp) forge(t testing.TB, s *flowState, ev githubtest.Event) {
	t.Helper()
	guid := fmt.Sprintf("forged-%d", len(s.rejected)+1)
	req, err := http.NewRequest(http.MethodPost, a.hook.URL+"/webhooks/github", bytes.NewReader(ev.Payload))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", ev.Name)
	req.Header.Set("X-GitHub-Delivery", guid)
	req.Header.Set("X-Hub-Signature-256", signWith("not-the-secret", ev.Payload))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("forged %s delivery answered %d, want 401", ev.Name, resp.StatusCode)
	}
	s.rejected = append(s.rejected, guid)
}

// failedRun returns a failed run of the scenario other than skip, of the
// event wanted, with a pull request of the repository when event is
// pull_request.
func (a *sweepApp) failedRun(t testing.TB, event string, skip int64) (gha.Run, int) {
	t.Helper()
	for _, r := range a.sc.Runs {
		if r.ID == skip || r.Event != event || r.Conclusion != "failure" {
			continue
		}
		if event != "pull_request" {
			return r, 0
		}
		for _, pr := range r.PullRequests {
			if pr.Base.Repo.ID == a.sc.Repository.ID {
				return r, pr.Number
			}
		}
	}
	t.Fatalf("the scenario has no other failed %s run", event)
	return gha.Run{}, 0
}

func (a *sweepApp) runEvent(t testing.TB, runID int64) githubtest.Event {
	t.Helper()
	ev, err := a.sim.WorkflowRunEvent(a.repo, runID)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func startDefaultBranch(t testing.TB, a *sweepApp, s *flowState) {
	trigger, ok := a.sc.Run(a.sc.TriggerRunID)
	if !ok {
		t.Fatal("the scenario has no trigger run")
	}
	s.run = trigger
	a.forgeOtherRun(t, s)
	a.accept(t, s, a.runEvent(t, trigger.ID))
}

func expectDefaultBranch(t testing.TB, a *sweepApp, s *flowState) {
	t.Helper()
	a.expectDiagnosed(t, s.accepted[0], s.run)
	a.expectFixPull(t)
}

func startPullRequest(t testing.TB, a *sweepApp, s *flowState) {
	run, number := a.failedRun(t, "pull_request", 0)
	s.run, s.number = run, number
	a.forgeOtherRun(t, s)
	a.accept(t, s, a.runEvent(t, run.ID))
}

func expectPullRequest(t testing.TB, a *sweepApp, s *flowState) {
	t.Helper()
	a.expectDiagnosed(t, s.accepted[0], s.run)
	if n := len(a.assessments(s.number)); n != 1 {
		t.Errorf("%d assessment comments on #%d, want 1", n, s.number)
	}
	if pulls := a.botPulls(); len(pulls) != 0 {
		t.Errorf("a pull-request failure opened %d fix pull requests", len(pulls))
	}
}

// setupMention publishes the snapshot's pull-request diagnosis (its sticky
// comment) and gives a user write access.
func setupMention(t testing.TB, a *sweepApp, s *flowState) {
	startPublish(t, a, s)
	a.settle(t, sweepSettle)
	expectPullRequest(t, a, s)
	if err := a.sim.SetPermission(a.repo, "maintainer", "write"); err != nil {
		t.Fatal(err)
	}
}

func startMention(t testing.TB, a *sweepApp, s *flowState) {
	forged, err := a.sim.AddIssueComment(a.repo, s.number, "maintainer", "@polylane rerun")
	if err != nil {
		t.Fatal(err)
	}
	s.forgedComment = forged
	ev, err := a.sim.IssueCommentEvent("created", a.repo, forged, "")
	if err != nil {
		t.Fatal(err)
	}
	a.forge(t, s, ev)
	id, err := a.sim.AddIssueComment(a.repo, s.number, "maintainer", "@polylane fix")
	if err != nil {
		t.Fatal(err)
	}
	s.comment = id
	if ev, err = a.sim.IssueCommentEvent("created", a.repo, id, ""); err != nil {
		t.Fatal(err)
	}
	a.accept(t, s, ev)
}

func expectMention(t testing.TB, a *sweepApp, s *flowState) {
	t.Helper()
	a.expectDelivery(t, s.accepted[len(s.accepted)-1], store.DeliveryDone)
	replies := a.repliesTo(s.number, s.comment)
	if len(replies) != 1 {
		t.Fatalf("%d replies to the command, want 1", len(replies))
	}
	if n := len(a.assessments(s.number)); n != 1 {
		t.Errorf("%d assessment comments on #%d, want 1", n, s.number)
	}
	pr := a.expectFixPull(t)
	// A retry after the pull request was opened finds it open and says so.
	opened := fmt.Sprintf("Opened the fix pull request #%d ", pr)
	current := fmt.Sprintf("The fix pull request #%d for the failure class", pr)
	if body := replies[0].Body; !strings.Contains(body, opened) && !strings.Contains(body, current) {
		t.Errorf("reply to @polylane fix does not name #%d:\n%s", pr, body)
	}
	eyes := 0
	for _, c := range a.sim.Comments(a.repo, s.number) {
		for _, re := range c.Reactions {
			if c.ID == s.comment && re.Content == "eyes" && re.User == a.bot() {
				eyes++
			}
		}
	}
	if eyes != 1 {
		t.Errorf("%d 👀 reactions on the command, want 1", eyes)
	}
}

// expectDiagnosed checks that a workflow_run delivery ended done with its
// diagnosis stored.
func (a *sweepApp) expectDiagnosed(t testing.TB, guid string, run gha.Run) {
	t.Helper()
	a.expectDelivery(t, guid, store.DeliveryDone)
	key := store.RunKey{RepositoryID: a.sc.Repository.ID, RunID: run.ID, Attempt: max(run.RunAttempt, 1)}
	if _, err := a.st.GetDiagnosis(context.Background(), key); err != nil {
		t.Errorf("diagnosis of run %d: %v", run.ID, err)
	}
}

func (a *sweepApp) expectDelivery(t testing.TB, guid, state string) {
	t.Helper()
	d, err := a.st.GetDelivery(context.Background(), guid)
	if err != nil {
		t.Fatalf("delivery %s: %v", guid, err)
	}
	if d.State != state {
		t.Errorf("delivery %s is %s (%q), want %s", guid, d.State, d.Error, state)
	}
}

// expectFixPull checks one open fix pull request with one fix branch and
// one assessment comment, and returns its number.
func (a *sweepApp) expectFixPull(t testing.TB) int {
	t.Helper()
	pulls := a.botPulls()
	if len(pulls) != 1 {
		t.Fatalf("%d fix pull requests, want 1", len(pulls))
	}
	pr := pulls[0]
	if !strings.HasPrefix(pr.Head, "polylane/fix-") || pr.State != "open" || pr.Base != a.sc.Repository.DefaultBranch {
		t.Errorf("fix pull request %+v", pr)
	}
	if n := len(a.assessments(pr.Number)); n != 1 {
		t.Errorf("%d assessment comments on the fix pull request #%d, want 1", n, pr.Number)
	}
	if b := a.fixBranches(); len(b) != 1 || b[0] != "refs/heads/"+pr.Head {
		t.Errorf("fix branches %v, want the pull request's %s", b, pr.Head)
	}
	return pr.Number
}

func (a *sweepApp) bot() string { return a.sim.AppSlug() + "[bot]" }

// botPulls lists the pull requests the app opened.
func (a *sweepApp) botPulls() []githubtest.PullRequest {
	var out []githubtest.PullRequest
	for _, p := range a.sim.PullRequests(a.repo) {
		if p.User == a.bot() {
			out = append(out, p)
		}
	}
	return out
}

// assessments lists the app's assessment comments on an issue or pull
// request.
func (a *sweepApp) assessments(number int) []githubtest.IssueComment {
	var out []githubtest.IssueComment
	for _, c := range a.sim.Comments(a.repo, number) {
		if c.User == a.bot() && strings.HasPrefix(c.Body, "<!-- polylane:assessment") {
			out = append(out, c)
		}
	}
	return out
}

// repliesTo lists the app's replies to one comment's commands.
func (a *sweepApp) repliesTo(number int, commentID int64) []githubtest.IssueComment {
	var out []githubtest.IssueComment
	for _, c := range a.sim.Comments(a.repo, number) {
		m, ok := report.ParseMarker(c.Body)
		if c.User == a.bot() && ok && m.Kind == commentReply && m.Run == commentID {
			out = append(out, c)
		}
	}
	return out
}

// fixBranches lists the branches under polylane/.
func (a *sweepApp) fixBranches() []string {
	var out []string
	for ref := range a.sim.Refs(a.repo) {
		if strings.HasPrefix(ref, "refs/heads/polylane/") {
			out = append(out, ref)
		}
	}
	return out
}

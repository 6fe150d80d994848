package worker

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polylane/polylane/server/jobs"

	"github.com/polylane/polylane/analysis/gha"

	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/server/githubtest"
	"github.com/polylane/polylane/server/webhook"
	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/store/storetest"
)

// conversationScenario is an in-repository scenario with a failed pull
// request run and a harness patch.
var conversationScenario = filepath.Join("..", "..", "causal", "diagnosis", "testdata", "scenarios", "rs-go-gotestsum-flake")

// prFailure picks a failed pull_request run that lists its pull request.
func (r *rig) prFailure(t *testing.T) (gha.Run, int) {
	t.Helper()
	for _, run := range r.sc.Runs {
		if run.Event == "pull_request" && run.Conclusion == "failure" {
			for _, pr := range run.PullRequests {
				if pr.Base.Repo.ID == r.sc.Repository.ID {
					return run, pr.Number
				}
			}
		}
	}
	t.Fatal("the scenario has no failed pull-request run")
	return gha.Run{}, 0
}

// diagnoseAndPublish works the diagnose and publish jobs of a run.
func (r *rig) diagnoseAndPublish(t *testing.T, runID int64) jobs.DiagnoseArgs {
	t.Helper()
	ctx := testCtx(t)
	a := r.deliver(t, runID)
	if err := r.w.diagnose(ctx, a); err != nil {
		t.Fatal(err)
	}
	pa := jobs.PublishArgs(a)
	if err := r.w.publish(ctx, pa); err != nil {
		t.Fatal(err)
	}
	return a
}

// say posts a comment as login, delivers its issue_comment event through
// the webhook and returns the mention job it queues.
func (r *rig) say(t *testing.T, number int, login, body string) jobs.MentionArgs {
	t.Helper()
	id, err := r.sim.AddIssueComment(r.repo, number, login, body)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := r.sim.IssueCommentEvent("created", r.repo, id, "")
	if err != nil {
		t.Fatal(err)
	}
	guid := fmt.Sprintf("comment-%d", id)
	r.post(t, ev, guid)
	return jobs.MentionArgs{DeliveryGUID: guid, InstallationID: r.sc.InstallationID, RepositoryID: r.sc.Repository.ID,
		Number: number, PullRequest: true, CommentID: id, Author: login, Commands: webhook.ParseMentions(body, []string{"polylane"})}
}

// post delivers an event through the webhook handler, which must accept it.
func (r *rig) post(t *testing.T, ev githubtest.Event, guid string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/webhooks/github", strings.NewReader(string(ev.Payload)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(webhook.HeaderEvent, ev.Name)
	req.Header.Set(webhook.HeaderDelivery, guid)
	req.Header.Set(webhook.HeaderSignature, r.sim.Sign(ev.Payload))
	rec := httptest.NewRecorder()
	r.hook.ServeHTTP(rec, req)
	if rec.Code != http.StatusAccepted {
		t.Fatalf("%s delivery answered %d: %s", ev.Name, rec.Code, rec.Body.String())
	}
}

// replies lists Polylane's replies to commands on an issue.
func (r *rig) replies(number int) []githubtest.IssueComment {
	var out []githubtest.IssueComment
	for _, c := range r.botComments(number) {
		if strings.HasPrefix(c.Body, "<!-- polylane:reply ") {
			out = append(out, c)
		}
	}
	return out
}

// commit writes files onto a branch as a new commit and returns it.
func (r *rig) commit(t *testing.T, branch string, files map[string]string) string {
	t.Helper()
	repo, sha := r.commitOn(t, branch, files)
	if err := repo.MoveBranch(testCtx(t), branch, sha, false); err != nil {
		t.Fatal(err)
	}
	return sha
}

// commitOn makes a commit on top of a branch's head with files written,
// without moving the branch, and returns it.
func (r *rig) commitOn(t *testing.T, branch string, files map[string]string) (*ghclient.Repo, string) {
	t.Helper()
	ctx := testCtx(t)
	repo, err := r.gh.Repo(r.sc.InstallationID, r.repo)
	if err != nil {
		t.Fatal(err)
	}
	head, err := repo.BranchHead(ctx, branch)
	if err != nil {
		t.Fatal(err)
	}
	parent, err := repo.GetCommit(ctx, head)
	if err != nil {
		t.Fatal(err)
	}
	var tf []ghclient.TreeFile
	for p, content := range files {
		tf = append(tf, ghclient.TreeFile{Path: p, Content: []byte(content)})
	}
	tree, err := repo.CreateTree(ctx, parent.Tree, tf)
	if err != nil {
		t.Fatal(err)
	}
	sha, err := repo.CreateCommit(ctx, "test commit", tree, []string{head})
	if err != nil {
		t.Fatal(err)
	}
	return repo, sha
}

// TestCommands answers every command on a pull request with a diagnosis,
// once per comment, and checks what each changed.
func TestCommands(t *testing.T) {
	for _, b := range storetest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			r := newRig(t, b, conversationScenario)
			ctx := testCtx(t)
			number, doc := r.diagnosedPR(t)
			if err := r.sim.SetPermission(r.repo, "writer", "write"); err != nil {
				t.Fatal(err)
			}
			if err := r.sim.SetPermission(r.repo, "reader", "read"); err != nil {
				t.Fatal(err)
			}
			work := func(a jobs.MentionArgs) string {
				t.Helper()
				before := len(r.replies(number))
				if err := r.w.mention(ctx, a); err != nil {
					t.Fatalf("%v: %v", a.Commands, err)
				}
				got := r.replies(number)
				if len(got) != before+len(a.Commands) {
					t.Fatalf("%v: %d new replies, want %d", a.Commands, len(got)-before, len(a.Commands))
				}
				if !strings.Contains(got[len(got)-1].Body, "\n@"+a.Author) {
					t.Errorf("reply does not address %s", a.Author)
				}
				d, err := r.st.GetDelivery(ctx, a.DeliveryGUID)
				if err != nil || d.State != store.DeliveryDone {
					t.Errorf("delivery of %v: %v %s %q", a.Commands, err, d.State, d.Error)
				}
				return got[len(got)-1].Body
			}

			help := r.say(t, number, "reader", "@polylane help")
			if body := work(help); !strings.Contains(body, "`@polylane why <question>`") {
				t.Errorf("help reply:\n%s", body)
			}
			var eyes bool
			for _, c := range r.sim.Comments(r.repo, number) {
				if c.ID == help.CommentID {
					for _, re := range c.Reactions {
						eyes = eyes || re.Content == "eyes" && re.User == r.sim.AppSlug()+"[bot]"
					}
				}
			}
			if !eyes {
				t.Error("the comment got no 👀 reaction")
			}
			// The same job again (a retry, a redelivery) answers nothing twice.
			if err := r.w.mention(ctx, help); err != nil || len(r.replies(number)) != 1 {
				t.Fatalf("second run of the same job: %v, %d replies", err, len(r.replies(number)))
			}
			if body := work(r.say(t, number, "reader", "@polylane dance")); !strings.Contains(body, "`dance` is not a command") {
				t.Errorf("unknown command reply:\n%s", body)
			}
			explained := work(r.say(t, number, "reader", "@polylane explain"))
			for _, e := range doc.Chain.Evidence {
				if e.ID != "" && !strings.Contains(explained, "**"+e.ID+"**") {
					t.Errorf("explain lacks evidence %s", e.ID)
				}
			}
			if why := work(r.say(t, number, "reader", "@polylane why did this fail?")); !strings.Contains(why, "Answered from the diagnosis") {
				t.Errorf("why reply:\n%s", why)
			}

			// A read-only commenter is refused, and nothing changes.
			class := doc.TriggerClass
			r.sim.ResetRecording()
			for _, cmd := range []string{"mute " + class + " noisy", "rerun", "fix", "unmute " + class} {
				body := work(r.say(t, number, "reader", "@polylane "+cmd))
				if !strings.Contains(body, "needs write access") || !strings.Contains(body, "`read`") {
					t.Errorf("%s by a reader:\n%s", cmd, body)
				}
			}
			for _, w := range r.sim.Writes() {
				if !strings.HasSuffix(w.Path, "/comments") && !strings.HasSuffix(w.Path, "/reactions") {
					t.Errorf("a refused command wrote %s %s", w.Method, w.Path)
				}
			}
			if c, _ := r.st.GetClass(ctx, r.sc.Repository.ID, class); c.Muted {
				t.Error("a reader muted the class")
			}
			if len(r.botPulls()) != 0 {
				t.Error("a reader opened a fix pull request")
			}

			// A writer mutes and unmutes; a second mute job of the same comment is not repeated.
			mute := r.say(t, number, "writer", "@polylane mute "+class+" upstream outage")
			if body := work(mute); !strings.Contains(body, "Muted the failure class") {
				t.Errorf("mute reply:\n%s", body)
			}
			if c, _ := r.st.GetClass(ctx, r.sc.Repository.ID, class); !c.Muted || c.MuteReason != "upstream outage" {
				t.Errorf("class after mute: muted %v, reason %q", c.Muted, c.MuteReason)
			}
			work(r.say(t, number, "writer", "@polylane unmute "+class))
			if c, _ := r.st.GetClass(ctx, r.sc.Repository.ID, class); c.Muted {
				t.Error("class still muted after unmute")
			}
			if err := r.w.mention(ctx, mute); err != nil {
				t.Fatal(err)
			}
			if c, _ := r.st.GetClass(ctx, r.sc.Repository.ID, class); c.Muted {
				t.Error("the old mute comment muted the class again")
			}
			if body := work(r.say(t, number, "writer", "@polylane mute no-such-class")); !strings.Contains(body, "no failure class") {
				t.Errorf("mute of an unknown class:\n%s", body)
			}

			// rerun: one re-run of the failed jobs, not repeated by the same comment's retry.
			rerun := r.say(t, number, "writer", "@polylane rerun")
			r.sim.ResetRecording()
			if body := work(rerun); !strings.Contains(body, "Re-running the failed jobs") {
				t.Errorf("rerun reply:\n%s", body)
			}
			if err := r.w.mention(ctx, rerun); err != nil {
				t.Fatal(err)
			}
			reruns := 0
			for _, w := range r.sim.Writes() {
				if strings.HasSuffix(w.Path, "/rerun-failed-jobs") {
					reruns++
				}
			}
			if reruns != 1 {
				t.Errorf("%d re-runs requested, want 1", reruns)
			}

			// fix: the fix pull request of the class, opened on request.
			if body := work(r.say(t, number, "writer", "@polylane fix")); !strings.Contains(body, "Opened the fix pull request #") {
				t.Errorf("fix reply:\n%s", body)
			}
			if pulls := r.botPulls(); len(pulls) != 1 || !strings.HasPrefix(pulls[0].Head, "polylane/fix-") {
				t.Fatalf("fix pull requests after @polylane fix: %+v", pulls)
			}
			if body := work(r.say(t, number, "writer", "@polylane fix")); !strings.Contains(body, "is up to date") || len(r.botPulls()) != 1 {
				t.Errorf("second fix: %d pull requests, reply:\n%s", len(r.botPulls()), body)
			}
		})
	}
}

// TestCommandWithoutDiagnosis answers on a pull request Polylane has not
// diagnosed, and ignores its own comments.
func TestCommandWithoutDiagnosis(t *testing.T) {
	r := newRig(t, storetest.Backends()[0], conversationScenario)
	ctx := testCtx(t)
	_, number := r.prFailure(t)
	if err := r.sim.SetPermission(r.repo, "writer", "admin"); err != nil {
		t.Fatal(err)
	}
	a := r.say(t, number, "writer", "@polylane explain\n@polylane fix\n@polylane why now?")
	if err := r.w.mention(ctx, a); err != nil {
		t.Fatal(err)
	}
	replies := r.replies(number)
	if len(replies) != 1 {
		t.Fatalf("%d replies, want 1 for the comment's 3 commands", len(replies))
	}
	if n := strings.Count(replies[0].Body, "There is no Polylane diagnosis for this pull request yet"); n != 3 {
		t.Errorf("the reply answers %d commands, want 3:\n%s", n, replies[0].Body)
	}
	self := a
	self.Author = r.sim.AppSlug() + "[bot]"
	self.CommentID = replies[0].ID
	if err := r.w.mention(ctx, self); err != nil || len(r.replies(number)) != 1 {
		t.Fatalf("Polylane answered itself: %v", err)
	}
}

// TestLostReply finds a reply whose recording was lost (the job died after
// posting it) instead of posting a second one.
func TestLostReply(t *testing.T) {
	r := newRig(t, storetest.Backends()[0], conversationScenario)
	ctx := testCtx(t)
	_, number := r.prFailure(t)
	a := r.say(t, number, "octocat", "@polylane help")
	if err := r.w.mention(ctx, a); err != nil {
		t.Fatal(err)
	}
	// Forget the record, as if the job had died after posting.
	rec, err := r.st.GetMention(ctx, a.RepositoryID, a.CommentID, "help")
	if err != nil || rec.ReplyID == 0 {
		t.Fatalf("mention record %+v %v", rec, err)
	}
	rec.State = store.MentionActing
	if err := r.st.PutMention(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if err := r.w.mention(ctx, a); err != nil {
		t.Fatal(err)
	}
	if n := len(r.replies(number)); n != 1 {
		t.Fatalf("%d replies after a retry with a lost record, want 1", n)
	}
	if rec, _ := r.st.GetMention(ctx, a.RepositoryID, a.CommentID, "help"); rec.State != store.MentionDone {
		t.Fatalf("mention %+v", rec)
	}
}

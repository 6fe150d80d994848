package worker

import (
	"fmt"
	"strings"
	"testing"

	"github.com/polylane/polylane/server/jobs"

	"github.com/polylane/polylane/causal/diagnosis"
	"github.com/polylane/polylane/server/githubtest"
	"github.com/polylane/polylane/server/report"
	"github.com/polylane/polylane/server/webhook"
	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/store/storetest"
)

// apiCalls counts the simulator's REST calls since its last reset.
func (r *rig) apiCalls() int {
	n := 0
	for _, c := range r.sim.Calls() {
		if c.Kind == githubtest.KindAPI {
			n++
		}
	}
	return n
}

// edit changes a comment's text, delivers its issue_comment "edited"
// event through the webhook and returns the mention job it would queue.
func (r *rig) edit(t *testing.T, a jobs.MentionArgs, body string) jobs.MentionArgs {
	t.Helper()
	if err := r.sim.EditIssueComment(r.repo, a.CommentID, body); err != nil {
		t.Fatal(err)
	}
	ev, err := r.sim.IssueCommentEvent("edited", r.repo, a.CommentID, a.Author)
	if err != nil {
		t.Fatal(err)
	}
	guid := fmt.Sprintf("edit-%d-%d", a.CommentID, len(body))
	r.post(t, ev, guid)
	a.DeliveryGUID, a.Commands = guid, webhook.ParseMentions(body, []string{"polylane"})
	return a
}

// repliesTo lists Polylane's replies to one comment.
func (r *rig) repliesTo(number int, commentID int64) []githubtest.IssueComment {
	var out []githubtest.IssueComment
	for _, c := range r.replies(number) {
		if m, ok := report.ParseMarker(c.Body); ok && m.Run == commentID {
			out = append(out, c)
		}
	}
	return out
}

// diagnosedPR diagnoses and publishes the scenario's failed pull-request
// run and returns the pull request and the diagnosis.
func (r *rig) diagnosedPR(t *testing.T) (int, *diagnosis.Diagnosis) {
	t.Helper()
	run, number := r.prFailure(t)
	r.diagnoseAndPublish(t, run.ID)
	_, doc := r.storedDiagnosis(t, run.ID, run.RunAttempt)
	return number, doc
}

// TestCommandFloodGetsOneReply: a comment holding five commands from a user
// without write access gets one reply that answers all five, asking
// GitHub for the permission once; editing the comment without changing its
// commands answers nothing again, and an edit that changes a command answers
// only that one.
func TestCommandFloodGetsOneReply(t *testing.T) {
	for _, b := range storetest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			r := newRig(t, b, conversationScenario)
			ctx := testCtx(t)
			number, doc := r.diagnosedPR(t)
			body := "@polylane fix\n@polylane rerun\n@polylane mute " + doc.TriggerClass + " noisy\n@polylane help\n@polylane dance"
			a := r.say(t, number, "mallory", body)
			r.sim.ResetRecording()
			if err := r.w.mention(ctx, a); err != nil {
				t.Fatal(err)
			}
			replies := r.replies(number)
			if len(replies) != 1 {
				t.Fatalf("%d replies to one comment of five commands, want 1", len(replies))
			}
			reply := replies[0].Body
			if n := strings.Count(reply, "so it needs write access"); n != 3 {
				t.Errorf("the reply refuses %d commands, want fix, rerun and mute:\n%s", n, reply)
			}
			for _, want := range []string{"`@polylane why <question>`", "`dance` is not a command"} {
				if !strings.Contains(reply, want) {
					t.Errorf("the reply lacks %q:\n%s", want, reply)
				}
			}
			permissions := 0
			for _, c := range r.sim.Calls() {
				if strings.HasSuffix(c.Path, "/permission") {
					permissions++
				}
			}
			if calls := r.apiCalls(); calls > 4 || permissions != 1 {
				t.Errorf("%d API calls (%d permission checks) for one comment, want at most 4 (reaction, permission, listing, reply) and 1",
					calls, permissions)
			}

			// The author edits the comment without changing its commands.
			r.sim.ResetRecording()
			same := r.edit(t, a, body+"\n\nplease?")
			if err := r.w.mention(ctx, same); err != nil {
				t.Fatal(err)
			}
			if n := len(r.replies(number)); n != 1 || r.apiCalls() != 0 {
				t.Fatalf("an edit with the same commands: %d replies, %d API calls; want 1 and 0", n, r.apiCalls())
			}
			// An edit that changes a command: one reply, for the new command only.
			more := r.edit(t, a, strings.Replace(body, "@polylane dance", "@polylane explain", 1))
			if err := r.w.mention(ctx, more); err != nil {
				t.Fatal(err)
			}
			replies = r.replies(number)
			if len(replies) != 2 {
				t.Fatalf("%d replies after an edit that changes a command, want 2", len(replies))
			}
			if last := replies[1].Body; strings.Contains(last, "so it needs write access") || strings.Contains(last, "dance") || !strings.Contains(last, "**E1**") {
				t.Errorf("the reply to the edit repeats earlier answers or misses the new one:\n%s", last)
			}
			if d, err := r.st.GetDelivery(ctx, more.DeliveryGUID); err != nil || d.State != store.DeliveryDone {
				t.Errorf("delivery of the edit: %v %+v", err, d)
			}
		})
	}
}

// TestRepliesToNonWritersAreLimited: a user without write access gets at
// most DefaultReplyLimit replies an hour in a repository; past it Polylane
// stays silent and makes no GitHub call for their comments. A user with
// write access is not limited.
func TestRepliesToNonWritersAreLimited(t *testing.T) {
	for _, b := range storetest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			r := newRig(t, b, conversationScenario)
			ctx := testCtx(t)
			_, number := r.prFailure(t)
			if err := r.sim.SetPermission(r.repo, "writer", "write"); err != nil {
				t.Fatal(err)
			}
			for _, who := range []string{"mallory", "writer"} {
				answered := 0
				for i := range DefaultReplyLimit + 3 {
					a := r.say(t, number, who, fmt.Sprintf("@polylane help %d", i))
					r.sim.ResetRecording()
					if err := r.w.mention(ctx, a); err != nil {
						t.Fatal(err)
					}
					got := len(r.repliesTo(number, a.CommentID))
					answered += got
					if who == "mallory" && i >= DefaultReplyLimit && (got != 0 || r.apiCalls() != 0) {
						t.Fatalf("comment %d of a reader: %d replies, %d API calls; want silence past the limit", i+1, got, r.apiCalls())
					}
				}
				want := DefaultReplyLimit
				if who == "writer" {
					want += 3
				}
				if answered != want {
					t.Errorf("%s: %d comments answered, want %d", who, answered, want)
				}
			}
		})
	}
}

package worker

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/polylane/polylane/server/jobs"

	"github.com/rs/zerolog"

	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/server/report"
	"github.com/polylane/polylane/store"
)

// commentReply is the marker kind of Polylane's answer to a command.
const commentReply = "reply"

// conversation is what answering the commands of one comment needs.
type conversation struct {
	a    jobs.MentionArgs
	repo store.Repository
	gh   *ghclient.Repo
	bot  string
	// replies are Polylane's replies already on the issue, by marker
	// class (the command's digest); listed once per job.
	replies map[string]int64
	// permission is the author's permission, asked once per job.
	permission string
	// pub is the latest diagnosis of the pull request, loaded on first use;
	// noDiagnosis is set when there is none.
	pub         *published
	noDiagnosis bool
}

// DefaultReplyLimit is how many replies an hour Polylane posts, in one
// repository, to the comments of one user without write access. Past it,
// that user's commands are not answered (and cost no GitHub call) until
// the hour has passed; the worker logs it at debug level.
const DefaultReplyLimit = 10

// replyLimitWindow is the period DefaultReplyLimit counts over.
const replyLimitWindow = time.Hour

// mention works a mention job: it acknowledges the comment with 👀 and
// answers all its commands that were not answered before in one reply,
// asking GitHub for the author's permission once. A command is answered
// once per comment: the store records it, and a retried job first looks
// for the reply it may already have posted. So an edited comment is
// answered only for the commands it did not hold before, and an edit that
// adds none is not answered at all. Only the parsed command text decides
// what happens; no text a model writes is ever acted on.
func (w *Worker) mention(ctx context.Context, a jobs.MentionArgs) error {
	repo, err := w.st.GetRepository(ctx, a.RepositoryID)
	if err != nil {
		return err
	}
	if repo.Removed {
		return fail("repository %s was removed from the installation", repo.FullName)
	}
	gh, err := w.gh.Repo(a.InstallationID, repo.FullName)
	if err != nil {
		return permanent{err}
	}
	bot, err := w.gh.BotLogin(ctx)
	if err != nil {
		return err
	}
	if strings.EqualFold(a.Author, bot) {
		return w.st.SetDeliveryState(ctx, a.DeliveryGUID, store.DeliveryIgnored, "comment by Polylane itself")
	}
	pending, err := w.pendingCommands(ctx, a)
	if err != nil {
		return err
	}
	if len(pending) == 0 {
		// A retried job, or an edit that kept the commands: nothing to say.
		zerolog.Ctx(ctx).Debug().Int64("comment_id", a.CommentID).Msg("every command of the comment was answered before")
		return w.st.SetDeliveryState(ctx, a.DeliveryGUID, store.DeliveryDone, "")
	}
	if over, err := w.overReplyLimit(ctx, a); err != nil || over {
		if err == nil {
			err = w.st.SetDeliveryState(ctx, a.DeliveryGUID, store.DeliveryIgnored, "reply limit of the author reached")
		}
		return err
	}
	switch err := gh.ReactToComment(ctx, a.CommentID, "eyes"); {
	case errors.Is(err, ghclient.ErrNotFound):
		return w.st.SetDeliveryState(ctx, a.DeliveryGUID, store.DeliveryIgnored, "the comment was deleted")
	case err != nil:
		return err
	}
	c := &conversation{a: a, repo: repo, gh: gh, bot: bot}
	if _, err := w.mayWrite(ctx, c); err != nil {
		return err
	}
	if err := w.answerAll(ctx, c, pending); err != nil {
		return err
	}
	return w.st.SetDeliveryState(ctx, a.DeliveryGUID, store.DeliveryDone, "")
}

// pendingCommands lists the comment's commands not answered before, once
// each.
func (w *Worker) pendingCommands(ctx context.Context, a jobs.MentionArgs) ([]jobs.Command, error) {
	var out []jobs.Command
	seen := map[string]bool{}
	for _, cmd := range a.Commands {
		key := cmd.Key()
		if seen[key] {
			continue
		}
		seen[key] = true
		rec, err := w.st.GetMention(ctx, a.RepositoryID, a.CommentID, key)
		switch {
		case err == nil && rec.State == store.MentionDone:
			continue
		case err != nil && !isNotFound(err):
			return nil, err
		}
		out = append(out, cmd)
	}
	return out, nil
}

// overReplyLimit reports whether the comment's author was given
// DefaultReplyLimit replies without write access in the last hour; it
// logs the silence at debug level.
func (w *Worker) overReplyLimit(ctx context.Context, a jobs.MentionArgs) (bool, error) {
	n, err := w.st.CountUnprivilegedReplies(ctx, a.RepositoryID, a.Author, time.Now().Add(-replyLimitWindow))
	if err != nil || n < DefaultReplyLimit {
		return false, err
	}
	zerolog.Ctx(ctx).Debug().Str("author", a.Author).Int64("comment_id", a.CommentID).Int("replies", n).
		Msg("reply limit reached for an author without write access: comment not answered")
	return true, nil
}

// answerAll answers the pending commands of the comment in one reply.
func (w *Worker) answerAll(ctx context.Context, c *conversation, pending []jobs.Command) error {
	keys := make([]string, len(pending))
	recs := make([]store.Mention, len(pending))
	for i, cmd := range pending {
		keys[i] = cmd.Key()
		rec, err := w.st.GetMention(ctx, c.a.RepositoryID, c.a.CommentID, keys[i])
		if err != nil && !isNotFound(err) {
			return err
		}
		recs[i] = store.Mention{RepositoryID: c.a.RepositoryID, CommentID: c.a.CommentID, Command: keys[i], Number: c.a.Number,
			Author: c.a.Author, State: store.MentionActing, CreatedAt: rec.CreatedAt, Unprivileged: !ghclient.CanWrite(c.permission)}
	}
	digest := commandDigest(strings.Join(keys, "\n"))
	id, err := w.existingReply(ctx, c, digest)
	if err != nil {
		return err
	}
	outcomes := make([]string, len(pending))
	if id == 0 {
		texts := make([]string, len(pending))
		for i, cmd := range pending {
			if texts[i], outcomes[i], err = w.carryOut(ctx, c, cmd, &recs[i]); err != nil {
				return err
			}
		}
		m := report.Marker{Kind: commentReply, Repo: fmt.Sprint(c.repo.ID), Class: digest, Run: c.a.CommentID}
		reply, err := c.gh.CreateComment(ctx, c.a.Number, replyBody(m, c, pending, texts))
		if err != nil {
			return err
		}
		id = reply.ID
		zerolog.Ctx(ctx).Info().Strs("commands", keys).Int64("comment_id", c.a.CommentID).Int64("reply_id", id).
			Strs("outcomes", outcomes).Msg("commands answered")
	}
	for i := range recs {
		recs[i].State, recs[i].ReplyID, recs[i].Outcome = store.MentionDone, id, cmp.Or(outcomes[i], "answered earlier")
		if err := w.st.PutMention(ctx, recs[i]); err != nil {
			return err
		}
	}
	return nil
}

// replyBody is the one reply to a comment's commands: the answer alone for
// one command, each answer under its command for several.
func replyBody(m report.Marker, c *conversation, cmds []jobs.Command, texts []string) string {
	text := texts[0]
	if len(cmds) > 1 {
		var b strings.Builder
		for i, cmd := range cmds {
			fmt.Fprintf(&b, "**`@%s %s`**\n\n%s\n\n", handleOf(c.bot), clipText(inertCode(cmd.Key()), 100), strings.TrimRight(texts[i], "\n"))
		}
		text = "here are the answers to the " + strconv.Itoa(len(cmds)) + " commands of your comment.\n\n" + strings.TrimRight(b.String(), "\n") + "\n"
	}
	body := m.String() + "\n" + greeting(c.a.Author, text) + text
	if len(body) >= report.MaxChars {
		body = m.String() + "\n" + greeting(c.a.Author, "") + "The answer is longer than a GitHub comment can hold; open the diagnosis on the dashboard instead.\n"
	}
	return body
}

// carryOut does what a command asks and returns the reply's text and a
// short outcome for the store. Mutating commands check the author's
// permission first and, before acting, record that they are acting, so
// that a retry checks GitHub before acting again.
func (w *Worker) carryOut(ctx context.Context, c *conversation, cmd jobs.Command, rec *store.Mention) (string, string, error) {
	spec, known := commands[cmd.Name]
	if !known {
		return unknownCommand(cmd.Name) + usage(handleOf(c.bot)), "usage", nil
	}
	if spec.mutates {
		ok, err := w.mayWrite(ctx, c)
		if err != nil {
			return "", "", err
		}
		if !ok {
			return refusal(cmd.Name, c.permission), "refused: " + c.permission, nil
		}
		if err := w.st.PutMention(ctx, *rec); err != nil {
			return "", "", err
		}
	}
	text, outcome, err := spec.run(w, ctx, c, cmd.Args)
	if accepted, refused := ghclient.MissingPermission(err); refused {
		zerolog.Ctx(ctx).Warn().Err(err).Str("command", cmd.Name).Msg("GitHub refused the command for a missing permission")
		// The next call mints a token with what the installation holds
		// then, should an owner grant the permission meanwhile.
		w.gh.ForgetInstallation(c.a.InstallationID)
		return w.lacksPermission(ctx, c, cmd.Name, accepted), "app lacks permission: " + accepted, nil
	}
	return text, outcome, err
}

// mayWrite reports whether the comment's author may push to the repository,
// asking GitHub once per job.
func (w *Worker) mayWrite(ctx context.Context, c *conversation) (bool, error) {
	if c.permission == "" {
		level, err := c.gh.Permission(ctx, c.a.Author)
		if err != nil {
			return false, err
		}
		c.permission = level
	}
	return ghclient.CanWrite(c.permission), nil
}

// existingReply finds a reply to this command that a lost response kept
// from being recorded: a comment by the bot whose marker names the comment
// and the command.
func (w *Worker) existingReply(ctx context.Context, c *conversation, digest string) (int64, error) {
	if c.replies == nil {
		list, err := c.gh.ListComments(ctx, c.a.Number)
		if err != nil {
			return 0, err
		}
		c.replies = map[string]int64{}
		for _, cm := range list {
			m, ok := report.ParseMarker(cm.Body)
			if ok && strings.EqualFold(cm.User, c.bot) && m.Kind == commentReply && m.Run == c.a.CommentID && m.Repo == fmt.Sprint(c.repo.ID) {
				c.replies[m.Class] = cm.ID
			}
		}
	}
	return c.replies[digest], nil
}

// commandDigest names a command within its comment in a marker.
func commandDigest(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:8])
}

// loginPattern is the shape of a GitHub login; anything else is not
// mentioned back.
var loginPattern = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$`)

// greeting addresses the reply to the command's author: on the first line
// of a sentence, or on a line of its own before a heading or a table.
func greeting(login, text string) string {
	if !loginPattern.MatchString(login) {
		return ""
	}
	if strings.HasPrefix(text, "#") || strings.HasPrefix(text, "|") {
		return "@" + login + "\n\n"
	}
	return "@" + login + " "
}

// handleOf is the name people mention: the bot's login without "[bot]".
func handleOf(bot string) string {
	h := strings.TrimSuffix(bot, "[bot]")
	if !loginPattern.MatchString(h) {
		return "polylane"
	}
	return h
}

// diagnosisOf loads the latest diagnosis of the comment's pull request:
// the one its assessment comment shows. It reports false when there is
// none.
func (w *Worker) diagnosisOf(ctx context.Context, c *conversation) (*published, bool, error) {
	if c.pub != nil || c.noDiagnosis {
		return c.pub, c.pub != nil, nil
	}
	pc, err := w.st.GetComment(ctx, c.repo.ID, c.a.Number, store.CommentDiagnosis)
	if isNotFound(err) || err == nil && pc.DiagnosisID == 0 {
		c.noDiagnosis = true
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	rec, err := w.st.GetDiagnosisByID(ctx, pc.DiagnosisID)
	if isNotFound(err) {
		c.noDiagnosis = true
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	pub, err := w.load(ctx, "", c.a.InstallationID, rec.Key())
	if err != nil {
		return nil, false, err
	}
	c.pub = pub
	return pub, true, nil
}

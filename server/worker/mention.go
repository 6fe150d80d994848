package worker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/rs/zerolog"

	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/server/report"
	"github.com/polylane/polylane/server/webhook"
	"github.com/polylane/polylane/store"
)

// commentReply is the marker kind of Polylane's answer to a command.
const commentReply = "reply"

// conversation is what answering the commands of one comment needs.
type conversation struct {
	a    webhook.MentionArgs
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

// mention works a mention job: it acknowledges the comment with 👀 and
// answers each command in a reply of its own. Each command is done once
// per comment: the store records it, and a retried job first looks for the
// reply it may already have posted. Only the parsed command text decides
// what happens; no text a model writes is ever acted on.
func (w *Worker) mention(ctx context.Context, a webhook.MentionArgs) error {
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
	switch err := gh.ReactToComment(ctx, a.CommentID, "eyes"); {
	case errors.Is(err, ghclient.ErrNotFound):
		return w.st.SetDeliveryState(ctx, a.DeliveryGUID, store.DeliveryIgnored, "the comment was deleted")
	case err != nil:
		return err
	}
	c := &conversation{a: a, repo: repo, gh: gh, bot: bot}
	for _, cmd := range a.Commands {
		if err := w.command(ctx, c, cmd); err != nil {
			return err
		}
	}
	return w.st.SetDeliveryState(ctx, a.DeliveryGUID, store.DeliveryDone, "")
}

// command answers one command of the comment, once.
func (w *Worker) command(ctx context.Context, c *conversation, cmd webhook.Command) error {
	key := cmd.Key()
	rec, err := w.st.GetMention(ctx, c.a.RepositoryID, c.a.CommentID, key)
	switch {
	case err == nil && rec.State == store.MentionDone:
		return nil
	case err != nil && !isNotFound(err):
		return err
	}
	rec = store.Mention{RepositoryID: c.a.RepositoryID, CommentID: c.a.CommentID, Command: key, Number: c.a.Number,
		Author: c.a.Author, State: store.MentionActing, CreatedAt: rec.CreatedAt}
	digest := commandDigest(key)
	if id, err := w.existingReply(ctx, c, digest); err != nil || id != 0 {
		if err == nil {
			rec.State, rec.ReplyID, rec.Outcome = store.MentionDone, id, "answered earlier"
			err = w.st.PutMention(ctx, rec)
		}
		return err
	}
	text, outcome, err := w.carryOut(ctx, c, cmd, &rec)
	if err != nil {
		return err
	}
	m := report.Marker{Kind: commentReply, Repo: fmt.Sprint(c.repo.ID), Class: digest, Run: c.a.CommentID}
	body := m.String() + "\n" + greeting(c.a.Author, text) + text
	if len(body) >= report.MaxChars {
		body = m.String() + "\n" + greeting(c.a.Author, "") + "The answer is longer than a GitHub comment can hold; open the diagnosis on the dashboard instead.\n"
	}
	reply, err := c.gh.CreateComment(ctx, c.a.Number, body)
	if err != nil {
		return err
	}
	zerolog.Ctx(ctx).Info().Str("command", cmd.Name).Int64("comment_id", c.a.CommentID).Int64("reply_id", reply.ID).
		Str("outcome", outcome).Msg("command answered")
	rec.State, rec.ReplyID, rec.Outcome = store.MentionDone, reply.ID, outcome
	return w.st.PutMention(ctx, rec)
}

// carryOut does what a command asks and returns the reply's text and a
// short outcome for the store. Mutating commands check the author's
// permission first and, before acting, record that they are acting, so
// that a retry checks GitHub before acting again.
func (w *Worker) carryOut(ctx context.Context, c *conversation, cmd webhook.Command, rec *store.Mention) (string, string, error) {
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
	return spec.run(w, ctx, c, cmd.Args)
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

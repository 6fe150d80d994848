package worker

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rs/zerolog"

	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/server/report"
	"github.com/polylane/polylane/store"
)

// sticky is one comment Polylane keeps on an issue or pull request and
// edits in place: found by the id the store remembers, else by its hidden
// marker and the bot's authorship, else created.
type sticky struct {
	repoID      int64
	number      int
	kind        string // the store's comment kind
	body        string
	diagnosisID int64
	bot         string
}

// upsertComment makes sure the sticky comment exists with its body, writing
// to GitHub only when something differs, and records it.
func (w *Worker) upsertComment(ctx context.Context, gh *ghclient.Repo, s sticky) (int64, error) {
	want, ok := report.ParseMarker(s.body)
	if !ok {
		return 0, fmt.Errorf("comment on #%d has no Polylane marker", s.number)
	}
	found, err := w.findComment(ctx, gh, s, want)
	if err != nil {
		return 0, err
	}
	var id int64
	switch {
	case found == nil:
		c, err := gh.CreateComment(ctx, s.number, s.body)
		if err != nil {
			return 0, err
		}
		id = c.ID
		zerolog.Ctx(ctx).Info().Int("number", s.number).Int64("comment_id", id).Msg("comment created")
	case found.Body != s.body:
		if _, err := gh.EditComment(ctx, found.ID, s.body); err != nil {
			return 0, err
		}
		id = found.ID
		zerolog.Ctx(ctx).Info().Int("number", s.number).Int64("comment_id", id).Msg("comment updated")
	default:
		id = found.ID // already current: no write
	}
	err = w.st.UpsertComment(ctx, store.PublishedComment{RepositoryID: s.repoID, Number: s.number, Kind: s.kind,
		CommentID: id, DiagnosisID: s.diagnosisID})
	return id, err
}

// findComment looks for the existing comment: by the stored id first, then
// among the pull request's comments by author and marker (the newest one).
func (w *Worker) findComment(ctx context.Context, gh *ghclient.Repo, s sticky, want report.Marker) (*ghclient.Comment, error) {
	rec, err := w.st.GetComment(ctx, s.repoID, s.number, s.kind)
	switch {
	case err == nil:
		c, err := gh.GetComment(ctx, rec.CommentID)
		if err == nil && ours(c, s.bot, want) {
			return &c, nil
		}
		if err != nil && !errors.Is(err, ghclient.ErrNotFound) {
			return nil, err
		}
	case !isNotFound(err):
		return nil, err
	}
	list, err := gh.ListComments(ctx, s.number)
	if err != nil {
		return nil, err
	}
	for i := len(list) - 1; i >= 0; i-- {
		if ours(list[i], s.bot, want) {
			return &list[i], nil
		}
	}
	return nil, nil
}

// ours reports whether a comment is Polylane's comment of the same thread:
// written by the app's bot and carrying a marker of the same kind and
// repository (and class, for a fix pull request).
func ours(c ghclient.Comment, bot string, want report.Marker) bool {
	if !strings.EqualFold(c.User, bot) {
		return false
	}
	m, ok := report.ParseMarker(c.Body)
	return ok && m.SameThread(want)
}

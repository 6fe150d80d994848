package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/polylane/polylane/store"
)

// repository keeps a stored repository true to GitHub's repository events,
// which decide what a public dashboard shows: privatized and publicized set
// its visibility; renamed its name; transferred its name and owner, and
// removes it when its new owner is not the account of the installation
// that held it (that installation no longer reaches it); deleted removes it.
// archived and unarchived are recorded and change nothing: Polylane keeps
// no archived state. A repository the store does not hold is left to the
// first delivery that needs it, which records it as it then is.
func (h *Handler) repository(ctx context.Context, d *Delivery) (Outcome, error) {
	rp := d.env.Repository
	switch {
	case rp == nil || rp.ID <= 0 || !strings.Contains(rp.FullName, "/") || d.InstallationID <= 0:
		return ignore("no repository or installation in the payload"), nil
	case d.Action == "archived" || d.Action == "unarchived":
		return Outcome{Record: true, State: store.DeliveryIgnored, Status: http.StatusOK,
			Reason: "repository " + d.Action + ": Polylane keeps no archived state"}, nil
	case d.Action != "privatized" && d.Action != "publicized" && d.Action != "renamed" &&
		d.Action != "transferred" && d.Action != "deleted":
		return ignore("repository " + d.Action + " is not acted on"), nil
	case !onlyMembers(d.Payload, repositoryMembers):
		return Outcome{Status: http.StatusBadRequest, Reason: "not a repository event's payload"}, nil
	}
	if seen, err := h.replayed(ctx); err != nil || seen {
		return duplicate(), err
	}
	st := h.opts.Store
	repo, err := st.GetRepository(ctx, rp.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return ignore("repository " + rp.FullName + " is not known: nothing to update"), nil
	case err != nil:
		return Outcome{}, err
	}
	h.installed.forget()
	repo.FullName, repo.Private = rp.FullName, rp.Private
	if rp.DefaultBranch != "" {
		repo.DefaultBranch = rp.DefaultBranch
	}
	switch d.Action {
	case "privatized":
		repo.Private = true
	case "publicized":
		repo.Private = false
	case "deleted":
		repo.Removed = true
	case "transferred":
		if err := h.transfer(ctx, &repo, d.InstallationID, *rp); err != nil {
			return Outcome{}, err
		}
	}
	if err := st.UpsertRepository(ctx, repo); err != nil {
		return Outcome{}, err
	}
	return Outcome{Record: true, Status: http.StatusOK, Reason: "repository " + d.Action + " applied"}, nil
}

// transfer moves a stored repository to its new owner as the installation
// the event came from sees it: an installation on the new owner's account
// holds it from now on; the installation that held it loses it when it is
// on another account. An event of an installation that neither holds the
// repository nor is on the new owner's account changes nothing but its
// name (another installation's event moved it already).
func (h *Handler) transfer(ctx context.Context, repo *store.Repository, installationID int64, rp repoPayload) error {
	owner := rp.Owner.Login
	if owner == "" {
		owner, _, _ = strings.Cut(rp.FullName, "/")
	}
	in, err := h.opts.Store.GetInstallation(ctx, installationID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	switch {
	case err == nil && strings.EqualFold(in.AccountLogin, owner) && !in.Deleted:
		repo.InstallationID, repo.Removed = installationID, false
	case repo.InstallationID == installationID:
		repo.Removed = true
	}
	return nil
}

// repositoryMembers are the members of a repository event's payload. The
// event name is not signed: a body with another member (a comment, an
// issue, a run) is another event's, resent under this name, such as a
// comment's "deleted" that would remove its repository.
var repositoryMembers = map[string]bool{"action": true, "changes": true, "repository": true, "sender": true,
	"installation": true, "organization": true, "enterprise": true}

// onlyMembers reports whether a JSON object has no member outside allowed.
func onlyMembers(payload []byte, allowed map[string]bool) bool {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(payload, &members); err != nil {
		return false
	}
	for k := range members {
		if !allowed[k] {
			return false
		}
	}
	return true
}

package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/polylane/polylane/server/jobs"

	"github.com/polylane/polylane/store"
)

// account is the owner of an installation or a repository.
type account struct {
	Login string `json:"login"`
	Type  string `json:"type"`
}

// repoPayload is the repository object of a delivery.
type repoPayload struct {
	ID            int64   `json:"id"`
	FullName      string  `json:"full_name"`
	DefaultBranch string  `json:"default_branch"`
	Private       bool    `json:"private"`
	Owner         account `json:"owner"`
}

// workflowRun accepts a completed run with a failing conclusion on an
// installed repository: the delivery and its diagnose job are recorded
// together. Everything else is answered 202 and not stored.
func (h *Handler) workflowRun(ctx context.Context, d *Delivery) (Outcome, error) {
	run, repo := d.env.WorkflowRun, d.env.Repository
	switch {
	case run == nil || repo == nil || run.ID <= 0 || repo.ID <= 0 || d.InstallationID <= 0:
		return ignore("no run, repository or installation in the payload"), nil
	case d.Action != "completed":
		return ignore("workflow_run " + d.Action + ": only completed runs are diagnosed"), nil
	case strings.HasPrefix(run.HeadBranch, FixBranchPrefix) && !h.conclusion[run.Conclusion]:
		return h.fixBranchRun(ctx, d)
	case run.Conclusion == "success":
		return h.lifecycle(ctx, d)
	case !h.conclusion[run.Conclusion]:
		return ignore("conclusion " + run.Conclusion + " is not diagnosed"), nil
	}
	installed, err := h.ensureInstalled(ctx, d.InstallationID, *repo)
	if err != nil {
		return Outcome{}, err
	}
	if !installed {
		return ignore("repository " + repo.FullName + " is not installed"), nil
	}
	args := jobs.DiagnoseArgs{DeliveryGUID: d.GUID, InstallationID: d.InstallationID, RepositoryID: repo.ID,
		RunID: run.ID, Attempt: max(run.RunAttempt, 1)}
	return Outcome{Job: args, Reason: fmt.Sprintf("run %d attempt %d queued for diagnosis", args.RunID, args.Attempt)}, nil
}

func ignore(reason string) Outcome { return Outcome{Reason: reason} }

// ensureInstalled reports whether the repository may be diagnosed, and
// records it when the store has not seen it (an installation that predates
// Polylane's database: a signed delivery naming the installation proves it),
// or updates it when the delivery says otherwise of its installation, name,
// default branch or visibility: a repository made private stops being
// public on the dashboard with the next delivery, should its repository
// event have been lost.
func (h *Handler) ensureInstalled(ctx context.Context, installationID int64, rp repoPayload) (bool, error) {
	if h.installed.ok(installationID, rp) {
		return true, nil
	}
	st := h.opts.Store
	repo, err := st.GetRepository(ctx, rp.ID)
	switch {
	case err == nil && repo.Removed:
		return false, nil
	case err != nil && !errors.Is(err, store.ErrNotFound):
		return false, err
	}
	inst, err := st.GetInstallation(ctx, installationID)
	switch {
	case err == nil && (inst.Suspended || inst.Deleted):
		return false, nil
	case errors.Is(err, store.ErrNotFound):
		login := rp.Owner.Login
		if login == "" {
			login, _, _ = strings.Cut(rp.FullName, "/") // a payload without repository.owner
		}
		inst = store.Installation{ID: installationID, AccountLogin: login, AccountType: rp.Owner.Type}
		if err := st.UpsertInstallation(ctx, inst); err != nil {
			return false, err
		}
	case err != nil:
		return false, err
	}
	if repo.ID == 0 || repo.InstallationID != installationID || repo.FullName != rp.FullName ||
		(rp.DefaultBranch != "" && repo.DefaultBranch != rp.DefaultBranch) || repo.Private != rp.Private {
		// A replayed body carries what was true when it was captured.
		if seen, err := h.replayed(ctx); err != nil || seen {
			return seen, err
		}
		repo = store.Repository{ID: rp.ID, InstallationID: installationID, FullName: rp.FullName,
			DefaultBranch: rp.DefaultBranch, Private: rp.Private}
		if err := st.UpsertRepository(ctx, repo); err != nil {
			return false, err
		}
	}
	h.installed.remember(installationID, rp)
	return true, nil
}

// shortRepo is a repository as installation events list it.
type shortRepo struct {
	ID       int64  `json:"id"`
	FullName string `json:"full_name"`
	Private  bool   `json:"private"`
}

type installationPayload struct {
	Action       string `json:"action"`
	Installation struct {
		ID      int64   `json:"id"`
		Account account `json:"account"`
	} `json:"installation"`
	Repositories        []shortRepo `json:"repositories"`
	RepositoriesAdded   []shortRepo `json:"repositories_added"`
	RepositoriesRemoved []shortRepo `json:"repositories_removed"`
}

// installation keeps installations current: created, deleted, suspend,
// unsuspend and new_permissions_accepted.
func (h *Handler) installation(ctx context.Context, d *Delivery) (Outcome, error) {
	var p installationPayload
	// The installation object with its account is what tells an
	// installation event from another event's body resent under its name
	// (those carry the installation's id only): the event name is not
	// signed, and a comment's "created" or "deleted" would otherwise
	// unsuspend or delete the installation.
	if err := json.Unmarshal(d.Payload, &p); err != nil || p.Installation.ID <= 0 || p.Installation.Account.Login == "" {
		return Outcome{Status: http.StatusBadRequest, Reason: "malformed installation payload"}, nil
	}
	if seen, err := h.replayed(ctx); err != nil || seen {
		return duplicate(), err
	}
	h.installed.forget()
	st := h.opts.Store
	in, err := st.GetInstallation(ctx, p.Installation.ID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return Outcome{}, err
	}
	in.ID = p.Installation.ID
	in.AccountLogin, in.AccountType = p.Installation.Account.Login, p.Installation.Account.Type
	switch p.Action {
	case "created":
		in.Suspended, in.Deleted = false, false
	case "deleted":
		in.Deleted = true
	case "suspend":
		in.Suspended = true
	case "unsuspend":
		in.Suspended = false
	case "new_permissions_accepted":
	default:
		return Outcome{Record: true, State: store.DeliveryIgnored, Status: http.StatusOK, Reason: "installation " + p.Action + " ignored"}, nil
	}
	if err := st.UpsertInstallation(ctx, in); err != nil {
		return Outcome{}, err
	}
	if p.Action == "deleted" {
		if err := h.removeAll(ctx, in.ID); err != nil {
			return Outcome{}, err
		}
	}
	if err := h.putRepos(ctx, in.ID, p.Repositories, p.Action == "deleted"); err != nil {
		return Outcome{}, err
	}
	if p.Action == "new_permissions_accepted" && h.opts.NewPermissions != nil {
		h.opts.NewPermissions(in.ID)
	}
	return Outcome{Record: true, Status: http.StatusOK, Reason: "installation " + p.Action + " applied"}, nil
}

// installationRepositories keeps an installation's repositories current.
func (h *Handler) installationRepositories(ctx context.Context, d *Delivery) (Outcome, error) {
	var p installationPayload
	if err := json.Unmarshal(d.Payload, &p); err != nil || p.Installation.ID <= 0 || p.Installation.Account.Login == "" {
		return Outcome{Status: http.StatusBadRequest, Reason: "malformed installation_repositories payload"}, nil
	}
	if seen, err := h.replayed(ctx); err != nil || seen {
		return duplicate(), err
	}
	h.installed.forget()
	st := h.opts.Store
	if _, err := st.GetInstallation(ctx, p.Installation.ID); errors.Is(err, store.ErrNotFound) {
		in := store.Installation{ID: p.Installation.ID, AccountLogin: p.Installation.Account.Login, AccountType: p.Installation.Account.Type}
		if err := st.UpsertInstallation(ctx, in); err != nil {
			return Outcome{}, err
		}
	} else if err != nil {
		return Outcome{}, err
	}
	if err := h.putRepos(ctx, p.Installation.ID, p.RepositoriesAdded, false); err != nil {
		return Outcome{}, err
	}
	if err := h.putRepos(ctx, p.Installation.ID, p.RepositoriesRemoved, true); err != nil {
		return Outcome{}, err
	}
	return Outcome{Record: true, Status: http.StatusOK, Reason: "installation repositories " + p.Action + " applied"}, nil
}

// putRepos adds or removes repositories, keeping what the store knows of
// them (a default branch is not in these payloads).
func (h *Handler) putRepos(ctx context.Context, installationID int64, repos []shortRepo, removed bool) error {
	st := h.opts.Store
	for _, sr := range repos {
		if sr.ID <= 0 || sr.FullName == "" {
			continue
		}
		r, err := st.GetRepository(ctx, sr.ID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		r.ID, r.InstallationID, r.FullName, r.Private, r.Removed = sr.ID, installationID, sr.FullName, sr.Private, removed
		if err := st.UpsertRepository(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

// removeAll marks every repository of a deleted installation removed.
func (h *Handler) removeAll(ctx context.Context, installationID int64) error {
	repos, err := h.opts.Store.ListRepositories(ctx, installationID)
	if err != nil {
		return err
	}
	for _, r := range repos {
		if r.Removed {
			continue
		}
		r.Removed = true
		if err := h.opts.Store.UpsertRepository(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

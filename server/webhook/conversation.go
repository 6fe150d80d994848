package webhook

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/polylane/polylane/server/jobs"

	"github.com/polylane/polylane/analysis/gha"

	"github.com/polylane/polylane/store"
)

// FixBranchPrefix starts the branch of every fix pull request Polylane
// opens.
const FixBranchPrefix = "polylane/fix-"

// userPayload is a user object of a delivery.
type userPayload struct {
	Login string `json:"login"`
	Type  string `json:"type"`
}

// isBot reports a bot account: GitHub's type "Bot", or an app's
// "<slug>[bot]" login.
func (u userPayload) isBot() bool {
	return strings.EqualFold(u.Type, "Bot") || strings.HasSuffix(strings.ToLower(u.Login), "[bot]")
}

type issueCommentPayload struct {
	Issue struct {
		Number      int             `json:"number"`
		PullRequest json.RawMessage `json:"pull_request"`
	} `json:"issue"`
	Comment struct {
		ID   int64       `json:"id"`
		Body string      `json:"body"`
		User userPayload `json:"user"`
	} `json:"comment"`
	Sender userPayload `json:"sender"`
}

// issueComment queues the commands of a new comment, or of a comment its
// author edited. Comments of bots (Polylane's own included), edits by
// someone else than the author, deletions and comments without a command
// are answered 202 and not stored.
func (h *Handler) issueComment(ctx context.Context, d *Delivery) (Outcome, error) {
	var p issueCommentPayload
	if err := json.Unmarshal(d.Payload, &p); err != nil || p.Comment.ID <= 0 || p.Issue.Number <= 0 {
		return Outcome{Status: http.StatusBadRequest, Reason: "malformed issue_comment payload"}, nil
	}
	repo := d.env.Repository
	switch {
	case repo == nil || repo.ID <= 0 || d.InstallationID <= 0:
		return ignore("no repository or installation in the payload"), nil
	case d.Action != "created" && d.Action != "edited":
		return ignore("issue_comment " + d.Action + ": only new and edited comments are read"), nil
	case d.Action == "edited" && !strings.EqualFold(p.Sender.Login, p.Comment.User.Login):
		return ignore("comment edited by someone other than its author: ignored"), nil
	case p.Comment.User.isBot() || p.Sender.isBot():
		return ignore("comment by a bot: ignored"), nil
	}
	cmds := ParseMentions(p.Comment.Body, h.opts.Handles)
	if len(cmds) == 0 {
		return ignore("no command for Polylane in the comment"), nil
	}
	installed, err := h.ensureInstalled(ctx, d.InstallationID, *repo)
	if err != nil {
		return Outcome{}, err
	}
	if !installed {
		return ignore("repository " + repo.FullName + " is not installed"), nil
	}
	args := jobs.MentionArgs{DeliveryGUID: d.GUID, InstallationID: d.InstallationID, RepositoryID: repo.ID,
		Number: p.Issue.Number, PullRequest: len(p.Issue.PullRequest) > 0 && string(p.Issue.PullRequest) != "null",
		CommentID: p.Comment.ID, Author: p.Comment.User.Login, Commands: cmds, Key: commandsKey(cmds)}
	return Outcome{Job: args, Reason: fmt.Sprintf("%d command(s) of comment %d queued", len(cmds), p.Comment.ID)}, nil
}

// commandsKey is a short digest of a comment's commands.
func commandsKey(cmds []Command) string {
	h := sha256.New()
	for _, c := range cmds {
		h.Write([]byte(c.Key()))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

type pullRequestPayload struct {
	Number      int    `json:"number"`
	After       string `json:"after"`
	PullRequest struct {
		Number   int        `json:"number"`
		Merged   bool       `json:"merged"`
		MergedAt *time.Time `json:"merged_at"`
		ClosedAt *time.Time `json:"closed_at"`
		Head     struct {
			Ref  string `json:"ref"`
			SHA  string `json:"sha"`
			Repo *struct {
				ID int64 `json:"id"`
			} `json:"repo"`
		} `json:"head"`
	} `json:"pull_request"`
}

// pullRequest queues the work of a pull request event: a new head marks
// its assessment stale; a fix pull request's closing (merged or not) is
// recorded. Other actions are answered 202 and not stored.
func (h *Handler) pullRequest(ctx context.Context, d *Delivery) (Outcome, error) {
	var p pullRequestPayload
	if err := json.Unmarshal(d.Payload, &p); err != nil {
		return Outcome{Status: http.StatusBadRequest, Reason: "malformed pull_request payload"}, nil
	}
	repo, pr := d.env.Repository, p.PullRequest
	number := max(p.Number, pr.Number)
	switch {
	case repo == nil || repo.ID <= 0 || d.InstallationID <= 0 || number <= 0:
		return ignore("no pull request, repository or installation in the payload"), nil
	case d.Action == jobs.PullClosed && !strings.HasPrefix(pr.Head.Ref, FixBranchPrefix):
		return ignore("closed pull request is not a fix pull request"), nil
	case d.Action == jobs.PullClosed && pr.Head.Repo != nil && pr.Head.Repo.ID != repo.ID:
		return ignore("closed pull request comes from a fork"), nil
	case d.Action != jobs.PullClosed && d.Action != jobs.PullSynchronize:
		return ignore("pull_request " + d.Action + " is not acted on"), nil
	}
	installed, err := h.ensureInstalled(ctx, d.InstallationID, *repo)
	if err != nil {
		return Outcome{}, err
	}
	if !installed {
		return ignore("repository " + repo.FullName + " is not installed"), nil
	}
	args := jobs.PullRequestArgs{DeliveryGUID: d.GUID, InstallationID: d.InstallationID, RepositoryID: repo.ID,
		Number: number, Action: d.Action, HeadSHA: pr.Head.SHA, HeadRef: pr.Head.Ref, Merged: pr.Merged || pr.MergedAt != nil}
	if args.HeadSHA == "" {
		args.HeadSHA = p.After
	}
	switch {
	case pr.MergedAt != nil:
		args.ClosedAt = pr.MergedAt.UTC()
	case pr.ClosedAt != nil:
		args.ClosedAt = pr.ClosedAt.UTC()
	case d.Action == jobs.PullClosed:
		args.ClosedAt = d.ReceivedAt.UTC()
	}
	return Outcome{Job: args, Reason: fmt.Sprintf("pull request #%d %s queued", number, d.Action)}, nil
}

// headRepository is the head_repository object of a workflow_run: a fork
// for a fork's pull request.
type headRepository = gha.Repository

// lifecycle queues the fix pull request check after a successful run on
// the default branch (gha.OnDefaultBranch: never a pull request's
// run, a fork's "main" included) of a repository that has an open fix
// pull request.
func (h *Handler) lifecycle(ctx context.Context, d *Delivery) (Outcome, error) {
	run, repo := d.env.WorkflowRun, d.env.Repository
	head := gha.Run{Event: run.Event, HeadBranch: run.HeadBranch, HeadRepository: run.HeadRepository}
	if !gha.OnDefaultBranch(head, gha.Repository{ID: repo.ID, FullName: repo.FullName}, repo.DefaultBranch) {
		return ignore("conclusion success is not diagnosed"), nil
	}
	open, err := h.fixes.hasOpen(ctx, h.opts.Store, repo.ID)
	if err != nil {
		return Outcome{}, err
	}
	if !open {
		return ignore("conclusion success is not diagnosed; no open fix pull request to check"), nil
	}
	installed, err := h.ensureInstalled(ctx, d.InstallationID, *repo)
	if err != nil || !installed {
		return ignore("repository " + repo.FullName + " is not installed"), err
	}
	args := jobs.LifecycleArgs{DeliveryGUID: d.GUID, InstallationID: d.InstallationID, RepositoryID: repo.ID,
		WorkflowID: run.WorkflowID, RunID: run.ID, Attempt: max(run.RunAttempt, 1)}
	return Outcome{Job: args, Reason: fmt.Sprintf("run %d checked against open fix pull requests", run.ID)}, nil
}

// fixBranchRun queues the verification of a fix pull request by a run on
// its branch that is not diagnosed (a success, a cancelled run): the
// repository's own run, never a fork's branch of the same name, of a
// repository with an open fix pull request of that branch. A failed run on a fix branch
// is diagnosed like any, and its publish step records it.
func (h *Handler) fixBranchRun(ctx context.Context, d *Delivery) (Outcome, error) {
	run, repo := d.env.WorkflowRun, d.env.Repository
	if run.HeadRepository != nil && run.HeadRepository.ID != 0 && run.HeadRepository.ID != repo.ID {
		return ignore("run of a fork's branch " + run.HeadBranch + " does not verify a fix"), nil
	}
	// Runs of fix branches are rare: the store is read each time, so that a
	// fix pull request opened a moment ago is seen.
	list, err := h.opts.Store.ListFixPullRequests(ctx, repo.ID)
	if err != nil {
		return Outcome{}, fmt.Errorf("list fix pull requests of repository %d: %w", repo.ID, err)
	}
	open := false
	for _, f := range list {
		open = open || f.State == store.FixOpen && f.Branch == run.HeadBranch
	}
	if !open {
		return ignore("conclusion " + run.Conclusion + " on " + run.HeadBranch + ": no open fix pull request of that branch to verify"), nil
	}
	installed, err := h.ensureInstalled(ctx, d.InstallationID, *repo)
	if err != nil || !installed {
		return ignore("repository " + repo.FullName + " is not installed"), err
	}
	args := jobs.VerifyArgs{DeliveryGUID: d.GUID, InstallationID: d.InstallationID, RepositoryID: repo.ID,
		RunID: run.ID, Attempt: max(run.RunAttempt, 1)}
	return Outcome{Job: args, Reason: fmt.Sprintf("run %d on fix branch queued for verification", run.ID)}, nil
}

// fixCacheTTL is how long "this repository has an open fix pull request" is
// trusted: a success on the default branch is common, and reading the
// store for each would cost more than the rare check it starts.
const fixCacheTTL = 30 * time.Second

// fixCache remembers which repositories have an open fix pull request.
type fixCache struct {
	installedCache
}

// hasOpen reports whether the repository has an open fix pull request.
func (c *fixCache) hasOpen(ctx context.Context, st Store, repoID int64) (bool, error) {
	c.mu.Lock()
	exp, found := c.m[[2]int64{repoID, 1}]
	none, foundNone := c.m[[2]int64{repoID, 0}]
	now := c.now()
	c.mu.Unlock()
	switch {
	case found && now.Before(exp):
		return true, nil
	case foundNone && now.Before(none):
		return false, nil
	}
	list, err := st.ListFixPullRequests(ctx, repoID)
	if err != nil {
		return false, fmt.Errorf("list fix pull requests of repository %d: %w", repoID, err)
	}
	open := false
	for _, f := range list {
		open = open || f.State == store.FixOpen
	}
	flag := int64(0)
	if open {
		flag = 1
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxInstalled {
		c.m = map[[2]int64]time.Time{}
	}
	delete(c.m, [2]int64{repoID, 1 - flag})
	c.m[[2]int64{repoID, flag}] = now.Add(fixCacheTTL)
	c.mu.Unlock()
	return open, nil
}

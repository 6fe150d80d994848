package worker

import (
	"context"
	"crypto/sha1" //nolint:gosec // git names objects with SHA-1
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/polylane/polylane/server/jobs"

	"github.com/rs/zerolog"

	"github.com/polylane/polylane/causal/patch"
	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/server/report"
	"github.com/polylane/polylane/store"
)

// fix works a fix job: one pull request per failure class, on branch
// polylane/fix-<class>, whose commit applies the patch to the default
// branch's current files. An open fix pull request of the class is updated
// (the branch moves to a new commit, the body and the assessment comment
// are edited), never a second one opened. Each write is preceded by a read
// that would make it unnecessary, so a retried job converges. A patch that
// no longer applies is recorded on the delivery.
func (w *Worker) fix(ctx context.Context, a jobs.FixArgs) error {
	res, err := w.fixPull(ctx, a)
	if err != nil {
		return err
	}
	if res.notApplied != "" {
		return w.st.SetDeliveryState(ctx, a.DeliveryGUID, store.DeliveryFailed, clipText(res.notApplied, 2000))
	}
	return nil
}

// fixResult says what a fix job did.
type fixResult struct {
	number int    // the fix pull request, 0 when none is open
	opened bool   // it was opened by this job
	closed string // a closed or merged fix pull request kept Polylane from opening another
	// notApplied says why the patch does not apply to the default branch.
	notApplied string
	noPatch    bool
	// withheld is why the patch may not be opened as a pull request
	// (fixgate.go).
	withheld string
}

// fixPull opens or updates the fix pull request and says what it did.
func (w *Worker) fixPull(ctx context.Context, a jobs.FixArgs) (fixResult, error) {
	key := store.RunKey{RepositoryID: a.RepositoryID, RunID: a.RunID, Attempt: a.Attempt}
	pub, err := w.load(ctx, a.DeliveryGUID, a.InstallationID, key)
	if err == nil {
		pub, err = w.fromDefaultBranch(ctx, pub, a) // a fork's files never make the fix
	}
	if err != nil {
		return fixResult{}, err
	}
	if pub.doc.Patch == nil || pub.doc.Patch.Diff == "" {
		return fixResult{noPatch: true}, nil
	}
	if why := pub.fixBlocked(a.Requested); why != "" {
		zerolog.Ctx(ctx).Info().Str("class", a.ClassID).Str("withheld", why).Msg("fix pull request withheld")
		return fixResult{withheld: why}, nil
	}
	release, err := w.st.LockRepository(ctx, a.RepositoryID)
	if err != nil {
		return fixResult{}, err
	}
	defer release()
	branch := report.FixBranch(a.ClassID)
	existing, ended, err := w.existingFix(ctx, pub, a.ClassID, branch)
	if err != nil {
		return fixResult{}, err
	}
	if ended != "" && !a.Requested {
		return fixResult{closed: ended}, nil
	}
	head, notApplied, err := w.fixCommit(ctx, pub, a, branch)
	if errors.Is(err, errWorkflowsRefused) {
		zerolog.Ctx(ctx).Warn().Err(err).Str("class", a.ClassID).Msg("fix pull request withheld: GitHub refused the workflow change")
		pub.noWorkflows = true
		w.gh.ForgetInstallation(a.InstallationID) // a later grant reaches the next token
		return fixResult{withheld: report.WithheldWorkflowsPermission}, nil
	}
	if err != nil || notApplied != "" {
		return fixResult{notApplied: notApplied}, err
	}
	opts := w.reportOptions(ctx, pub)
	opts.FixWithheld = nil // it is being opened
	if opts.Verification, err = w.fixVerification(ctx, pub, a.ClassID, branch, head, existing); err != nil {
		return fixResult{}, err
	}
	title, body, err := report.PullRequest(pub.doc, opts)
	if err != nil {
		return fixResult{}, permanent{err}
	}
	pr, err := w.ensurePull(ctx, pub, existing, ghclient.NewPull{Title: title, Body: body, Head: branch, Base: pub.repo.DefaultBranch})
	if _, refused := ghclient.MissingPermission(err); refused && existing == nil {
		// GitHub will not open the pull request (the installation lacks
		// pull_requests: write): the branch pushed for it would be left
		// behind, so it goes; the refusal is reported as it is.
		if derr := pub.gh.DeleteBranch(ctx, branch); derr != nil {
			zerolog.Ctx(ctx).Warn().Err(derr).Str("branch", branch).Msg("fix branch without a pull request not deleted")
		}
		return fixResult{}, err
	}
	if err != nil {
		return fixResult{}, err
	}
	if existing == nil && len(pub.set.FixLabels) > 0 {
		if err := pub.gh.AddLabels(ctx, pr.Number, pub.set.FixLabels); err != nil {
			zerolog.Ctx(ctx).Warn().Err(err).Int("number", pr.Number).Msg("labels of the fix pull request not added")
		}
	}
	comment, err := report.Comment(pub.doc, opts)
	if err != nil {
		return fixResult{}, permanent{err}
	}
	s := sticky{repoID: a.RepositoryID, number: pr.Number, kind: store.CommentDiagnosis, body: comment, diagnosisID: pub.rec.ID, bot: pub.bot}
	if _, err := w.upsertComment(ctx, pub.gh, s); err != nil {
		return fixResult{}, err
	}
	zerolog.Ctx(ctx).Info().Int("number", pr.Number).Str("branch", branch).Str("head", head).Msg("fix pull request current")
	err = w.st.UpsertFixPullRequest(ctx, store.FixPullRequest{RepositoryID: a.RepositoryID, ClassID: a.ClassID,
		Number: pr.Number, Branch: branch, State: store.FixOpen, HeadSHA: head})
	return fixResult{number: pr.Number, opened: existing == nil}, err
}

// existingFix finds the open fix pull request of the class: the stored one
// if GitHub still has it open, else an open one from the branch. ended is
// set ("closed" or "merged") when the class's fix pull request was closed
// or merged: people decided, and Polylane opens no other one unless asked.
func (w *Worker) existingFix(ctx context.Context, pub *published, classID, branch string) (*ghclient.PullRequest, string, error) {
	rec, err := w.st.GetFixPullRequest(ctx, pub.repo.ID, classID)
	switch {
	case err == nil:
		pr, err := pub.gh.GetPull(ctx, rec.Number)
		if err == nil && pr.State == "open" {
			return &pr, "", nil
		}
		if err == nil {
			if err := w.recordEnded(ctx, rec, pr); err != nil {
				return nil, "", err
			}
			state := store.FixClosed
			if pr.Merged {
				state = store.FixMerged
			}
			zerolog.Ctx(ctx).Info().Int("number", pr.Number).Str("state", state).Msg("fix pull request of the class was closed")
			return nil, state, nil
		}
		if !errors.Is(err, ghclient.ErrNotFound) {
			return nil, "", err
		}
	case !isNotFound(err):
		return nil, "", err
	}
	list, err := pub.gh.ListPulls(ctx, ghclient.PullQuery{Head: pub.gh.Owner() + ":" + branch, State: "open"})
	if err != nil {
		return nil, "", err
	}
	for _, pr := range list {
		if pr.HeadRef == branch {
			return &pr, "", nil
		}
	}
	return nil, "", nil
}

// fixCommit makes the fix branch carry the patch applied to the default
// branch's head and returns the branch's head commit. It writes nothing when
// the branch already has the patched files. When the patch no longer
// applies it returns why, and writes nothing.
func (w *Worker) fixCommit(ctx context.Context, pub *published, a jobs.FixArgs, branch string) (head, notApplied string, err error) {
	head, err = w.fixBranch(ctx, pub, a, branch)
	var na *notAppliedError
	if errors.As(err, &na) {
		zerolog.Ctx(ctx).Warn().Str("class", a.ClassID).Err(err).Msg("patch does not apply to the default branch")
		return "", fmt.Sprintf("fix pull request for class %s not opened: %v", a.ClassID, err), nil
	}
	return head, "", err
}

// fixBranch is fixCommit's work; a patch that does not apply gives a
// *notAppliedError.
func (w *Worker) fixBranch(ctx context.Context, pub *published, a jobs.FixArgs, branch string) (string, error) {
	gh := pub.gh
	base := pub.repo.DefaultBranch
	baseSHA, err := gh.BranchHead(ctx, base)
	if err != nil {
		return "", err
	}
	files, err := w.patchedFiles(ctx, pub, baseSHA)
	if err != nil {
		return "", err
	}
	branchSHA, err := gh.BranchHead(ctx, branch)
	if err != nil && !errors.Is(err, ghclient.ErrNotFound) {
		return "", err
	}
	if branchSHA != "" {
		current, err := w.carries(ctx, pub, branchSHA, files)
		if err != nil || current {
			return branchSHA, err
		}
	}
	baseCommit, err := gh.GetCommit(ctx, baseSHA)
	if err != nil {
		return "", err
	}
	tree, err := gh.CreateTree(ctx, baseCommit.Tree, files)
	if err != nil {
		return "", err
	}
	msg := "polylane: " + pub.doc.Patch.Title + "\n\nFixes the CI failure class " + a.ClassID + " (run " + strconv.FormatInt(a.RunID, 10) + ")."
	commit, err := gh.CreateCommit(ctx, msg, tree, []string{baseSHA})
	if err != nil {
		return "", err
	}
	if branchSHA == "" {
		err = gh.CreateBranch(ctx, branch, commit)
		if !ghclient.AlreadyExists(err) {
			return commit, refWriteError(pub, err)
		}
		// Created meanwhile (a lost response): move it instead. Only
		// GitHub's "Reference already exists" means that; any other 422
		// is a refusal that moving would hide.
	}
	return commit, refWriteError(pub, gh.MoveBranch(ctx, branch, commit, true))
}

// errWorkflowsRefused: GitHub refused the fix branch because the patch
// changes a workflow and the installation lacks workflows: write.
var errWorkflowsRefused = errors.New("GitHub refused the fix branch: the app lacks the workflows: write permission a workflow change needs")

// refWriteError reads a refused branch write. A 403 for a patch that
// changes a workflow is GitHub's workflows refusal (it names
// "contents=write,workflows=write" among the accepted permissions, or
// nothing at all: mkb79/Audible#882); a 422 other than "already exists" is
// permanent ("Reference update failed", "Object does not exist"), so the
// job ends at once with GitHub's message rather than retrying.
func refWriteError(pub *published, err error) error {
	if err == nil {
		return nil
	}
	if accepted, refused := ghclient.MissingPermission(err); refused && len(workflowFiles(pub.doc.Patch.Diff)) > 0 &&
		(accepted == "" || strings.Contains(accepted, "workflows")) {
		return fmt.Errorf("%w: %w", errWorkflowsRefused, err)
	}
	if errors.Is(err, ghclient.ErrUnprocessable) {
		return permanent{err}
	}
	return err
}

// repoTree is a commit's files for the fix: the cached listing, completed
// directory by directory where GitHub truncated it.
func (w *Worker) repoTree(ctx context.Context, pub *published, sha string) (*treeFS, error) {
	tree, err := w.commitTree(ctx, pub.gh, pub.repo.ID, sha)
	if err != nil {
		return nil, err
	}
	return newTreeFS(tree, 0, nil).completeWith(listTree(ctx, pub.gh)), nil
}

// listTree lists one tree's direct entries, to complete a truncated
// listing.
func listTree(ctx context.Context, gh *ghclient.Repo) func(sha string) ([]ghclient.TreeEntry, error) {
	return func(sha string) ([]ghclient.TreeEntry, error) {
		t, err := gh.ListTree(ctx, sha)
		return t.Entries, err
	}
}

// notAppliedError says why a patch does not apply to the current files.
type notAppliedError struct{ err error }

func (e *notAppliedError) Error() string { return e.err.Error() }
func (e *notAppliedError) Unwrap() error { return e.err }

// patchedFiles applies the diagnosis' patch to the files of the default
// branch at baseSHA.
func (w *Worker) patchedFiles(ctx context.Context, pub *published, baseSHA string) ([]ghclient.TreeFile, error) {
	diffs, err := patch.Files(pub.doc.Patch.Diff)
	if err != nil {
		return nil, &notAppliedError{fmt.Errorf("the patch is malformed: %w", err)}
	}
	tree, err := w.repoTree(ctx, pub, baseSHA)
	if err != nil {
		return nil, err
	}
	var out []ghclient.TreeFile
	for _, fd := range diffs {
		e, exists := tree.lookup(fd.Path)
		if err := tree.Err(); err != nil {
			return nil, err // a directory listing failed: retry rather than misjudge
		}
		var old []byte
		switch {
		case exists && e.Type == "blob" && e.Mode != "120000":
			if old, err = w.blob(ctx, pub.gh, pub.repo.ID, e.SHA); err != nil {
				return nil, err
			}
		case exists:
			return nil, &notAppliedError{fmt.Errorf("%s is not a regular file on %s", fd.Path, pub.repo.DefaultBranch)}
		case !fd.Created:
			return nil, &notAppliedError{fmt.Errorf("%s no longer exists on %s at %s", fd.Path, pub.repo.DefaultBranch, short(baseSHA))}
		}
		content, err := patch.Apply(old, fd.Diff)
		if err != nil {
			return nil, &notAppliedError{fmt.Errorf("%s on %s at %s: %w", fd.Path, pub.repo.DefaultBranch, short(baseSHA), err)}
		}
		mode := e.Mode
		out = append(out, ghclient.TreeFile{Path: fd.Path, Content: content, Mode: mode, Delete: content == nil && fd.Deleted})
	}
	return out, nil
}

// carries reports whether a commit's tree already has the patched files.
func (w *Worker) carries(ctx context.Context, pub *published, sha string, files []ghclient.TreeFile) (bool, error) {
	tree, err := w.repoTree(ctx, pub, sha)
	if err != nil {
		return false, err
	}
	for _, f := range files {
		e, ok := tree.file(f.Path)
		sha := e.SHA
		if err := tree.Err(); err != nil {
			return false, err
		}
		if f.Delete {
			if ok {
				return false, nil
			}
			continue
		}
		if !ok || sha != blobSHA(f.Content) {
			return false, nil
		}
	}
	return true, nil
}

// blobSHA is git's object name of a blob.
func blobSHA(content []byte) string {
	h := sha1.New() //nolint:gosec // git's object names
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// ensurePull opens the fix pull request, or updates the open one's title
// and body when they differ. A 422 on opening means it exists (a lost
// response): it is found and used.
func (w *Worker) ensurePull(ctx context.Context, pub *published, existing *ghclient.PullRequest, np ghclient.NewPull) (ghclient.PullRequest, error) {
	gh := pub.gh
	if existing == nil {
		pr, err := gh.CreatePull(ctx, np)
		if err == nil {
			zerolog.Ctx(ctx).Info().Int("number", pr.Number).Msg("fix pull request opened")
			return pr, nil
		}
		if !errors.Is(err, ghclient.ErrUnprocessable) {
			return pr, err
		}
		list, lerr := gh.ListPulls(ctx, ghclient.PullQuery{Head: gh.Owner() + ":" + np.Head, State: "open"})
		if lerr != nil {
			return pr, lerr
		}
		for i := range list {
			if list[i].HeadRef == np.Head {
				existing = &list[i]
			}
		}
		if existing == nil {
			return pr, err
		}
	}
	if existing.Title == np.Title && existing.Body == np.Body {
		return *existing, nil
	}
	return gh.EditPull(ctx, existing.Number, np.Title, np.Body)
}

// short abbreviates a commit for messages.
func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

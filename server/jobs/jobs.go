// Package jobs holds the arguments of every queued job: what the webhook
// enqueues and the workers work (diagnose a run, publish its report, open a
// fix pull request, answer a mention, act on a pull request event, check the
// fix pull requests after a default-branch run). The webhook and the workers
// both import it; neither imports the other for its job types.
package jobs

import (
	"time"

	"github.com/riverqueue/river"
)

// Job kinds.
const (
	KindDiagnose    = "polylane_diagnose"
	KindPublish     = "polylane_publish"
	KindFix         = "polylane_fix_pr"
	KindMention     = "polylane_mention"
	KindPullRequest = "polylane_pull_request"
	KindLifecycle   = "polylane_lifecycle"
	KindVerify      = "polylane_verify"
)

// DefaultFailingConclusions are the workflow run conclusions that start a
// diagnosis unless configured otherwise.
var DefaultFailingConclusions = []string{"failure", "timed_out"}

// Keys are what every job carries to be logged and traced: the delivery
// that started it, the installation, the repository and, when there is
// one, the run.
type Keys struct {
	DeliveryGUID   string
	InstallationID int64
	RepositoryID   int64
	RunID          int64
}

// Args are the arguments of a Polylane job.
type Args interface {
	river.JobArgs
	Keys() Keys
}

// unique is the insert options of a job River keeps one of per its
// arguments marked unique, with bounded attempts.
func unique(attempts int) river.InsertOpts {
	return river.InsertOpts{MaxAttempts: attempts, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// DiagnoseArgs is the job of an accepted workflow_run delivery: diagnose
// one attempt of a run. River keeps one per (repository, run, attempt), so a
// second delivery for the same attempt adds no job.
type DiagnoseArgs struct {
	DeliveryGUID   string `json:"delivery_guid"`
	InstallationID int64  `json:"installation_id"`
	RepositoryID   int64  `json:"repository_id" river:"unique"`
	RunID          int64  `json:"run_id" river:"unique"`
	Attempt        int    `json:"attempt" river:"unique"`
}

// Kind names the job.
func (DiagnoseArgs) Kind() string { return KindDiagnose }

// InsertOpts makes the job unique, with bounded attempts (River backs off
// between them).
func (DiagnoseArgs) InsertOpts() river.InsertOpts { return unique(8) }

// Keys are the job's keys.
func (a DiagnoseArgs) Keys() Keys {
	return Keys{a.DeliveryGUID, a.InstallationID, a.RepositoryID, a.RunID}
}

// PublishArgs publishes the stored diagnosis of one run attempt: the sticky
// comment on its pull request, the regression comment, and the fix pull
// request job. River keeps one per (repository, run, attempt).
type PublishArgs struct {
	DeliveryGUID   string `json:"delivery_guid"`
	InstallationID int64  `json:"installation_id"`
	RepositoryID   int64  `json:"repository_id" river:"unique"`
	RunID          int64  `json:"run_id" river:"unique"`
	Attempt        int    `json:"attempt" river:"unique"`
}

// Kind names the job.
func (PublishArgs) Kind() string { return KindPublish }

// InsertOpts makes the job unique, with bounded attempts.
func (PublishArgs) InsertOpts() river.InsertOpts { return unique(8) }

// Keys are the job's keys.
func (a PublishArgs) Keys() Keys {
	return Keys{a.DeliveryGUID, a.InstallationID, a.RepositoryID, a.RunID}
}

// FixArgs opens or updates the fix pull request of a failure class from the
// diagnosis of one run attempt. River keeps one per (repository, class, run,
// attempt).
type FixArgs struct {
	DeliveryGUID   string `json:"delivery_guid"`
	InstallationID int64  `json:"installation_id"`
	RepositoryID   int64  `json:"repository_id" river:"unique"`
	ClassID        string `json:"class_id" river:"unique"`
	RunID          int64  `json:"run_id" river:"unique"`
	Attempt        int    `json:"attempt" river:"unique"`
	// Requested is set when someone asked for the fix ("@polylane fix"):
	// a new fix pull request is opened even when an earlier one of the
	// class was closed.
	Requested bool `json:"requested,omitempty"`
}

// Kind names the job.
func (FixArgs) Kind() string { return KindFix }

// InsertOpts makes the job unique, with bounded attempts.
func (FixArgs) InsertOpts() river.InsertOpts { return unique(8) }

// Keys are the job's keys.
func (a FixArgs) Keys() Keys { return Keys{a.DeliveryGUID, a.InstallationID, a.RepositoryID, a.RunID} }

// Command is one "@polylane <name> [args]" line of a comment.
type Command struct {
	// Name is the command word, lower-cased ("help", "why", …); it may be
	// a word Polylane does not know, which is answered with the usage.
	Name string `json:"name"`
	// Args is the rest of the line, trimmed and bounded.
	Args string `json:"args,omitempty"`
}

// Key is the command's identity within one comment: its name and its
// arguments, as one line.
func (c Command) Key() string {
	if c.Args == "" {
		return c.Name
	}
	return c.Name + " " + c.Args
}

// MentionArgs answers the "@polylane" commands of one comment. River keeps
// one per (repository, comment, commands), so a redelivery adds no job and
// an edit that changes the commands adds one.
type MentionArgs struct {
	DeliveryGUID   string    `json:"delivery_guid"`
	InstallationID int64     `json:"installation_id"`
	RepositoryID   int64     `json:"repository_id" river:"unique"`
	Number         int       `json:"number"`
	PullRequest    bool      `json:"pull_request"`
	CommentID      int64     `json:"comment_id" river:"unique"`
	Author         string    `json:"author"`
	Commands       []Command `json:"commands"`
	// Key is a digest of the commands, which makes an edited comment with
	// new commands a new job.
	Key string `json:"key" river:"unique"`
}

// Kind names the job.
func (MentionArgs) Kind() string { return KindMention }

// InsertOpts makes the job unique, with bounded attempts.
func (MentionArgs) InsertOpts() river.InsertOpts { return unique(8) }

// Keys are the job's keys.
func (a MentionArgs) Keys() Keys { return Keys{a.DeliveryGUID, a.InstallationID, a.RepositoryID, 0} }

// Pull request actions a PullRequestArgs carries.
const (
	PullSynchronize = "synchronize"
	PullClosed      = "closed"
)

// PullRequestArgs acts on a pull request event: "synchronize" marks the
// pull request's assessment stale; "closed" records how a fix pull request
// ended (merged, with its merge time, or closed).
type PullRequestArgs struct {
	DeliveryGUID   string    `json:"delivery_guid"`
	InstallationID int64     `json:"installation_id"`
	RepositoryID   int64     `json:"repository_id" river:"unique"`
	Number         int       `json:"number" river:"unique"`
	Action         string    `json:"action" river:"unique"`
	HeadSHA        string    `json:"head_sha" river:"unique"`
	HeadRef        string    `json:"head_ref"`
	Merged         bool      `json:"merged"`
	ClosedAt       time.Time `json:"closed_at"`
}

// Kind names the job.
func (PullRequestArgs) Kind() string { return KindPullRequest }

// InsertOpts makes the job unique, with bounded attempts.
func (PullRequestArgs) InsertOpts() river.InsertOpts { return unique(8) }

// Keys are the job's keys.
func (a PullRequestArgs) Keys() Keys {
	return Keys{a.DeliveryGUID, a.InstallationID, a.RepositoryID, 0}
}

// LifecycleArgs checks the open fix pull requests of a repository after a
// run of a workflow on the default branch: one whose class has not recurred
// for long enough is commented on and closed.
type LifecycleArgs struct {
	DeliveryGUID   string `json:"delivery_guid"`
	InstallationID int64  `json:"installation_id"`
	RepositoryID   int64  `json:"repository_id" river:"unique"`
	WorkflowID     int64  `json:"workflow_id"`
	RunID          int64  `json:"run_id" river:"unique"`
	Attempt        int    `json:"attempt" river:"unique"`
}

// Kind names the job.
func (LifecycleArgs) Kind() string { return KindLifecycle }

// InsertOpts makes the job unique, with bounded attempts.
func (LifecycleArgs) InsertOpts() river.InsertOpts { return unique(5) }

// Keys are the job's keys.
func (a LifecycleArgs) Keys() Keys {
	return Keys{a.DeliveryGUID, a.InstallationID, a.RepositoryID, a.RunID}
}

// VerifyArgs records a completed run on a fix pull request's branch that
// was not diagnosed (a success, a cancelled or skipped run) in the fix's
// verification, and refreshes its Verification section. A failed run on a
// fix branch goes through DiagnoseArgs instead, whose publish step records
// it. With Rerun set it is the scheduled check of a class's fix for its
// next rerun (fix_pull_requests.verify_reruns): RunID is the run to re-run
// and Attempt the number of reruns asked so far, which keeps one check per
// rerun.
type VerifyArgs struct {
	DeliveryGUID   string `json:"delivery_guid"`
	InstallationID int64  `json:"installation_id"`
	RepositoryID   int64  `json:"repository_id" river:"unique"`
	RunID          int64  `json:"run_id" river:"unique"`
	Attempt        int    `json:"attempt" river:"unique"`
	Rerun          bool   `json:"rerun,omitempty" river:"unique"`
	ClassID        string `json:"class_id,omitempty" river:"unique"`
}

// Kind names the job.
func (VerifyArgs) Kind() string { return KindVerify }

// InsertOpts makes the job unique, with bounded attempts.
func (VerifyArgs) InsertOpts() river.InsertOpts { return unique(5) }

// Keys are the job's keys.
func (a VerifyArgs) Keys() Keys {
	return Keys{a.DeliveryGUID, a.InstallationID, a.RepositoryID, a.RunID}
}

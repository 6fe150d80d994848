package store

import (
	"encoding/json"
	"time"

	"github.com/riverqueue/river"
)

// Times: every time a Store returns is in UTC and truncated to the microsecond
// (the precision both backends keep). A zero time.Time means "not set" in the
// fields documented as optional.

// Installation is one installation of the GitHub App on an account.
type Installation struct {
	ID           int64
	AccountLogin string
	AccountType  string // "User" or "Organization"
	Suspended    bool
	Deleted      bool
	CreatedAt    time.Time // set by the store on first insert
	UpdatedAt    time.Time // set by the store on every write
}

// Repository is a repository an installation gives Polylane access to. ID is
// GitHub's repository id.
type Repository struct {
	ID             int64
	InstallationID int64
	FullName       string // "owner/name"
	DefaultBranch  string
	Private        bool
	Removed        bool // removed from the installation; kept for history
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Delivery states.
const (
	DeliveryQueued     = "queued"
	DeliveryProcessing = "processing"
	DeliveryDone       = "done"
	DeliveryFailed     = "failed"
	DeliveryIgnored    = "ignored"
)

// Delivery is one webhook delivery as GitHub sent it. GUID is the
// X-GitHub-Delivery header and is unique; so is BodyHash when it is set.
type Delivery struct {
	GUID           string
	Event          string // X-GitHub-Event
	Action         string
	InstallationID int64 // 0 when the payload has none
	RepositoryID   int64 // 0 when the payload has none
	ReceivedAt     time.Time
	Payload        []byte // the body exactly as received
	// Packed, when not nil, is PackPayload(Payload), made by the caller:
	// the webhook packs on its request's goroutine so that the goroutine
	// that commits a whole batch need not. It is never read back (GetDelivery
	// fills Payload).
	Packed []byte
	// BodyHash identifies the signed body (nil: not known). The webhook
	// stores the body's verified HMAC-SHA256: the X-GitHub-Delivery header
	// is not signed, so a captured body resent under a new GUID is known by
	// its hash and recorded once.
	BodyHash  []byte
	State     string // one of the Delivery* states; empty means DeliveryQueued
	Error     string
	UpdatedAt time.Time
}

// DeliveryJob is a delivery with the job it starts (Args nil: none), for
// RecordDeliveries.
type DeliveryJob struct {
	Delivery Delivery
	Args     river.JobArgs
	Opts     *river.InsertOpts
}

// DashboardSession is a sign-in to the dashboard. The session cookie
// carries a random id; the store keeps only a hash of it, so a copy of the
// table signs nobody in.
type DashboardSession struct {
	ID        []byte // SHA-256 of the cookie's session id
	UserID    int64
	Login     string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// RunKey identifies one attempt of a workflow run.
type RunKey struct {
	RepositoryID int64
	RunID        int64
	Attempt      int
}

// WorkflowRun is one attempt of a workflow run.
type WorkflowRun struct {
	RepositoryID int64
	RunID        int64
	Attempt      int
	WorkflowID   int64
	WorkflowPath string
	WorkflowName string
	RunNumber    int
	HeadSHA      string
	Branch       string
	Event        string
	Status       string
	Conclusion   string
	CreatedAt    time.Time // GitHub's created_at; orders the run history
	HTMLURL      string
	UpdatedAt    time.Time // set by the store
	// Detail is the run as the pipeline reads it (an gha.Run JSON
	// document, with pull requests, head commit and actor); empty when only
	// the columns above are known. Upserting an empty Detail keeps the
	// stored one.
	Detail json.RawMessage
}

// Key returns the run's key.
func (r WorkflowRun) Key() RunKey {
	return RunKey{RepositoryID: r.RepositoryID, RunID: r.RunID, Attempt: r.Attempt}
}

// WorkflowJob is one job of a run attempt with its steps. ID is GitHub's job id.
type WorkflowJob struct {
	ID          int64
	Name        string
	Status      string
	Conclusion  string
	StartedAt   time.Time // optional
	CompletedAt time.Time // optional
	HTMLURL     string
	Steps       []JobStep // ordered by Number
}

// JobStep is one step of a job.
type JobStep struct {
	Number      int
	Name        string
	Status      string
	Conclusion  string
	StartedAt   time.Time // optional
	CompletedAt time.Time // optional
}

// Occurrence is the failure of one step of one job in a run attempt, as the
// analysis found it.
type Occurrence struct {
	RepositoryID int64
	RunID        int64
	Attempt      int
	JobID        int64
	JobName      string
	StepNumber   int
	StepName     string
	Signature    string
	SignatureID  string
	CauseLines   json.RawMessage // JSON array of analysis.Line; empty means []
	ExitCode     *int
	Unknown      bool // the log could not be read or no cause was found
	ClassID      string
	OccurredAt   time.Time // the run's created_at
	// Detail is the occurrence as the history stage computed it (a
	// history.Occurrence JSON document), so that a later diagnosis reuses it
	// instead of reading the log again; empty when not kept.
	Detail json.RawMessage
}

// FailureClass is a cluster of failures of one step that share a cause, per
// repository. ID is the class id the analysis computes.
type FailureClass struct {
	RepositoryID int64
	ID           string
	WorkflowID   int64
	WorkflowPath string
	Step         string
	Signature    string
	FirstSeen    time.Time
	LastSeen     time.Time
	Count        int
	Pattern      string // history.Intermittent or history.Persistent
	Verdict      string // history verdict kind
	Muted        bool   // muted with "@polylane mute"
	MuteReason   string // the reason given with the command
	// MutedInConfig is set when the repository's .github/polylane.yml in
	// effect at its last published diagnosis mutes the class
	// (SetConfigMutes), with the reason the file gives.
	MutedInConfig    bool
	ConfigMuteReason string
	UpdatedAt        time.Time // set by the store
	// Detail is the class as the history stage computed it (a
	// history.Class JSON document with its runs and members), which the next
	// diagnosis of the workflow passes back to keep class ids stable; empty
	// when not kept.
	Detail json.RawMessage
}

// Diagnosis is the stored polylane.diagnosis/v1 document of one run attempt.
type Diagnosis struct {
	ID           int64 // assigned by the store
	RepositoryID int64
	RunID        int64
	Attempt      int
	Document     json.RawMessage
	Verdict      string
	ClassID      string
	CreatedAt    time.Time // set by the store when zero
	Stale        bool      // newer evidence exists; re-diagnose before trusting it
}

// Key returns the key of the diagnosed run attempt.
func (d Diagnosis) Key() RunKey {
	return RunKey{RepositoryID: d.RepositoryID, RunID: d.RunID, Attempt: d.Attempt}
}

// Comment kinds.
const (
	CommentDiagnosis = "diagnosis" // the sticky diagnosis comment on a pull request
	CommentReply     = "reply"     // the answer to an @polylane mention
)

// PublishedComment is a comment Polylane wrote on an issue or pull request;
// there is at most one per (repository, number, kind).
type PublishedComment struct {
	RepositoryID int64
	Number       int
	Kind         string
	CommentID    int64 // GitHub's comment id
	DiagnosisID  int64 // 0 when the comment is not tied to a diagnosis
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// Fix pull request states.
const (
	FixOpen   = "open"
	FixClosed = "closed"
	FixMerged = "merged"
)

// FixPullRequest is the pull request Polylane opened to fix a failure class;
// there is at most one per (repository, class).
type FixPullRequest struct {
	RepositoryID int64
	ClassID      string
	Number       int
	Branch       string
	State        string
	HeadSHA      string
	CreatedAt    time.Time // set by the store when zero
	UpdatedAt    time.Time
	ClosedAt     time.Time // optional
}

// CacheEntry is one entry of the GitHub response cache: a conditional
// request's validator with the body it validated, a tree by commit, a blob by
// object name. Keys are chosen by the caller and namespaced by repository.
type CacheEntry struct {
	Key       string
	ETag      string // the validator to send as If-None-Match; may be empty
	Body      []byte
	UpdatedAt time.Time // set by the store
}

// FixVerificationRun is one completed attempt of one of the repository's
// workflows on a fix pull request's branch; there is at most one per
// (repository, run, attempt), so a redelivered workflow_run rewrites it.
type FixVerificationRun struct {
	RepositoryID int64
	ClassID      string // the class the fix pull request fixes
	RunID        int64
	Attempt      int
	WorkflowID   int64
	WorkflowName string
	HeadSHA      string
	Conclusion   string // GitHub's conclusion: success, failure, cancelled...
	// FailedJob, Cause and FailureClass are the analysis of a failed run:
	// the failing job, the cause line of its log and the class it fell in.
	FailedJob    string
	Cause        string
	FailureClass string
	// InClass is set when the run failed in the fixed class's way: it
	// refutes the fix.
	InClass     bool
	CompletedAt time.Time
	UpdatedAt   time.Time // set by the store
}

// FixVerification is what Polylane did to verify a fix pull request: the
// reruns of the failing job it asked for, and why GitHub refused one.
type FixVerification struct {
	RepositoryID int64
	ClassID      string
	Reruns       int
	Refused      string // GitHub's refusal of a rerun; no further rerun is asked
	LastRerunAt  time.Time
	UpdatedAt    time.Time // set by the store
}

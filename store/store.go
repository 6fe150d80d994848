package store

import (
	"context"
	"time"

	"github.com/riverqueue/river"
)

// Store is Polylane's storage: records, migrations and the job queue. Each
// exported method runs in one transaction of its own. Store is the one large
// interface of the code base because it has two implementations
// (store/sqlite, store/postgres) held to one conformance suite
// (store/storetest); consumers declare the few methods they need.
type Store interface {
	Lifecycle
	Queue
	Accounts
	Deliveries
	Runs
	Failures
	Publications
	Dashboard
	Cache
	Locks
	Conversations
	Sessions
}

// Sessions stores the dashboard's sign-ins, so that signing out ends a
// session on the server, for every replica, and not only in the browser.
type Sessions interface {
	// CreateSession stores a session and deletes those that expired
	// before its CreatedAt.
	CreateSession(ctx context.Context, s DashboardSession) error
	// GetSession reads a session by id (ErrNotFound when there is none).
	GetSession(ctx context.Context, id []byte) (DashboardSession, error)
	// DeleteSession deletes a session; deleting one that is gone is not an
	// error.
	DeleteSession(ctx context.Context, id []byte) error
}

// Lifecycle is the connection, schema and health side of a Store.
type Lifecycle interface {
	// Backend names the database: "sqlite" or "postgres".
	Backend() string
	// Ping checks that the database answers.
	Ping(ctx context.Context) error
	// Migrate applies Polylane's and River's pending migrations.
	Migrate(ctx context.Context) (MigrationReport, error)
	// CheckMigrations returns nil when every known migration is applied, and
	// otherwise an error that says what is missing. It never writes.
	CheckMigrations(ctx context.Context) error
	// Close stops the queue if it runs and releases the database.
	Close() error
}

// MigrationReport says what Migrate found and did.
type MigrationReport struct {
	SchemaVersion int64 // Polylane schema version after the run
	SchemaApplied int   // Polylane migrations applied by this run
	QueueVersion  int   // River schema version after the run
	QueueApplied  int   // River migrations applied by this run
}

// Job is a queued job to insert with River: its arguments and options.
type Job struct {
	Args river.JobArgs
	Opts *river.InsertOpts // nil for the defaults of Args
}

// QueueOptions configure the worker side of the queue.
type QueueOptions struct {
	// Workers are the job workers (server/worker registers them).
	Workers *river.Workers
	// MaxWorkers is the number of jobs worked at once on the default queue
	// (0 means 4).
	MaxWorkers int
	// Queues adds named queues with their concurrency besides the default one.
	Queues map[string]int
	// JobTimeout bounds one job's run time (0 means River's default, 1 minute;
	// negative means none).
	JobTimeout time.Duration
	// PollInterval is how often idle workers look for new jobs (0: 1 s).
	PollInterval time.Duration
	// RescueAfter is how long a job may stay running before it is taken for
	// the leftover of a crashed worker and worked again (0: River's default,
	// one hour). It must exceed the longest job timeout.
	RescueAfter time.Duration
	// RetryPolicy says when a failed job runs again (nil: River's default,
	// attempt⁴ seconds with jitter).
	RetryPolicy river.ClientRetryPolicy
}

// QueueStats describe the queue for /readyz and /metrics.
type QueueStats struct {
	// Running reports whether StartQueue succeeded and the workers have not
	// stopped.
	Running bool
	// Jobs counts jobs by River state (available, scheduled, retryable,
	// running, completed, discarded, cancelled, pending).
	Jobs map[string]int64
}

// Depth is the number of jobs waiting to run: available, scheduled or retryable.
func (q QueueStats) Depth() int64 {
	return q.Jobs["available"] + q.Jobs["scheduled"] + q.Jobs["retryable"]
}

// Queue is the River job queue that lives in the same database as the records.
type Queue interface {
	// StartQueue starts working jobs with the given workers. It fails if the
	// queue already runs.
	StartQueue(ctx context.Context, opts QueueOptions) error
	// StopQueue waits for running jobs to finish until ctx is done, then
	// cancels the jobs that are left and returns ctx's error. It is a no-op
	// when the queue does not run.
	StopQueue(ctx context.Context) error
	// QueueStats counts jobs by state.
	QueueStats(ctx context.Context) (QueueStats, error)
	// Enqueue inserts jobs in one transaction: all or none.
	Enqueue(ctx context.Context, jobs ...Job) error
}

// Accounts stores installations and repositories.
type Accounts interface {
	UpsertInstallation(ctx context.Context, in Installation) error
	GetInstallation(ctx context.Context, id int64) (Installation, error)
	UpsertRepository(ctx context.Context, r Repository) error
	GetRepository(ctx context.Context, id int64) (Repository, error)
	// GetRepositoryByName finds a repository by "owner/name", ignoring case,
	// preferring one that is not removed.
	GetRepositoryByName(ctx context.Context, fullName string) (Repository, error)
	// ListRepositories lists the repositories of an installation (0: all), by
	// full name.
	ListRepositories(ctx context.Context, installationID int64) ([]Repository, error)
}

// Deliveries stores webhook deliveries.
type Deliveries interface {
	// RecordDelivery stores a delivery and enqueues its job in one
	// transaction. A delivery whose GUID, or whose BodyHash, is already
	// stored is left alone: duplicate is true and nothing is enqueued. If enqueueing fails, the
	// delivery is not stored either. When the job is unique and an equal job
	// exists, the delivery is stored as DeliveryIgnored with an explanation.
	RecordDelivery(ctx context.Context, d Delivery, args river.JobArgs, opts *river.InsertOpts) (duplicate bool, err error)
	// RecordDeliveries records several deliveries with their jobs in one
	// transaction (group commit), each as RecordDelivery would, and returns
	// which were duplicates. It is all or nothing: on error none is stored,
	// and the caller may record them one by one.
	RecordDeliveries(ctx context.Context, batch []DeliveryJob) (duplicates []bool, err error)
	// DeliveryRecorded reports whether a delivery with this GUID, or with
	// this body hash (when not empty), is stored: the webhook asks before
	// it applies an event that changes records outside the delivery's own
	// transaction.
	DeliveryRecorded(ctx context.Context, guid string, bodyHash []byte) (bool, error)
	GetDelivery(ctx context.Context, guid string) (Delivery, error)
	// FailedDeliveries lists a repository's deliveries in the failed state,
	// the most recently updated first, at most limit, without payloads.
	FailedDeliveries(ctx context.Context, repositoryID int64, limit int) ([]Delivery, error)
	// SetDeliveryState moves a delivery to a state, with an error text for
	// DeliveryFailed (empty otherwise).
	SetDeliveryState(ctx context.Context, guid, state, errText string) error
}

// Runs stores workflow runs with their jobs and steps.
type Runs interface {
	// UpsertRun inserts a run attempt or updates its mutable fields.
	UpsertRun(ctx context.Context, r WorkflowRun) error
	// UpsertRuns upserts several run attempts in one transaction (a page of
	// a run listing).
	UpsertRuns(ctx context.Context, runs []WorkflowRun) error
	GetRun(ctx context.Context, key RunKey) (WorkflowRun, error)
	// ListRuns lists run attempts newest first (created_at, run id, attempt).
	ListRuns(ctx context.Context, q RunQuery) (RunPage, error)
	// PutJobs replaces the jobs and steps of a run attempt.
	PutJobs(ctx context.Context, key RunKey, jobs []WorkflowJob) error
	// ListJobs returns the jobs of a run attempt by id, steps by number.
	ListJobs(ctx context.Context, key RunKey) ([]WorkflowJob, error)
}

// Failures stores failure occurrences and failure classes.
type Failures interface {
	// PutOccurrences replaces the occurrences of a run attempt.
	PutOccurrences(ctx context.Context, key RunKey, occ []Occurrence) error
	// ListOccurrences lists occurrences newest first.
	ListOccurrences(ctx context.Context, q OccurrenceQuery) ([]Occurrence, error)
	// UpsertClass inserts a class or updates its statistics, keeping Muted
	// and MuteReason as they are stored.
	UpsertClass(ctx context.Context, c FailureClass) error
	GetClass(ctx context.Context, repositoryID int64, id string) (FailureClass, error)
	// ListClasses lists the classes of a repository, most recently seen first.
	ListClasses(ctx context.Context, q ClassQuery) ([]FailureClass, error)
	// MuteClass mutes (or unmutes) a class with a reason.
	MuteClass(ctx context.Context, repositoryID int64, id string, muted bool, reason string) error
	// SetConfigMutes records which classes of a repository its
	// configuration mutes (class id to reason): those named are marked
	// MutedInConfig, every other class of the repository is cleared. A
	// class not stored yet is skipped. Command mutes are left as they are.
	SetConfigMutes(ctx context.Context, repositoryID int64, muted map[string]string) error
}

// Publications stores diagnoses and what Polylane published on GitHub.
type Publications interface {
	// PutDiagnosis stores the diagnosis of a run attempt, replacing an earlier
	// one (and clearing Stale), and enqueues jobs in the same transaction. It
	// returns the diagnosis id, which stays the same across replacements.
	PutDiagnosis(ctx context.Context, d Diagnosis, jobs ...Job) (int64, error)
	GetDiagnosis(ctx context.Context, key RunKey) (Diagnosis, error)
	GetDiagnosisByID(ctx context.Context, id int64) (Diagnosis, error)
	// MarkDiagnosesStale flags the diagnoses of a class as stale and returns
	// how many changed.
	MarkDiagnosesStale(ctx context.Context, repositoryID int64, classID string) (int64, error)
	UpsertComment(ctx context.Context, c PublishedComment) error
	GetComment(ctx context.Context, repositoryID int64, number int, kind string) (PublishedComment, error)
	UpsertFixPullRequest(ctx context.Context, p FixPullRequest) error
	GetFixPullRequest(ctx context.Context, repositoryID int64, classID string) (FixPullRequest, error)
	// ListFixPullRequests lists a repository's fix pull requests, newest first.
	ListFixPullRequests(ctx context.Context, repositoryID int64) ([]FixPullRequest, error)
	// PutFixVerificationRun records a run attempt on a fix branch and
	// reports whether the stored record changed (a redelivery changes
	// nothing). The class's fix pull request must be recorded.
	PutFixVerificationRun(ctx context.Context, r FixVerificationRun) (changed bool, err error)
	// ListFixVerificationRuns lists the runs recorded for a class's fix,
	// oldest run first.
	ListFixVerificationRuns(ctx context.Context, repositoryID int64, classID string) ([]FixVerificationRun, error)
	// GetFixVerification reads a fix's verification state; a fix without
	// one reads as the zero state, not ErrNotFound.
	GetFixVerification(ctx context.Context, repositoryID int64, classID string) (FixVerification, error)
	PutFixVerification(ctx context.Context, v FixVerification) error
}

// Cache keeps GitHub responses the history cache reuses: validators of
// conditional listings, trees by commit, blobs by object name.
type Cache interface {
	// GetCacheEntry reads an entry; ErrNotFound when there is none.
	GetCacheEntry(ctx context.Context, key string) (CacheEntry, error)
	// PutCacheEntry stores an entry, replacing the one of the same key.
	PutCacheEntry(ctx context.Context, e CacheEntry) error
	// PruneCache deletes the entries not written since before and returns
	// how many went.
	PruneCache(ctx context.Context, before time.Time) (int64, error)
}

// Locks serialise work across workers and replicas.
type Locks interface {
	// LockRepository waits until no other holder has the repository's lock
	// (or ctx is done) and takes it. release gives it back and must be
	// called exactly once. PostgreSQL holds a session advisory lock, so the
	// lock spans replicas and goes with a crashed process; SQLite holds a
	// lock inside this Store value, enough for its single process.
	LockRepository(ctx context.Context, repositoryID int64) (release func(), err error)
}

// RunQuery selects run attempts; zero fields do not filter.
type RunQuery struct {
	RepositoryID int64
	WorkflowID   int64
	Branch       string
	Conclusion   string
	Limit        int        // page size; 0 means 50, capped at 500
	After        *RunCursor // continue after this position (from RunPage.Next)
}

// RunPage is one page of run history.
type RunPage struct {
	Runs []WorkflowRun
	// Next is where the following page starts; nil on the last page.
	Next *RunCursor
}

// OccurrenceQuery selects failure occurrences of one repository.
type OccurrenceQuery struct {
	RepositoryID int64
	ClassID      string // optional
	WorkflowID   int64  // optional
	Since        time.Time
	Limit        int // 0 means 200, capped at 5000
}

// ClassQuery selects failure classes of one repository.
type ClassQuery struct {
	RepositoryID int64
	WorkflowID   int64 // optional
	IncludeMuted bool  // false leaves out classes muted either way

	Limit int // 0 means 200, capped at 5000
}

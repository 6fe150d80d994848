package store

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Dashboard holds the read models of the web dashboard: per-day run counts
// and the workflows seen, which the database keeps current by itself
// (triggers on workflow_runs), and the pages of history the dashboard lists.
// Every method only reads.
type Dashboard interface {
	// ListWorkflows lists the workflows that ran in the given repositories,
	// by repository, then workflow name and id.
	ListWorkflows(ctx context.Context, repositoryIDs []int64) ([]WorkflowSummary, error)
	// RunDays counts run attempts per UTC day, workflow and conclusion.
	RunDays(ctx context.Context, q DayQuery) ([]RunDay, error)
	// OutcomeDays sums RunDays per day and workflow into all, succeeded
	// (conclusion success) and failed (failure, timed_out, startup_failure)
	// run attempts.
	OutcomeDays(ctx context.Context, q DayQuery) ([]OutcomeDay, error)
	// ClassDays counts failed run attempts per UTC day, workflow and failure
	// class. A run attempt counts once, for the class of its first failing
	// step (lowest job id, then step number). With DayQuery.ClassID it counts
	// the run attempts in which that class occurred at any step.
	ClassDays(ctx context.Context, q DayQuery) ([]ClassDay, error)
	// ClassRunCounts counts, per workflow and class, the run attempts of the
	// window's days in which the class occurred (at any step).
	ClassRunCounts(ctx context.Context, q DayQuery) ([]ClassRunCount, error)
	// TopClasses returns, per workflow, the class of ClassRunCounts with the
	// most run attempts (ties: the lowest class id); the class "" (not
	// recorded) never tops.
	TopClasses(ctx context.Context, q DayQuery) ([]ClassRunCount, error)
	// ListDiagnosisSummaries lists diagnoses newest first, one page at a time.
	ListDiagnosisSummaries(ctx context.Context, q DiagnosisQuery) (DiagnosisPage, error)
	// ListOccurrencePage lists occurrences newest first, one page at a time.
	ListOccurrencePage(ctx context.Context, q OccurrencePageQuery) (OccurrencePage, error)
}

// WorkflowSummary is a workflow that ran in a repository, named as its most
// recent run names it.
type WorkflowSummary struct {
	RepositoryID int64
	WorkflowID   int64
	Name         string
	Path         string
	LastRunAt    time.Time
}

// DayQuery selects per-day counts of some repositories in the window
// [From, To); zero fields other than RepositoryIDs do not filter. Days are
// the UTC calendar days of the runs' created_at; a day counts when it starts
// inside the window.
type DayQuery struct {
	RepositoryIDs []int64 // required; at most 1000
	WorkflowID    int64
	ClassID       string // ClassDays and ClassRunCounts only
	From, To      time.Time
}

// RunDay is the number of run attempts of one workflow that were created on
// one UTC day and concluded one way ("" while a run is not completed).
type RunDay struct {
	RepositoryID int64
	WorkflowID   int64
	Day          time.Time // midnight UTC
	Conclusion   string
	Runs         int
}

// OutcomeDay is the number of run attempts of one workflow created on one
// UTC day, and how many of them succeeded and failed.
type OutcomeDay struct {
	RepositoryID int64
	WorkflowID   int64
	Day          time.Time
	Runs         int
	Succeeded    int
	Failed       int
}

// ClassDay is the number of failed run attempts of one workflow on one UTC
// day whose first failing step belongs to one class.
type ClassDay struct {
	RepositoryID int64
	WorkflowID   int64
	Day          time.Time
	ClassID      string
	Runs         int
}

// ClassRunCount is the number of run attempts of one workflow in which a
// class occurred, with the day of the last one and, when the class is
// stored, its step, signature and verdict.
type ClassRunCount struct {
	RepositoryID int64
	WorkflowID   int64
	ClassID      string
	Runs         int
	LastDay      time.Time // midnight UTC
	Step         string
	Signature    string
	Verdict      string
}

// DiagnosisQuery selects diagnoses of one repository, optionally of one class.
type DiagnosisQuery struct {
	RepositoryID int64
	ClassID      string
	Limit        int // page size; 0 means 20, capped at 200
	After        *DiagnosisCursor
}

// DiagnosisSummary is a diagnosis without its document, with the run it
// diagnoses.
type DiagnosisSummary struct {
	ID           int64
	RepositoryID int64
	RunID        int64
	Attempt      int
	Verdict      string
	ClassID      string
	CreatedAt    time.Time
	Stale        bool
	WorkflowID   int64
	WorkflowName string
	RunNumber    int
	Branch       string
	RunCreatedAt time.Time
}

// DiagnosisPage is one page of diagnoses.
type DiagnosisPage struct {
	Diagnoses []DiagnosisSummary
	Next      *DiagnosisCursor // nil on the last page
}

// DiagnosisCursor is the last diagnosis of a page: pages are ordered by
// (CreatedAt, ID) descending.
type DiagnosisCursor struct {
	CreatedAt time.Time
	ID        int64
}

// OccurrencePageQuery selects occurrences of one repository, optionally of
// one class.
type OccurrencePageQuery struct {
	RepositoryID int64
	ClassID      string
	Limit        int // page size; 0 means 50, capped at 500
	After        *OccurrenceCursor
}

// OccurrencePage is one page of occurrences.
type OccurrencePage struct {
	Occurrences []Occurrence
	Next        *OccurrenceCursor // nil on the last page
}

// OccurrenceCursor is the last occurrence of a page: pages are ordered by
// (OccurredAt, RunID, Attempt, JobID, StepNumber) descending.
type OccurrenceCursor struct {
	OccurredAt time.Time
	RunID      int64
	Attempt    int
	JobID      int64
	StepNumber int
}

// String encodes the cursor as an opaque URL-safe token.
func (c DiagnosisCursor) String() string {
	return encodeCursor(c.CreatedAt.UnixMicro(), c.ID)
}

// ParseDiagnosisCursor decodes a token made by DiagnosisCursor.String.
func ParseDiagnosisCursor(token string) (DiagnosisCursor, error) {
	n, err := decodeCursor(token, 2)
	if err != nil {
		return DiagnosisCursor{}, fmt.Errorf("diagnosis cursor: %w", err)
	}
	return DiagnosisCursor{CreatedAt: time.UnixMicro(n[0]).UTC(), ID: n[1]}, nil
}

// String encodes the cursor as an opaque URL-safe token.
func (c OccurrenceCursor) String() string {
	return encodeCursor(c.OccurredAt.UnixMicro(), c.RunID, int64(c.Attempt), c.JobID, int64(c.StepNumber))
}

// ParseOccurrenceCursor decodes a token made by OccurrenceCursor.String.
func ParseOccurrenceCursor(token string) (OccurrenceCursor, error) {
	n, err := decodeCursor(token, 5)
	if err != nil {
		return OccurrenceCursor{}, fmt.Errorf("occurrence cursor: %w", err)
	}
	if n[2] < 0 || n[2] > 1<<31-1 || n[4] < 0 || n[4] > 1<<31-1 {
		return OccurrenceCursor{}, fmt.Errorf("occurrence cursor %q: %w", token, ErrInvalid)
	}
	return OccurrenceCursor{OccurredAt: time.UnixMicro(n[0]).UTC(), RunID: n[1], Attempt: int(n[2]),
		JobID: n[3], StepNumber: int(n[4])}, nil
}

// encodeCursor joins numbers with dots and encodes them as base64url.
func encodeCursor(nums ...int64) string {
	parts := make([]string, len(nums))
	for i, n := range nums {
		parts[i] = strconv.FormatInt(n, 10)
	}
	return base64.RawURLEncoding.EncodeToString([]byte(strings.Join(parts, ".")))
}

// decodeCursor reverses encodeCursor, wanting exactly n numbers.
func decodeCursor(token string, n int) ([]int64, error) {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) > 128 {
		return nil, fmt.Errorf("token %q: %w", token, ErrInvalid)
	}
	parts := strings.Split(string(raw), ".")
	if len(parts) != n {
		return nil, fmt.Errorf("token %q: %w", token, ErrInvalid)
	}
	nums := make([]int64, n)
	for i, p := range parts {
		v, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("token %q: %w", token, ErrInvalid)
		}
		nums[i] = v
	}
	return nums, nil
}

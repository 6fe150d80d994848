// Package gha holds GitHub Actions' wire types: runs, jobs and steps with
// the fields of GitHub's REST representation that Polylane uses, so that an
// API listing or a scenario directory unmarshals into them directly. It is a
// leaf: it imports nothing of Polylane, and every layer may use it.
package gha

import "time"

// Run is one workflow run (one attempt of it), with the fields of GitHub's REST
// representation that Polylane uses. JSON names match GitHub's, so a run listing
// from the API or a scenario directory unmarshals into it directly.
type Run struct {
	ID           int64         `json:"id"`
	Name         string        `json:"name,omitempty"`
	RunNumber    int           `json:"run_number"`
	RunAttempt   int           `json:"run_attempt"`
	WorkflowID   int64         `json:"workflow_id,omitempty"`
	Path         string        `json:"path,omitempty"`
	HeadSHA      string        `json:"head_sha"`
	HeadBranch   string        `json:"head_branch"`
	Event        string        `json:"event"`
	Status       string        `json:"status"`
	Conclusion   string        `json:"conclusion"`
	DisplayTitle string        `json:"display_title,omitempty"`
	HTMLURL      string        `json:"html_url,omitempty"`
	CreatedAt    time.Time     `json:"created_at"`
	UpdatedAt    time.Time     `json:"updated_at,omitzero"`
	RunStartedAt time.Time     `json:"run_started_at,omitzero"`
	HeadCommit   *HeadCommit   `json:"head_commit,omitempty"`
	PullRequests []PullRequest `json:"pull_requests,omitempty"`
	Actor        *Account      `json:"actor,omitempty"`
	// HeadRepository is the repository the head commit came from: a fork
	// for a fork's pull request. Nil when the listing did not say.
	HeadRepository *Repository `json:"head_repository,omitempty"`
}

// Repository identifies a repository by GitHub id and owner/name.
type Repository struct {
	ID       int64  `json:"id"`
	FullName string `json:"full_name,omitempty"`
}

// HeadCommit is the commit a run was started for.
type HeadCommit struct {
	ID        string    `json:"id"`
	Message   string    `json:"message,omitempty"`
	Timestamp time.Time `json:"timestamp,omitzero"`
}

// PullRequest is the short pull-request reference GitHub embeds in a run.
type PullRequest struct {
	ID     int64          `json:"id,omitempty"`
	Number int            `json:"number"`
	Head   PullRequestRef `json:"head"`
	Base   PullRequestRef `json:"base"`
}

// PullRequestRef is one side (head or base) of a pull request.
type PullRequestRef struct {
	Ref  string  `json:"ref"`
	SHA  string  `json:"sha"`
	Repo RepoRef `json:"repo"`
}

// RepoRef identifies a repository inside a pull-request reference.
type RepoRef struct {
	ID   int64  `json:"id"`
	Name string `json:"name,omitempty"`
}

// Account is a GitHub user or bot.
type Account struct {
	Login string `json:"login"`
	Type  string `json:"type,omitempty"`
}

// Completed reports whether the run has finished.
func (r Run) Completed() bool { return r.Status == "completed" }

// Failed reports whether the run finished with a conclusion other than success.
// Skipped and neutral runs are not failures.
func (r Run) Failed() bool {
	switch r.Conclusion {
	case "success", "skipped", "neutral", "":
		return false
	}
	return r.Completed()
}

// Job is one job of a run attempt, as GitHub's jobs API describes it.
type Job struct {
	ID          int64     `json:"id"`
	RunID       int64     `json:"run_id"`
	RunAttempt  int       `json:"run_attempt,omitempty"`
	Name        string    `json:"name"`
	HeadSHA     string    `json:"head_sha,omitempty"`
	Status      string    `json:"status"`
	Conclusion  string    `json:"conclusion"`
	HTMLURL     string    `json:"html_url,omitempty"`
	StartedAt   time.Time `json:"started_at,omitzero"`
	CompletedAt time.Time `json:"completed_at,omitzero"`
	Steps       []Step    `json:"steps"`
}

// Step is one step of a job as the jobs API reports it. Numbers are not
// contiguous: post steps get high numbers.
type Step struct {
	Number      int       `json:"number"`
	Name        string    `json:"name"`
	Status      string    `json:"status"`
	Conclusion  string    `json:"conclusion"`
	StartedAt   time.Time `json:"started_at,omitzero"`
	CompletedAt time.Time `json:"completed_at,omitzero"`
}

// Commit is one commit of a compared range with the paths it changed, as
// GitHub's compare and commit endpoints list them.
type Commit struct {
	SHA     string   `json:"sha"`
	Parents []string `json:"parents,omitempty"`
	Message string   `json:"message"`
	HTMLURL string   `json:"html_url,omitempty"`
	// Files are the paths the commit changed; nil when they were not read.
	Files []string `json:"files"`
}

package worker

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/polylane/polylane/analysis/gha"

	"github.com/riverqueue/river"
)

// Job kinds besides webhook.KindDiagnose.
const (
	KindPublish = "polylane_publish"
	KindFix     = "polylane_fix_pr"
)

// PublishArgs publishes the stored diagnosis of one run attempt: the sticky comment
// on its pull request, the regression comment, and the fix pull request job.
// River keeps one per (repository, run, attempt).
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
func (PublishArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 8, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// FixArgs opens or updates the fix pull request of a failure class from the
// diagnosis of one run attempt. River keeps one per (repository, class, run, attempt).
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
func (FixArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 8, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// runPayload is what the worker reads from a workflow_run delivery.
type runPayload struct {
	Run        gha.Run
	HeadOwner  string // owner of the head repository (a fork for fork PRs)
	Triggerer  string // triggering_actor login
	Workflow   workflowRef
	Repository repoRef
}

type workflowRef struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	Path string `json:"path"`
}

type repoRef struct {
	ID            int64  `json:"id"`
	FullName      string `json:"full_name"`
	DefaultBranch string `json:"default_branch"`
	HTMLURL       string `json:"html_url"`
}

// parseRunPayload reads a workflow_run delivery.
func parseRunPayload(payload []byte) (*runPayload, error) {
	var env struct {
		Run        json.RawMessage `json:"workflow_run"`
		Workflow   workflowRef     `json:"workflow"`
		Repository repoRef         `json:"repository"`
	}
	if err := json.Unmarshal(payload, &env); err != nil {
		return nil, fmt.Errorf("parse workflow_run delivery: %w", err)
	}
	p := &runPayload{Workflow: env.Workflow, Repository: env.Repository}
	if err := json.Unmarshal(env.Run, &p.Run); err != nil {
		return nil, fmt.Errorf("parse workflow_run delivery: run: %w", err)
	}
	var extra struct {
		HeadRepository *struct {
			Owner gha.Account `json:"owner"`
		} `json:"head_repository"`
		TriggeringActor *gha.Account `json:"triggering_actor"`
	}
	_ = json.Unmarshal(env.Run, &extra) // optional fields: absent is fine
	if extra.HeadRepository != nil {
		p.HeadOwner = extra.HeadRepository.Owner.Login
	}
	if extra.TriggeringActor != nil {
		p.Triggerer = extra.TriggeringActor.Login
	}
	if p.Workflow.ID == 0 {
		p.Workflow.ID = p.Run.WorkflowID
	}
	if p.Workflow.Path == "" {
		p.Workflow.Path, _, _ = strings.Cut(p.Run.Path, "@")
	}
	if p.Run.ID <= 0 || p.Repository.ID <= 0 || p.Repository.FullName == "" {
		return nil, fmt.Errorf("parse workflow_run delivery: no run or repository")
	}
	if p.Run.RunAttempt < 1 {
		p.Run.RunAttempt = 1
	}
	return p, nil
}

// pullRequestEvent reports the events of pull requests.
func pullRequestEvent(event string) bool { return strings.HasPrefix(event, "pull_request") }

// loopGuarded reports a run Polylane itself caused: one on a polylane/
// branch, or started by the app's bot. Such runs never start a fix pull
// request.
func (p *runPayload) loopGuarded(bot string) bool {
	if strings.HasPrefix(p.Run.HeadBranch, "polylane/") {
		return true
	}
	if bot == "" {
		return false
	}
	actor := ""
	if p.Run.Actor != nil {
		actor = p.Run.Actor.Login
	}
	return strings.EqualFold(actor, bot) || strings.EqualFold(p.Triggerer, bot)
}

package worker

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/polylane/polylane/analysis/gha"
)

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

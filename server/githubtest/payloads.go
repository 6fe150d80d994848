package githubtest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// marshalEvent makes an Event from a payload map.
func marshalEvent(name string, payload map[string]any) (Event, error) {
	b, err := json.Marshal(payload)
	if err != nil {
		return Event{}, fmt.Errorf("build %s payload: %w", name, err)
	}
	return Event{Name: name, Payload: b}, nil
}

// installationLite is the {id, node_id} object app deliveries carry.
func installationLite(id int64) map[string]any {
	return map[string]any{"id": id, "node_id": nodeID("MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9u", id)}
}

// repoPayload adds repository, organization and installation to a
// payload. Callers hold s.mu.
func (s *Server) repoPayload(repo *repoState, payload map[string]any) map[string]any {
	payload["repository"] = s.repoJSON(repo)
	if repo.installationID != 0 {
		payload["installation"] = installationLite(repo.installationID)
	}
	if orDefault(repo.ownerType, "Organization") == "Organization" {
		api := s.APIURL() + "orgs/" + repo.owner
		payload["organization"] = map[string]any{"login": repo.owner, "id": repo.ownerID,
			"node_id": nodeID("O_kgDO", repo.ownerID), "url": api, "repos_url": api + "/repos",
			"events_url": api + "/events", "hooks_url": api + "/hooks", "issues_url": api + "/issues",
			"members_url": api + "/members{/member}", "public_members_url": api + "/public_members{/member}",
			"avatar_url": "https://avatars.githubusercontent.com/u/" + itoa(repo.ownerID) + "?v=4", "description": ""}
	}
	return payload
}

// WorkflowRunEvent builds the workflow_run delivery of a run: action
// "completed" for a completed run ("requested" or "in_progress" otherwise),
// the stored run object with its pull_requests, the workflow, repository,
// organization, sender (the run's triggering actor) and installation.
func (s *Server) WorkflowRunEvent(repoName string, runID int64) (Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	repo, err := s.lookupRepo(repoName)
	if err != nil {
		return Event{}, err
	}
	ru := repo.runByID[runID]
	if ru == nil {
		return Event{}, fmt.Errorf("run %d of %s is not known", runID, repoName)
	}
	action := "completed"
	switch ru.fields.Status {
	case "completed":
	case "in_progress":
		action = "in_progress"
	default:
		action = "requested"
	}
	var actors struct {
		Actor     json.RawMessage `json:"actor"`
		Triggerer json.RawMessage `json:"triggering_actor"`
	}
	_ = json.Unmarshal(ru.raw, &actors)
	sender := actors.Triggerer
	if len(sender) == 0 || string(sender) == "null" {
		sender = actors.Actor
	}
	payload := map[string]any{"action": action, "workflow_run": ru.raw, "sender": sender}
	if wf := repo.workflows[ru.fields.WorkflowID]; wf != nil {
		payload["workflow"] = s.workflowJSON(repo, wf)
	}
	return marshalEvent("workflow_run", s.repoPayload(repo, payload))
}

// IssueCommentEvent builds an issue_comment delivery ("created", "edited"
// or "deleted") for a stored comment. sender is who acted; empty means the
// comment's author. An "edited" event carries changes.body.from, the body
// before the last edit.
func (s *Server) IssueCommentEvent(action, repoName string, commentID int64, sender string) (Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	repo, err := s.lookupRepo(repoName)
	if err != nil {
		return Event{}, err
	}
	c := repo.commentByID[commentID]
	if c == nil {
		return Event{}, fmt.Errorf("comment %d of %s is not known", commentID, repoName)
	}
	by := c.User
	if sender != "" && !strings.EqualFold(sender, c.User.Login) {
		u := s.ensureUser(sender)
		by = account{Login: u.Login, ID: u.ID, Type: "User"}
	}
	payload := map[string]any{"action": action, "issue": s.issueJSON(repo, c.Number),
		"comment": s.commentJSON(repo, c), "sender": s.accountJSON(by)}
	if action == "edited" {
		payload["changes"] = map[string]any{"body": map[string]any{"from": c.PrevBody}}
	}
	return marshalEvent("issue_comment", s.repoPayload(repo, payload))
}

// PullRequestEvent builds a pull_request delivery ("opened",
// "synchronize", "closed", …). For "synchronize", before is the previous
// head SHA and after the current one.
func (s *Server) PullRequestEvent(action, repoName string, number int, before string) (Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	repo, err := s.lookupRepo(repoName)
	if err != nil {
		return Event{}, err
	}
	p := repo.pulls[number]
	if p == nil {
		return Event{}, fmt.Errorf("pull request #%d of %s is not known", number, repoName)
	}
	pr := s.pullJSON(repo, p)
	payload := map[string]any{"action": action, "number": number, "pull_request": pr, "sender": s.accountJSON(p.User)}
	if action == "synchronize" {
		payload["before"], payload["after"] = before, p.HeadSHA
	}
	return marshalEvent("pull_request", s.repoPayload(repo, payload))
}

// repoLite is the short repository object installation events list.
// Callers hold s.mu.
func repoLite(repo *repoState) map[string]any {
	return map[string]any{"id": repo.id, "node_id": nodeID("R_kgDO", repo.id), "name": repo.name,
		"full_name": repo.fullName(), "private": repo.private}
}

// InstallationEvent builds an installation delivery ("created",
// "deleted", "suspend", …) listing the installation's repositories.
func (s *Server) InstallationEvent(action string, installationID int64) (Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	inst := s.installations[installationID]
	if inst == nil {
		return Event{}, fmt.Errorf("installation %d is not known", installationID)
	}
	repos := []map[string]any{}
	for _, k := range inst.Repos {
		repos = append(repos, repoLite(s.repos[k]))
	}
	sender := s.accountJSON(account{Login: s.opts.OAuthUser, ID: s.ensureUser(s.opts.OAuthUser).ID, Type: "User"})
	return marshalEvent("installation", map[string]any{"action": action, "installation": s.installationJSON(inst),
		"repositories": repos, "requester": nil, "sender": sender})
}

// InstallationRepositoriesEvent builds an installation_repositories
// delivery ("added" or "removed") for the named repositories. It does not
// change the installation; use SetInstallation for that.
func (s *Server) InstallationRepositoriesEvent(action string, installationID int64, repoNames ...string) (Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	inst := s.installations[installationID]
	if inst == nil {
		return Event{}, fmt.Errorf("installation %d is not known", installationID)
	}
	list := []map[string]any{}
	for _, name := range repoNames {
		repo, err := s.lookupRepo(name)
		if err != nil {
			return Event{}, err
		}
		list = append(list, repoLite(repo))
	}
	added, removed := list, []map[string]any{}
	if action == "removed" {
		added, removed = removed, list
	}
	sender := s.accountJSON(account{Login: s.opts.OAuthUser, ID: s.ensureUser(s.opts.OAuthUser).ID, Type: "User"})
	return marshalEvent("installation_repositories", map[string]any{"action": action,
		"installation": s.installationJSON(inst), "repository_selection": "selected",
		"repositories_added": added, "repositories_removed": removed, "requester": nil, "sender": sender})
}

// PingEvent builds the ping GitHub sends when the app's hook is created.
func (s *Server) PingEvent() (Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	created := ts(s.app.createdAt)
	hook := map[string]any{"type": "App", "id": s.hookID(), "name": "web", "active": true, "events": appEvents,
		"config":     map[string]any{"content_type": "json", "insecure_ssl": "0", "url": s.app.hookURL},
		"updated_at": created, "created_at": created, "app_id": s.app.ID,
		"deliveries_url": s.APIURL() + "app/hook/deliveries"}
	return marshalEvent("ping", map[string]any{"zen": "Keep it logically awesome.", "hook_id": s.hookID(), "hook": hook})
}

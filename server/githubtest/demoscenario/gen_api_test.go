package demoscenario

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// The REST objects of the scenario, with GitHub's field names in GitHub's
// order. Runs and jobs carry the fields Polylane and the simulator read and
// the usual URLs; rarely used URL templates are left out to keep the data
// small.

const apiBase = "https://api.github.com/repos/" + fullName

type apiUser struct {
	Login     string `json:"login"`
	ID        int64  `json:"id"`
	NodeID    string `json:"node_id"`
	AvatarURL string `json:"avatar_url"`
	HTMLURL   string `json:"html_url"`
	Type      string `json:"type"`
	SiteAdmin bool   `json:"site_admin"`
}

type apiRepo struct {
	ID          int64   `json:"id"`
	NodeID      string  `json:"node_id"`
	Name        string  `json:"name"`
	FullName    string  `json:"full_name"`
	Private     bool    `json:"private"`
	Owner       apiUser `json:"owner"`
	HTMLURL     string  `json:"html_url"`
	Description string  `json:"description"`
	Fork        bool    `json:"fork"`
	URL         string  `json:"url"`
}

type apiGitUser struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

type apiCommit struct {
	ID        string     `json:"id"`
	TreeID    string     `json:"tree_id"`
	Message   string     `json:"message"`
	Timestamp string     `json:"timestamp"`
	Author    apiGitUser `json:"author"`
	Committer apiGitUser `json:"committer"`
}

type apiPRRepo struct {
	ID   int64  `json:"id"`
	URL  string `json:"url"`
	Name string `json:"name"`
}

type apiPRSide struct {
	Ref  string    `json:"ref"`
	SHA  string    `json:"sha"`
	Repo apiPRRepo `json:"repo"`
}

type apiPRRef struct {
	URL    string    `json:"url"`
	ID     int64     `json:"id"`
	Number int       `json:"number"`
	Head   apiPRSide `json:"head"`
	Base   apiPRSide `json:"base"`
}

type apiRun struct {
	ID                  int64      `json:"id"`
	Name                string     `json:"name"`
	NodeID              string     `json:"node_id"`
	HeadBranch          string     `json:"head_branch"`
	HeadSHA             string     `json:"head_sha"`
	Path                string     `json:"path"`
	DisplayTitle        string     `json:"display_title"`
	RunNumber           int        `json:"run_number"`
	Event               string     `json:"event"`
	Status              string     `json:"status"`
	Conclusion          string     `json:"conclusion"`
	WorkflowID          int64      `json:"workflow_id"`
	CheckSuiteID        int64      `json:"check_suite_id"`
	CheckSuiteNodeID    string     `json:"check_suite_node_id"`
	URL                 string     `json:"url"`
	HTMLURL             string     `json:"html_url"`
	PullRequests        []apiPRRef `json:"pull_requests"`
	CreatedAt           string     `json:"created_at"`
	UpdatedAt           string     `json:"updated_at"`
	Actor               apiUser    `json:"actor"`
	RunAttempt          int        `json:"run_attempt"`
	ReferencedWorkflows []struct{} `json:"referenced_workflows"`
	RunStartedAt        string     `json:"run_started_at"`
	TriggeringActor     apiUser    `json:"triggering_actor"`
	JobsURL             string     `json:"jobs_url"`
	LogsURL             string     `json:"logs_url"`
	CheckSuiteURL       string     `json:"check_suite_url"`
	ArtifactsURL        string     `json:"artifacts_url"`
	CancelURL           string     `json:"cancel_url"`
	RerunURL            string     `json:"rerun_url"`
	PreviousAttemptURL  *string    `json:"previous_attempt_url"`
	WorkflowURL         string     `json:"workflow_url"`
	HeadCommit          apiCommit  `json:"head_commit"`
	Repository          apiRepo    `json:"repository"`
	HeadRepository      apiRepo    `json:"head_repository"`
}

type apiStep struct {
	Name        string `json:"name"`
	Status      string `json:"status"`
	Conclusion  string `json:"conclusion"`
	Number      int    `json:"number"`
	StartedAt   string `json:"started_at"`
	CompletedAt string `json:"completed_at"`
}

type apiJob struct {
	ID              int64     `json:"id"`
	RunID           int64     `json:"run_id"`
	WorkflowName    string    `json:"workflow_name"`
	HeadBranch      string    `json:"head_branch"`
	RunURL          string    `json:"run_url"`
	RunAttempt      int       `json:"run_attempt"`
	NodeID          string    `json:"node_id"`
	HeadSHA         string    `json:"head_sha"`
	URL             string    `json:"url"`
	HTMLURL         string    `json:"html_url"`
	Status          string    `json:"status"`
	Conclusion      string    `json:"conclusion"`
	CreatedAt       string    `json:"created_at"`
	StartedAt       string    `json:"started_at"`
	CompletedAt     string    `json:"completed_at"`
	Name            string    `json:"name"`
	Steps           []apiStep `json:"steps"`
	CheckRunURL     string    `json:"check_run_url"`
	Labels          []string  `json:"labels"`
	RunnerID        int64     `json:"runner_id"`
	RunnerName      string    `json:"runner_name"`
	RunnerGroupID   int       `json:"runner_group_id"`
	RunnerGroupName string    `json:"runner_group_name"`
}

func stamp(t time.Time) string { return t.UTC().Truncate(time.Second).Format(time.RFC3339) }

// nodeID returns a GitHub-style global node id with the given prefix.
func nodeID(r *rand.Rand, prefix string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 16)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return prefix + "_kwDO" + string(b)
}

func userOf(p person) apiUser {
	typ := "User"
	if p.bot {
		typ = "Bot"
	}
	r := rand.New(rand.NewPCG(seed, uint64(p.id)))
	return apiUser{Login: p.login, ID: p.id, NodeID: nodeID(r, "U"), AvatarURL: fmt.Sprintf("https://avatars.githubusercontent.com/u/%d?v=4", p.id),
		HTMLURL: "https://github.com/" + p.login, Type: typ}
}

func repoObject() apiRepo {
	return apiRepo{ID: repoID, NodeID: "R_kgDOMVbC6Q", Name: repoName, FullName: fullName,
		Owner: apiUser{Login: owner, ID: ownerID, NodeID: "O_kgDOCjZ2oA", AvatarURL: fmt.Sprintf("https://avatars.githubusercontent.com/u/%d?v=4", ownerID),
			HTMLURL: "https://github.com/" + owner, Type: "Organization"},
		HTMLURL: "https://github.com/" + fullName, Description: "Usage metering API: events in, monthly rollups out",
		URL: apiBase}
}

// runObject builds the run's REST object; baseSHA is main's head when a
// pull request's run started.
func runObject(p *plannedRun, r *rand.Rand, conclusion string, updated time.Time, baseSHA string) apiRun {
	runURL := fmt.Sprintf("%s/actions/runs/%d", apiBase, p.id)
	committer := apiGitUser{"GitHub", "noreply@github.com"}
	if p.pr != nil {
		committer = apiGitUser{p.author.name, p.author.email}
	}
	run := apiRun{ID: p.id, Name: workflowName, NodeID: nodeID(r, "WFR"), HeadBranch: p.branch, HeadSHA: p.sha, Path: workflowPath,
		DisplayTitle: p.title(), RunNumber: p.number, Event: p.event, Status: "completed", Conclusion: conclusion,
		WorkflowID: workflowID, CheckSuiteID: p.checkSuite, CheckSuiteNodeID: nodeID(r, "CS"), URL: runURL,
		HTMLURL: fmt.Sprintf("https://github.com/%s/actions/runs/%d", fullName, p.id), PullRequests: []apiPRRef{},
		CreatedAt: stamp(p.created), UpdatedAt: stamp(updated), Actor: userOf(p.author), RunAttempt: 1,
		ReferencedWorkflows: []struct{}{}, RunStartedAt: stamp(p.created), TriggeringActor: userOf(p.author),
		JobsURL: runURL + "/jobs", LogsURL: runURL + "/logs", CheckSuiteURL: fmt.Sprintf("%s/check-suites/%d", apiBase, p.checkSuite),
		ArtifactsURL: runURL + "/artifacts", CancelURL: runURL + "/cancel", RerunURL: runURL + "/rerun",
		WorkflowURL: fmt.Sprintf("%s/actions/workflows/%d", apiBase, workflowID),
		HeadCommit: apiCommit{ID: p.sha, TreeID: hexString(r, 40), Message: p.message, Timestamp: stamp(p.created.Add(-time.Duration(20+r.IntN(70)) * time.Second)),
			Author: apiGitUser{p.author.name, p.author.email}, Committer: committer},
		Repository: repoObject(), HeadRepository: repoObject()}
	if p.pr != nil {
		side := apiPRRepo{ID: repoID, URL: apiBase, Name: repoName}
		run.PullRequests = []apiPRRef{{URL: fmt.Sprintf("%s/pulls/%d", apiBase, p.pr.number), ID: p.pr.id, Number: p.pr.number,
			Head: apiPRSide{Ref: p.pr.branch, SHA: p.sha, Repo: side}, Base: apiPRSide{Ref: "main", SHA: baseSHA, Repo: side}}}
	}
	return run
}

// jobObject builds a job's REST object from the steps its log recorded.
func jobObject(p *plannedRun, r *rand.Rand, id int64, name string, w *logWriter) apiJob {
	conclusion := "success"
	steps := make([]apiStep, len(w.steps))
	for i, s := range w.steps {
		steps[i] = apiStep{Name: s.name, Status: "completed", Conclusion: s.conclusion, Number: i + 1,
			StartedAt: stamp(s.start), CompletedAt: stamp(s.end)}
		if s.conclusion == "failure" {
			conclusion = "failure"
		}
	}
	runner := w.runner
	return apiJob{ID: id, RunID: p.id, WorkflowName: workflowName, HeadBranch: p.branch,
		RunURL: fmt.Sprintf("%s/actions/runs/%d", apiBase, p.id), RunAttempt: 1, NodeID: nodeID(r, "CR"), HeadSHA: p.sha,
		URL: fmt.Sprintf("%s/actions/jobs/%d", apiBase, id), HTMLURL: fmt.Sprintf("https://github.com/%s/actions/runs/%d/job/%d", fullName, p.id, id),
		Status: "completed", Conclusion: conclusion, CreatedAt: stamp(p.created), StartedAt: stamp(w.steps[0].start),
		CompletedAt: stamp(w.steps[len(w.steps)-1].end), Name: name, Steps: steps,
		CheckRunURL: fmt.Sprintf("%s/check-runs/%d", apiBase, id), Labels: []string{"ubuntu-24.04"},
		RunnerID: runner, RunnerName: fmt.Sprintf("GitHub Actions %d", runner), RunnerGroupName: "GitHub Actions"}
}

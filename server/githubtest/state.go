package githubtest

import (
	"encoding/json"
	"strings"
	"time"
)

// repoState is everything the simulator knows about one repository.
type repoState struct {
	owner, name    string
	id             int64
	private        bool
	defaultBranch  string
	installationID int64
	ownerType      string
	ownerID        int64
	// meta is the repository object served by GET /repos/{o}/{r} and put in
	// webhook payloads: the fullest copy found in the scenario's runs,
	// overlaid with scenario.json's fields.
	meta map[string]json.RawMessage

	workflows map[int64]*workflow
	runs      []*run // newest first
	runByID   map[int64]*run
	jobs      map[int64][]*job // by run id
	jobByID   map[int64]*job
	logs      map[int64]logRef // job id -> log file
	expired   map[int64]bool   // job ids whose logs have expired
	knownSHAs map[string]bool  // every head_sha a run names

	git  *gitStore
	refs map[string]string // "refs/heads/main" -> commit SHA

	pulls          map[int]*pull
	issues         map[int]*issue
	labels         map[int][]string // issue or pull request number -> label names, in the order added
	labelIDs       map[string]int64 // label name (lower case) -> id
	comments       []*comment
	commentByID    map[int64]*comment
	commitComments []*commitComment
	perms          map[string]string // login (lower case) -> permission
}

func newRepoState() *repoState {
	return &repoState{
		meta:        map[string]json.RawMessage{},
		workflows:   map[int64]*workflow{},
		runByID:     map[int64]*run{},
		jobs:        map[int64][]*job{},
		jobByID:     map[int64]*job{},
		logs:        map[int64]logRef{},
		expired:     map[int64]bool{},
		knownSHAs:   map[string]bool{},
		git:         newGitStore(),
		refs:        map[string]string{},
		pulls:       map[int]*pull{},
		issues:      map[int]*issue{},
		labels:      map[int][]string{},
		labelIDs:    map[string]int64{},
		commentByID: map[int64]*comment{},
		perms:       map[string]string{},
	}
}

// fullName is "owner/name".
func (r *repoState) fullName() string { return r.owner + "/" + r.name }

// key is the case-insensitive lookup key GitHub uses for repositories.
func repoKey(owner, name string) string { return strings.ToLower(owner + "/" + name) }

// workflow is a workflow file known from a scenario.
type workflow struct {
	ID   int64
	Name string
	Path string
}

// run is one workflow run: the stored JSON object, served as is, and the
// fields the simulator filters on.
type run struct {
	raw      json.RawMessage
	fields   runFields
	attempts map[int]json.RawMessage // earlier attempts, by number
}

// actorRef is the part of an account object the simulator reads.
type actorRef struct {
	Login string `json:"login"`
	ID    int64  `json:"id"`
	Type  string `json:"type"`
}

// prRef is a pull request as a run's pull_requests list names it.
type prRef struct {
	ID     int64 `json:"id"`
	Number int   `json:"number"`
	Head   struct {
		Ref  string `json:"ref"`
		SHA  string `json:"sha"`
		Repo struct {
			ID int64 `json:"id"`
		} `json:"repo"`
	} `json:"head"`
	Base struct {
		Ref  string `json:"ref"`
		SHA  string `json:"sha"`
		Repo struct {
			ID int64 `json:"id"`
		} `json:"repo"`
	} `json:"base"`
}

// headCommit is a run's head_commit.
type headCommit struct {
	ID        string    `json:"id"`
	Message   string    `json:"message"`
	Timestamp time.Time `json:"timestamp"`
	Author    struct {
		Name  string `json:"name"`
		Email string `json:"email"`
	} `json:"author"`
	Committer struct {
		Name  string `json:"name"`
		Email string `json:"email"`
	} `json:"committer"`
}

// runFields are the fields of a run the simulator reads.
type runFields struct {
	ID           int64           `json:"id"`
	Name         string          `json:"name"`
	RunAttempt   int             `json:"run_attempt"`
	WorkflowID   int64           `json:"workflow_id"`
	Path         string          `json:"path"`
	HeadBranch   string          `json:"head_branch"`
	HeadSHA      string          `json:"head_sha"`
	Event        string          `json:"event"`
	Status       string          `json:"status"`
	Conclusion   string          `json:"conclusion"`
	DisplayTitle string          `json:"display_title"`
	CheckSuiteID int64           `json:"check_suite_id"`
	CreatedAt    time.Time       `json:"created_at"`
	Actor        *actorRef       `json:"actor"`
	HeadCommit   *headCommit     `json:"head_commit"`
	PullRequests []prRef         `json:"pull_requests"`
	Repository   json.RawMessage `json:"repository"`
}

// job is one job of a run: the stored object and the fields read from it.
type job struct {
	raw        json.RawMessage
	ID         int64  `json:"id"`
	RunID      int64  `json:"run_id"`
	RunAttempt int    `json:"run_attempt"`
	Name       string `json:"name"`
}

// pull is a pull request.
type pull struct {
	Number              int
	ID                  int64
	Title, Body, State  string
	HeadRef, HeadSHA    string
	BaseRef, BaseSHA    string
	User                account
	Draft, Merged       bool
	MaintainerCanModify bool
	MergeCommitSHA      string
	CreatedAt           time.Time
	UpdatedAt           time.Time
	ClosedAt, MergedAt  time.Time
	shas                map[string]bool // every head SHA the PR has had
}

// issue is a plain issue a test added (pull requests are issues too).
type issue struct {
	Number    int
	ID        int64
	Title     string
	Body      string
	State     string
	User      account
	CreatedAt time.Time
}

// account is a user or bot as comments, pull requests and reactions show it.
type account struct {
	Login string
	ID    int64
	Type  string // "User" or "Bot"
}

// comment is an issue (or pull-request conversation) comment.
type comment struct {
	ID        int64
	Number    int
	Body      string
	PrevBody  string // the body before the latest edit
	User      account
	ViaApp    bool
	CreatedAt time.Time
	UpdatedAt time.Time
	Reactions []*reaction
}

// reaction is an emoji reaction on a comment.
type reaction struct {
	ID        int64
	Content   string
	User      account
	CreatedAt time.Time
}

// commitComment is a comment on a commit.
type commitComment struct {
	ID        int64
	SHA       string
	Body      string
	Path      string
	Line      int
	User      account
	CreatedAt time.Time
}

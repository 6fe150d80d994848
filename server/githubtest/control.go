package githubtest

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// IssueComment is a comment as tests see it.
type IssueComment struct {
	ID        int64
	Number    int
	Body      string
	User      string // login; the app's comments are by "<slug>[bot]"
	UserType  string // "User" or "Bot"
	CreatedAt time.Time
	UpdatedAt time.Time
	Reactions []Reaction
}

// Reaction is a reaction as tests see it.
type Reaction struct {
	ID      int64
	Content string
	User    string
}

// PullRequest is a pull request as tests see it.
type PullRequest struct {
	Number         int
	Title, Body    string
	State          string // "open" or "closed"
	Head, Base     string // branch names
	HeadSHA        string
	User           string
	Draft, Merged  bool
	MergeCommitSHA string
}

// CommitComment is a commit comment as tests see it.
type CommitComment struct {
	ID   int64
	SHA  string
	Body string
	Path string
	Line int
	User string
}

// withRepo runs fn on a repository under the lock.
func (s *Server) withRepo(full string, fn func(*repoState) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	repo, err := s.lookupRepo(full)
	if err != nil {
		return err
	}
	return fn(repo)
}

// Repositories lists the full names of the repositories served.
func (s *Server) Repositories() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range s.repos {
		out = append(out, r.fullName())
	}
	sort.Strings(out)
	return out
}

// Comments returns the comments on an issue or pull request, oldest first.
func (s *Server) Comments(repo string, number int) []IssueComment {
	var out []IssueComment
	_ = s.withRepo(repo, func(r *repoState) error {
		for _, c := range s.commentsOn(r, number) {
			ic := IssueComment{ID: c.ID, Number: c.Number, Body: c.Body, User: c.User.Login, UserType: c.User.Type,
				CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
			for _, re := range c.Reactions {
				ic.Reactions = append(ic.Reactions, Reaction{ID: re.ID, Content: re.Content, User: re.User.Login})
			}
			out = append(out, ic)
		}
		return nil
	})
	return out
}

// AddIssueComment adds a comment by any user (as if they had written it on
// GitHub) and returns its id.
func (s *Server) AddIssueComment(repo string, number int, login, body string) (int64, error) {
	var id int64
	err := s.withRepo(repo, func(r *repoState) error {
		if !issueExists(r, number) {
			return fmt.Errorf("issue #%d of %s is not known", number, repo)
		}
		u := s.ensureUser(login)
		id = s.addComment(r, number, account{Login: u.Login, ID: u.ID, Type: "User"}, body).ID
		return nil
	})
	return id, err
}

// EditIssueComment changes a comment's body as its author would on GitHub,
// keeping the old body for an "edited" event's changes.body.from.
func (s *Server) EditIssueComment(repo string, id int64, body string) error {
	return s.withRepo(repo, func(r *repoState) error {
		c := r.commentByID[id]
		if c == nil {
			return fmt.Errorf("comment %d of %s is not known", id, repo)
		}
		c.PrevBody, c.Body, c.UpdatedAt = c.Body, body, s.now()
		return nil
	})
}

// AddIssue creates a plain issue and returns its number.
func (s *Server) AddIssue(repo, title, login string) (int, error) {
	var n int
	err := s.withRepo(repo, func(r *repoState) error {
		u := s.ensureUser(login)
		n = s.nextNumber(r)
		r.issues[n] = &issue{Number: n, ID: s.newID(), Title: title, State: "open",
			User: account{Login: u.Login, ID: u.ID, Type: "User"}, CreatedAt: s.now()}
		return nil
	})
	return n, err
}

// PullRequests lists a repository's pull requests by number.
func (s *Server) PullRequests(repo string) []PullRequest {
	var out []PullRequest
	_ = s.withRepo(repo, func(r *repoState) error {
		for _, p := range r.pulls {
			out = append(out, PullRequest{Number: p.Number, Title: p.Title, Body: p.Body, State: p.State,
				Head: p.HeadRef, Base: p.BaseRef, HeadSHA: p.HeadSHA, User: p.User.Login, Draft: p.Draft,
				Merged: p.Merged, MergeCommitSHA: p.MergeCommitSHA})
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Number < out[j].Number })
	return out
}

// MarkMerged marks a pull request merged (and closed) as mergeSHA; the
// pull request is then found by GET /commits/{mergeSHA}/pulls.
func (s *Server) MarkMerged(repo string, number int, mergeSHA string) error {
	return s.withRepo(repo, func(r *repoState) error {
		p := r.pulls[number]
		if p == nil {
			return fmt.Errorf("pull request #%d of %s is not known", number, repo)
		}
		p.Merged, p.MergeCommitSHA, p.MergedAt = true, mergeSHA, s.now()
		s.setPullState(p, "closed")
		r.knownSHAs[mergeSHA] = true
		return nil
	})
}

// Refs returns a repository's refs ("refs/heads/main" -> SHA).
func (s *Server) Refs(repo string) map[string]string {
	out := map[string]string{}
	_ = s.withRepo(repo, func(r *repoState) error {
		for k, v := range r.refs {
			out[k] = v
		}
		return nil
	})
	return out
}

// FileAt returns a file's content at a ref (branch, tag or SHA).
func (s *Server) FileAt(repo, ref, path string) ([]byte, error) {
	var data []byte
	err := s.withRepo(repo, func(r *repoState) error {
		sha, ok := resolveCommit(r, ref)
		if !ok {
			return fmt.Errorf("ref %q of %s is not known", ref, repo)
		}
		e, ok := r.git.lookup(r.git.commits[sha].Tree, path)
		if !ok || e.Mode == modeTree {
			return fmt.Errorf("%s has no file %s at %s", repo, path, ref)
		}
		data = append([]byte(nil), r.git.blobs[e.SHA]...)
		return nil
	})
	return data, err
}

// FilesAt returns every file of a repository at a ref, by path.
func (s *Server) FilesAt(repo, ref string) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := s.withRepo(repo, func(r *repoState) error {
		sha, ok := resolveCommit(r, ref)
		if !ok {
			return fmt.Errorf("ref %q of %s is not known", ref, repo)
		}
		files, err := r.git.flatten(r.git.commits[sha].Tree)
		for p, f := range files {
			out[p] = append([]byte(nil), r.git.blobs[f.SHA]...)
		}
		return err
	})
	return out, err
}

// CommitComments lists the comments made on commits of a repository.
func (s *Server) CommitComments(repo string) []CommitComment {
	var out []CommitComment
	_ = s.withRepo(repo, func(r *repoState) error {
		for _, c := range r.commitComments {
			out = append(out, CommitComment{ID: c.ID, SHA: c.SHA, Body: c.Body, Path: c.Path, Line: c.Line, User: c.User.Login})
		}
		return nil
	})
	return out
}

// SetPermission sets a user's permission on a repository: "admin",
// "maintain", "write", "triage", "read" or "none".
func (s *Server) SetPermission(repo, login, permission string) error {
	return s.withRepo(repo, func(r *repoState) error {
		r.perms[strings.ToLower(login)] = permission
		return nil
	})
}

// ExpireJobLogs makes the logs of the given jobs answer 410 Gone.
func (s *Server) ExpireJobLogs(repo string, jobIDs ...int64) error {
	return s.withRepo(repo, func(r *repoState) error {
		for _, id := range jobIDs {
			r.expired[id] = true
		}
		return nil
	})
}

// SetInstallation moves a repository into an installation (creating it if
// needed); 0 takes the repository out of any installation.
func (s *Server) SetInstallation(repo string, installationID int64) error {
	return s.withRepo(repo, func(r *repoState) error {
		if inst := s.installations[r.installationID]; inst != nil {
			k := repoKey(r.owner, r.name)
			for i, have := range inst.Repos {
				if have == k {
					inst.Repos = append(inst.Repos[:i], inst.Repos[i+1:]...)
					break
				}
			}
		}
		r.installationID = 0
		s.installRepo(r, installationID)
		return nil
	})
}

// AddRunAttempt finishes a new attempt of a run with the given conclusion,
// as a completed re-run would: the run gets run_attempt+1, and the previous
// attempt's jobs are copied with new ids (and the same logs). It returns the
// new attempt number.
func (s *Server) AddRunAttempt(repo string, runID int64, conclusion string) (int, error) {
	var attempt int
	err := s.withRepo(repo, func(r *repoState) error {
		ru := r.runByID[runID]
		if ru == nil {
			return fmt.Errorf("run %d of %s is not known", runID, repo)
		}
		prev := ru.fields.RunAttempt
		if err := s.newAttempt(r, ru, "completed", conclusion); err != nil {
			return err
		}
		attempt = prev + 1
		for _, j := range r.jobs[runID] {
			if j.RunAttempt != prev {
				continue
			}
			id := s.newID()
			raw, err := setFields(j.raw, map[string]any{"id": id, "run_attempt": attempt,
				"url": s.repoAPI(r, "actions/jobs/"+itoa(id))})
			if err != nil {
				return fmt.Errorf("copy job %d: %w", j.ID, err)
			}
			nj := &job{raw: raw, ID: id, RunID: runID, RunAttempt: attempt, Name: j.Name}
			r.jobs[runID] = append(r.jobs[runID], nj)
			r.jobByID[id] = nj
			if p, ok := r.logs[j.ID]; ok {
				r.logs[id] = p
			}
		}
		return nil
	})
	return attempt, err
}

// AddCommitAlias makes sha a commit with the same tree as ref, so that a
// run whose head the scenario has no tree for can be diagnosed. The commit
// takes its message and author from the run that names sha, if any.
func (s *Server) AddCommitAlias(repo, sha, ref string) error {
	return s.withRepo(repo, func(r *repoState) error {
		from, ok := resolveCommit(r, ref)
		if !ok {
			return fmt.Errorf("ref %q of %s is not known", ref, repo)
		}
		c := &commitObj{SHA: sha, Tree: r.git.commits[from].Tree, Message: "commit " + sha}
		for _, ru := range r.runs {
			if ru.fields.HeadSHA == sha {
				c = commitFromRun(ru.fields, c.Tree)
				break
			}
		}
		r.git.putCommit(c)
		return nil
	})
}

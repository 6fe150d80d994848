package githubtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// maxRepoFile bounds the size of one repo/ file the simulator loads.
const maxRepoFile = 100 << 20

// scenarioFile is scenario.json (polylane.scenario/v1).
type scenarioFile struct {
	Schema     string `json:"schema"`
	Repository struct {
		ID    int64  `json:"id"`
		Name  string `json:"name"`
		Full  string `json:"full_name"`
		Owner struct {
			Login string `json:"login"`
		} `json:"owner"`
		DefaultBranch string `json:"default_branch"`
		Private       bool   `json:"private"`
	} `json:"repository"`
	InstallationID int64 `json:"installation_id"`
	Workflow       struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
		Path string `json:"path"`
	} `json:"workflow"`
	TriggerRunID int64 `json:"trigger_run_id"`
}

// scenarioSource is one scenario to load: a file system rooted at the
// scenario directory and the name it is reported by in errors.
type scenarioSource struct {
	fsys fs.FS
	dir  string
}

// logRef locates a job log inside a scenario's file system.
type logRef struct {
	fsys fs.FS
	name string
}

// loadScenario reads one scenario into the server's state. Callers hold s.mu.
func (s *Server) loadScenario(src scenarioSource) error {
	dir := src.dir
	var sc scenarioFile
	rawScenario, err := readJSON(src, "scenario.json", &sc)
	if err != nil {
		return err
	}
	owner, name := sc.Repository.Owner.Login, sc.Repository.Name
	if owner == "" || name == "" {
		if o, n, ok := strings.Cut(sc.Repository.Full, "/"); ok {
			owner, name = o, n
		}
	}
	if owner == "" || name == "" {
		return fmt.Errorf("scenario %s: repository has no owner/name", dir)
	}
	repo := s.repoFor(owner, name)
	repo.id = sc.Repository.ID
	repo.private = sc.Repository.Private
	repo.defaultBranch = sc.Repository.DefaultBranch
	if repo.defaultBranch == "" {
		repo.defaultBranch = "main"
	}
	if sc.Workflow.ID != 0 {
		repo.workflows[sc.Workflow.ID] = &workflow{ID: sc.Workflow.ID, Name: sc.Workflow.Name, Path: sc.Workflow.Path}
	}
	if err := s.loadRuns(repo, src); err != nil {
		return err
	}
	if err := loadJobs(repo, src); err != nil {
		return err
	}
	if err := loadLogs(repo, src); err != nil {
		return err
	}
	repo.meta = repoMeta(repo, rawScenario)
	s.installRepo(repo, sc.InstallationID)
	if err := s.loadTree(repo, src, sc.TriggerRunID); err != nil {
		return err
	}
	s.pullsFromRuns(repo)
	if s.opts.TreeAtRunHeads {
		treeAtRunHeads(repo, repo.git.commits[repo.runByID[sc.TriggerRunID].fields.HeadSHA].Tree)
	}
	return nil
}

// treeAtRunHeads gives every run's head SHA a commit with the tree, and
// every pull request a head branch. Callers hold s.mu.
func treeAtRunHeads(repo *repoState, tree string) {
	for _, ru := range repo.runs {
		if sha := ru.fields.HeadSHA; sha != "" && repo.git.commits[sha] == nil {
			repo.git.putCommit(commitFromRun(ru.fields, tree))
		}
	}
	for _, p := range repo.pulls {
		ref := "refs/heads/" + p.HeadRef
		if _, ok := repo.refs[ref]; !ok && p.HeadRef != "" && repo.git.commits[p.HeadSHA] != nil {
			repo.refs[ref] = p.HeadSHA
		}
	}
}

// readJSON reads a JSON file of a scenario into v and also returns its raw
// top-level object.
func readJSON(src scenarioSource, name string, v any) (map[string]json.RawMessage, error) {
	where := path.Join(src.dir, name)
	data, err := fs.ReadFile(src.fsys, name)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", where, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return nil, fmt.Errorf("parse %s: %w", where, err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("parse %s: %w", where, err)
	}
	return raw, nil
}

// repoFor returns the state of a repository, creating it on first use.
func (s *Server) repoFor(owner, name string) *repoState {
	k := repoKey(owner, name)
	if r, ok := s.repos[k]; ok {
		return r
	}
	r := newRepoState()
	r.owner, r.name = owner, name
	s.repos[k] = r
	return r
}

// loadRuns reads runs.json, keeping every run object as stored.
func (s *Server) loadRuns(repo *repoState, src scenarioSource) error {
	var list struct {
		Runs []json.RawMessage `json:"workflow_runs"`
	}
	p := path.Join(src.dir, "runs.json")
	if _, err := readJSON(src, "runs.json", &list); err != nil {
		return err
	}
	for i, raw := range list.Runs {
		ru := &run{raw: raw, attempts: map[int]json.RawMessage{}}
		if err := json.Unmarshal(raw, &ru.fields); err != nil {
			return fmt.Errorf("parse %s: run %d: %w", p, i, err)
		}
		if ru.fields.RunAttempt == 0 {
			ru.fields.RunAttempt = 1
		}
		if old, dup := repo.runByID[ru.fields.ID]; dup {
			*old = *ru
			continue
		}
		repo.runByID[ru.fields.ID] = ru
		repo.runs = append(repo.runs, ru)
		repo.knownSHAs[ru.fields.HeadSHA] = true
		if w := ru.fields.WorkflowID; w != 0 && repo.workflows[w] == nil {
			repo.workflows[w] = &workflow{ID: w, Name: ru.fields.Name, Path: ru.fields.Path}
		}
		if repo.ownerID == 0 {
			noteOwner(repo, ru.fields.Repository)
		}
	}
	sortRuns(repo.runs)
	return nil
}

// sortRuns orders runs newest first, as GitHub lists them.
func sortRuns(runs []*run) {
	sort.SliceStable(runs, func(i, j int) bool {
		a, b := runs[i].fields, runs[j].fields
		if !a.CreatedAt.Equal(b.CreatedAt) {
			return a.CreatedAt.After(b.CreatedAt)
		}
		return a.ID > b.ID
	})
}

// noteOwner records the owner's type and id from a run's repository object.
func noteOwner(repo *repoState, raw json.RawMessage) {
	var meta struct {
		Owner actorRef `json:"owner"`
	}
	if json.Unmarshal(raw, &meta) == nil && meta.Owner.Login != "" {
		repo.ownerType, repo.ownerID = meta.Owner.Type, meta.Owner.ID
	}
}

// loadJobs reads jobs/<run_id>.json files.
func loadJobs(repo *repoState, src scenarioSource) error {
	files, err := fs.Glob(src.fsys, "jobs/*.json")
	if err != nil {
		return fmt.Errorf("list jobs of %s: %w", src.dir, err)
	}
	for _, name := range files {
		p := path.Join(src.dir, name)
		runID, err := strconv.ParseInt(strings.TrimSuffix(path.Base(name), ".json"), 10, 64)
		if err != nil {
			continue
		}
		var list struct {
			Jobs []json.RawMessage `json:"jobs"`
		}
		if _, err := readJSON(src, name, &list); err != nil {
			return err
		}
		var jobs []*job
		for i, raw := range list.Jobs {
			j := &job{raw: raw}
			if err := json.Unmarshal(raw, j); err != nil {
				return fmt.Errorf("parse %s: job %d: %w", p, i, err)
			}
			if j.RunID == 0 {
				j.RunID = runID
			}
			jobs = append(jobs, j)
			repo.jobByID[j.ID] = j
		}
		repo.jobs[runID] = jobs
	}
	return nil
}

// loadLogs notes logs/<job_id>.txt files; they are read when downloaded.
func loadLogs(repo *repoState, src scenarioSource) error {
	files, err := fs.Glob(src.fsys, "logs/*.txt")
	if err != nil {
		return fmt.Errorf("list logs of %s: %w", src.dir, err)
	}
	for _, name := range files {
		id, err := strconv.ParseInt(strings.TrimSuffix(path.Base(name), ".txt"), 10, 64)
		if err == nil {
			repo.logs[id] = logRef{fsys: src.fsys, name: name}
		}
	}
	return nil
}

// repoMeta builds the repository object: the one embedded in the newest run
// (GitHub's full shape) overlaid with scenario.json's repository fields.
func repoMeta(repo *repoState, scenario map[string]json.RawMessage) map[string]json.RawMessage {
	meta := map[string]json.RawMessage{}
	for _, ru := range repo.runs {
		if len(ru.fields.Repository) > 0 && json.Unmarshal(ru.fields.Repository, &meta) == nil {
			break
		}
	}
	var fromScenario map[string]json.RawMessage
	if json.Unmarshal(scenario["repository"], &fromScenario) == nil {
		for k, v := range fromScenario {
			if k == "owner" && len(meta["owner"]) > 0 {
				continue // the run's owner object is the fuller one
			}
			meta[k] = v
		}
	}
	return meta
}

// loadTree stores repo/ as the tree of the trigger run's head commit and
// points the default branch (and the trigger's branch) at commits with it.
func (s *Server) loadTree(repo *repoState, src scenarioSource, triggerID int64) error {
	trigger := repo.runByID[triggerID]
	if trigger == nil {
		return fmt.Errorf("scenario %s: trigger run %d is not in runs.json", src.dir, triggerID)
	}
	files, err := readRepoDir(repo.git, src, "repo")
	if err != nil {
		return err
	}
	tree := repo.git.build(files)
	repo.git.putCommit(commitFromRun(trigger.fields, tree))
	head := trigger
	if trigger.fields.HeadBranch != repo.defaultBranch {
		if trigger.fields.HeadBranch != "" {
			repo.refs["refs/heads/"+trigger.fields.HeadBranch] = trigger.fields.HeadSHA
		}
		for _, ru := range repo.runs {
			if ru.fields.HeadBranch == repo.defaultBranch && ru.fields.HeadSHA != "" {
				head = ru
				break
			}
		}
		if head != trigger {
			repo.git.putCommit(commitFromRun(head.fields, tree))
		}
	}
	repo.refs["refs/heads/"+repo.defaultBranch] = head.fields.HeadSHA
	return loadCommits(repo, src, tree)
}

// loadCommits stores the commits of commits.json (optional): each after
// its first parent, changing the paths it lists, from repo/'s tree for a
// commit whose parent the file does not hold. A commit a run names gets its
// run's date. Callers hold s.mu.
func loadCommits(repo *repoState, src scenarioSource, tree string) error {
	var list struct {
		Commits []struct {
			SHA     string   `json:"sha"`
			Parents []string `json:"parents"`
			Message string   `json:"message"`
			Files   []string `json:"files"`
		} `json:"commits"`
	}
	if _, err := readJSON(src, "commits.json", &list); errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	trees := map[string]string{}
	for _, c := range list.Commits {
		if c.SHA == "" {
			return fmt.Errorf("scenario %s: commits.json: a commit without a sha", src.dir)
		}
		from := tree
		if len(c.Parents) > 0 && trees[c.Parents[0]] != "" {
			from = trees[c.Parents[0]]
		}
		files, err := repo.git.flatten(from)
		if err != nil {
			return fmt.Errorf("scenario %s: commits.json: %w", src.dir, err)
		}
		for _, p := range c.Files {
			if !validPath(p) {
				return fmt.Errorf("scenario %s: commits.json: commit %s changes an invalid path %q", src.dir, c.SHA, p)
			}
			files[p] = fileEntry{Mode: modeFile, SHA: repo.git.putBlob([]byte("changed in " + c.SHA + ": " + p + "\n"))}
		}
		obj := &commitObj{SHA: c.SHA, Tree: repo.git.build(files), Parents: c.Parents, Message: c.Message}
		for _, ru := range repo.runs {
			if ru.fields.HeadSHA == c.SHA {
				obj.Author.Date, obj.Committer.Date = ru.fields.CreatedAt, ru.fields.CreatedAt
			}
		}
		trees[c.SHA] = obj.Tree
		repo.git.putCommit(obj)
	}
	return nil
}

// commitFromRun makes the commit a run names, with the given tree.
func commitFromRun(f runFields, tree string) *commitObj {
	c := &commitObj{SHA: f.HeadSHA, Tree: tree, Message: f.DisplayTitle}
	if hc := f.HeadCommit; hc != nil {
		c.Message = hc.Message
		c.Author = signature{Name: hc.Author.Name, Email: hc.Author.Email, Date: hc.Timestamp}
		c.Committer = signature{Name: hc.Committer.Name, Email: hc.Committer.Email, Date: hc.Timestamp}
	}
	if c.Author.Date.IsZero() {
		c.Author.Date, c.Committer.Date = f.CreatedAt, f.CreatedAt
	}
	return c
}

// readRepoDir stores every file under root as a blob and returns them by
// path. Symbolic links become git symlinks; executables keep their bit.
func readRepoDir(g *gitStore, src scenarioSource, root string) (map[string]fileEntry, error) {
	files := map[string]fileEntry{}
	if _, err := fs.Stat(src.fsys, root); errors.Is(err, fs.ErrNotExist) {
		return files, nil
	}
	err := fs.WalkDir(src.fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, root+"/")
		if d.IsDir() || !validPath(rel) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := fs.ReadLink(src.fsys, p)
			if err != nil {
				return err
			}
			files[rel] = fileEntry{Mode: modeSymlink, SHA: g.putBlob([]byte(target))}
		case info.Mode().IsRegular() && info.Size() <= maxRepoFile:
			data, err := fs.ReadFile(src.fsys, p)
			if err != nil {
				return err
			}
			mode := modeFile
			if info.Mode()&0o111 != 0 {
				mode = modeExec
			}
			files[rel] = fileEntry{Mode: mode, SHA: g.putBlob(data)}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read repository tree %s: %w", path.Join(src.dir, root), err)
	}
	return files, nil
}

// pullsFromRuns creates the pull requests that runs' pull_requests name.
// Runs are newest first, so the first run seen for a PR gives its head.
func (s *Server) pullsFromRuns(repo *repoState) {
	for _, ru := range repo.runs {
		for _, ref := range ru.fields.PullRequests {
			if ref.Base.Repo.ID != 0 && repo.id != 0 && ref.Base.Repo.ID != repo.id {
				continue // a pull request of another repository
			}
			p := repo.pulls[ref.Number]
			if p == nil {
				p = &pull{Number: ref.Number, ID: ref.ID, State: "open", Title: ru.fields.DisplayTitle,
					HeadRef: ref.Head.Ref, HeadSHA: ref.Head.SHA, BaseRef: ref.Base.Ref, BaseSHA: ref.Base.SHA,
					UpdatedAt: ru.fields.CreatedAt, shas: map[string]bool{}}
				if a := ru.fields.Actor; a != nil {
					p.User = account{Login: a.Login, ID: a.ID, Type: orDefault(a.Type, "User")}
				}
				repo.pulls[ref.Number] = p
			}
			p.shas[ref.Head.SHA] = true
			p.CreatedAt = ru.fields.CreatedAt
		}
	}
	for _, p := range repo.pulls {
		if p.CreatedAt.IsZero() {
			p.CreatedAt = time.Unix(0, 0)
		}
	}
}

// orDefault returns v, or def when v is empty.
func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

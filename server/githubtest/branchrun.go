package githubtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing/fstest"
)

// BranchRun says how to run a workflow on a branch, as GitHub runs a
// repository's workflows on a pull request's head: a fix pull request's
// branch, say, to verify the fix.
type BranchRun struct {
	// Branch is the branch the run is of; its head is the run's head.
	Branch string
	// Like is a run of the scenario whose workflow, jobs and logs the new
	// run copies.
	Like int64
	// Conclusion is the run's: "success" marks every job green; a failing
	// conclusion keeps the copied jobs' own conclusions (the jobs that
	// failed in Like fail again, with their logs).
	Conclusion string
	// Log, when set, is the failing job's log instead of Like's: a failure
	// other than Like's (a lint step, a build); FailedJob, when set too,
	// renames that job.
	FailedJob string
	Log       string
}

// RunOnBranch completes a new run on a branch as BranchRun says and
// returns its id; WorkflowRunEvent then gives its workflow_run delivery.
// The run lists the open pull requests whose head is the branch.
func (s *Server) RunOnBranch(repo string, br BranchRun) (int64, error) {
	var id int64
	err := s.withRepo(repo, func(r *repoState) error {
		like := r.runByID[br.Like]
		if like == nil {
			return fmt.Errorf("run %d of %s is not known", br.Like, repo)
		}
		head, ok := r.refs["refs/heads/"+br.Branch]
		if !ok {
			return fmt.Errorf("branch %q of %s does not exist", br.Branch, repo)
		}
		if br.Conclusion == "" {
			return fmt.Errorf("a run on %s needs a conclusion", br.Branch)
		}
		id = s.newID()
		now := s.now()
		var prs []map[string]any
		for _, p := range r.pulls {
			if p.State == "open" && p.HeadRef == br.Branch {
				prs = append(prs, map[string]any{"id": p.ID, "number": p.Number,
					"url":  s.repoAPI(r, "pulls/"+itoa(int64(p.Number))),
					"head": map[string]any{"ref": p.HeadRef, "sha": head, "repo": map[string]any{"id": r.id}},
					"base": map[string]any{"ref": p.BaseRef, "sha": p.BaseSHA, "repo": map[string]any{"id": r.id}}})
			}
		}
		number := 0
		for _, ru := range r.runs {
			var n struct {
				RunNumber int `json:"run_number"`
			}
			if json.Unmarshal(ru.raw, &n) == nil && ru.fields.WorkflowID == like.fields.WorkflowID {
				number = max(number, n.RunNumber)
			}
		}
		raw, err := setFields(like.raw, map[string]any{
			"id": id, "run_number": number + 1, "run_attempt": 1, "head_branch": br.Branch, "head_sha": head,
			"event": "pull_request", "status": "completed", "conclusion": br.Conclusion, "pull_requests": prs,
			"created_at": ts(now), "updated_at": ts(now), "run_started_at": ts(now), "previous_attempt_url": nil,
			"url": s.repoAPI(r, "actions/runs/"+itoa(id)), "jobs_url": s.repoAPI(r, "actions/runs/"+itoa(id)+"/jobs"),
			"logs_url": s.repoAPI(r, "actions/runs/"+itoa(id)+"/logs"), "head_commit": nil,
		})
		if err != nil {
			return err
		}
		ru := &run{raw: raw, attempts: map[int]json.RawMessage{}}
		if err := json.Unmarshal(raw, &ru.fields); err != nil {
			return err
		}
		if err := s.copyJobs(r, like, id, br); err != nil {
			return err
		}
		r.runs = append([]*run{ru}, r.runs...)
		sortRuns(r.runs)
		r.runByID[id] = ru
		r.knownSHAs[head] = true
		return nil
	})
	return id, err
}

// copyJobs gives run id the jobs of like's latest attempt, with new ids
// and the conclusions BranchRun asks for. Callers hold s.mu.
func (s *Server) copyJobs(r *repoState, like *run, id int64, br BranchRun) error {
	for _, j := range r.jobs[like.fields.ID] {
		if j.RunAttempt != 0 && j.RunAttempt != like.fields.RunAttempt {
			continue
		}
		var jf struct {
			Conclusion string `json:"conclusion"`
		}
		_ = json.Unmarshal(j.raw, &jf)
		failed := jf.Conclusion == "failure"
		nid := s.newID()
		fields := map[string]any{"id": nid, "run_id": id, "run_attempt": 1, "head_branch": br.Branch,
			"url": s.repoAPI(r, "actions/jobs/"+itoa(nid))}
		name := j.Name
		switch {
		case br.Conclusion == "success":
			fields["conclusion"] = "success"
		case failed && br.Log != "" && br.FailedJob != "":
			name = br.FailedJob
			fields["name"] = name
		}
		raw, err := setFields(j.raw, fields)
		if err != nil {
			return fmt.Errorf("copy job %d: %w", j.ID, err)
		}
		nj := &job{raw: raw, ID: nid, RunID: id, RunAttempt: 1, Name: name}
		r.jobs[id] = append(r.jobs[id], nj)
		r.jobByID[nid] = nj
		switch {
		case failed && br.Conclusion != "success" && br.Log != "":
			r.logs[nid] = logRef{fsys: fstest.MapFS{"log.txt": {Data: []byte(br.Log)}}, name: "log.txt"}
		default:
			if p, ok := r.logs[j.ID]; ok {
				r.logs[nid] = p
			}
		}
	}
	return nil
}

// handleRerunJob records a request to re-run one job, as GitHub's
// POST /actions/jobs/{job}/rerun: its run must be completed; with
// RerunCreatesAttempt the run gets a new queued attempt.
func (s *Server) handleRerunJob(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if j := lookupJob(w, r); j != nil {
		repo := repoOf(r)
		if ru := repo.runByID[j.RunID]; ru != nil {
			s.rerun(w, repo, ru)
			return
		}
		notFound(w)
	}
}

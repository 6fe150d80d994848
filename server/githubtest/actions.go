package githubtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// searchCap is GitHub's limit on filtered run listings: "up to 1,000
// results for each search" with actor, branch, check_suite_id, created,
// event, head_sha or status.
const searchCap = 1000

// runStatuses are the values of the status filter that name a status; the
// other accepted values name a conclusion.
var runStatuses = map[string]bool{
	"completed": true, "in_progress": true, "queued": true, "requested": true, "waiting": true, "pending": true,
}

// findWorkflow resolves a workflow id or file name. Callers hold s.mu.
func findWorkflow(repo *repoState, param string) *workflow {
	if id, err := strconv.ParseInt(param, 10, 64); err == nil {
		return repo.workflows[id]
	}
	for _, wf := range repo.workflows {
		if wf.Path == param || path.Base(wf.Path) == param {
			return wf
		}
	}
	return nil
}

// workflowJSON renders a workflow. Callers hold s.mu.
func (s *Server) workflowJSON(repo *repoState, wf *workflow) map[string]any {
	created := time.Unix(0, 0)
	if len(repo.runs) > 0 {
		created = repo.runs[len(repo.runs)-1].fields.CreatedAt
	}
	return map[string]any{
		"id": wf.ID, "node_id": nodeID("W_kwDO", wf.ID), "name": wf.Name, "path": wf.Path, "state": "active",
		"created_at": ts(created), "updated_at": ts(created),
		"url":       s.repoAPI(repo, "actions/workflows/"+itoa(wf.ID)),
		"html_url":  s.repoHTML(repo, "blob/"+repo.defaultBranch+"/"+wf.Path),
		"badge_url": s.repoHTML(repo, "workflows/"+path.Base(wf.Path)+"/badge.svg"),
	}
}

func (s *Server) handleListWorkflows(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	repo := repoOf(r)
	ids := make([]int64, 0, len(repo.workflows))
	for id := range repo.workflows {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	list := []map[string]any{}
	for _, id := range ids {
		list = append(list, s.workflowJSON(repo, repo.workflows[id]))
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(list), "workflows": list})
}

func (s *Server) handleGetWorkflow(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	repo := repoOf(r)
	wf := findWorkflow(repo, urlParam(r, "workflow"))
	if wf == nil {
		notFound(w)
		return
	}
	writeJSON(w, http.StatusOK, s.workflowJSON(repo, wf))
}

// runFilter is the query of a run listing.
type runFilter struct {
	branch, event, status, actor, headSHA string
	checkSuite                            int64
	created                               *timeRange
	excludePRs                            bool
	searching                             bool
}

// parseRunFilter reads the filters of a run listing.
func parseRunFilter(r *http.Request) (runFilter, error) {
	q := r.URL.Query()
	f := runFilter{branch: q.Get("branch"), event: q.Get("event"), status: q.Get("status"),
		actor: q.Get("actor"), headSHA: q.Get("head_sha"), excludePRs: q.Get("exclude_pull_requests") == "true"}
	if v := q.Get("check_suite_id"); v != "" {
		f.checkSuite, _ = strconv.ParseInt(v, 10, 64)
	}
	if v := q.Get("created"); v != "" {
		tr, err := parseTimeRange(v)
		if err != nil {
			return f, err
		}
		f.created = tr
	}
	for _, k := range []string{"actor", "branch", "check_suite_id", "created", "event", "head_sha", "status"} {
		if q.Get(k) != "" {
			f.searching = true
		}
	}
	return f, nil
}

func (f runFilter) match(rf runFields) bool {
	switch {
	case f.branch != "" && rf.HeadBranch != f.branch,
		f.event != "" && rf.Event != f.event,
		f.headSHA != "" && rf.HeadSHA != f.headSHA,
		f.checkSuite != 0 && rf.CheckSuiteID != f.checkSuite,
		f.actor != "" && (rf.Actor == nil || !strings.EqualFold(rf.Actor.Login, f.actor)),
		f.created != nil && !f.created.contains(rf.CreatedAt):
		return false
	case f.status == "":
		return true
	case runStatuses[f.status]:
		return rf.Status == f.status
	}
	return rf.Conclusion == f.status
}

// handleListRuns serves both run listings: of a workflow and of the
// repository. Runs are newest first; stored objects are served unchanged.
func (s *Server) handleListRuns(w http.ResponseWriter, r *http.Request) {
	f, err := parseRunFilter(r)
	if err != nil {
		writeValidation(w, err.Error())
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	repo := repoOf(r)
	var wf *workflow
	if param := urlParam(r, "workflow"); param != "" {
		if wf = findWorkflow(repo, param); wf == nil {
			notFound(w)
			return
		}
	}
	var matches []*run
	for _, ru := range repo.runs {
		if wf != nil && ru.fields.WorkflowID != wf.ID {
			continue
		}
		if f.match(ru.fields) {
			matches = append(matches, ru)
		}
	}
	if f.searching && len(matches) > searchCap {
		matches = matches[:searchCap]
	}
	pg := pageOf(r)
	lo, hi := pg.bounds(len(matches))
	items := make([]json.RawMessage, 0, hi-lo)
	for _, ru := range matches[lo:hi] {
		raw := ru.raw
		if f.excludePRs {
			if edited, err := setFields(raw, map[string]any{"pull_requests": []any{}}); err == nil {
				raw = edited
			}
		}
		items = append(items, raw)
	}
	setLink(w, r, pg, len(matches))
	writeJSON(w, http.StatusOK, listEnvelope("workflow_runs", len(matches), items))
}

// lookupRun finds the run of a route, answering 404 when it is absent.
// Callers hold s.mu.
func lookupRun(w http.ResponseWriter, r *http.Request) *run {
	id, _ := strconv.ParseInt(urlParam(r, "run"), 10, 64)
	ru := repoOf(r).runByID[id]
	if ru == nil {
		notFound(w)
	}
	return ru
}

// handleGetRun serves a run and one attempt of a run.
func (s *Server) handleGetRun(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ru := lookupRun(w, r)
	if ru == nil {
		return
	}
	if a := urlParam(r, "attempt"); a != "" {
		n, _ := strconv.Atoi(a)
		switch {
		case n == ru.fields.RunAttempt:
		case ru.attempts[n] != nil:
			writeJSON(w, http.StatusOK, ru.attempts[n])
			return
		default:
			notFound(w)
			return
		}
	}
	writeJSON(w, http.StatusOK, ru.raw)
}

// handleListJobs serves the jobs of a run (filter latest|all) and of one
// attempt. A job without run_attempt belongs to the run's latest attempt.
func (s *Server) handleListJobs(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ru := lookupRun(w, r)
	if ru == nil {
		return
	}
	want := ru.fields.RunAttempt
	if a := urlParam(r, "attempt"); a != "" {
		want, _ = strconv.Atoi(a)
		if want != ru.fields.RunAttempt && ru.attempts[want] == nil {
			notFound(w)
			return
		}
	} else if r.URL.Query().Get("filter") == "all" {
		want = 0
	}
	var items []json.RawMessage
	for _, j := range repoOf(r).jobs[ru.fields.ID] {
		attempt := j.RunAttempt
		if attempt == 0 {
			attempt = ru.fields.RunAttempt
		}
		if want == 0 || attempt == want {
			items = append(items, j.raw)
		}
	}
	pg := pageOf(r)
	lo, hi := pg.bounds(len(items))
	setLink(w, r, pg, len(items))
	writeJSON(w, http.StatusOK, listEnvelope("jobs", len(items), items[lo:hi]))
}

// lookupJob finds the job of a route, answering 404 when it is absent.
// Callers hold s.mu.
func lookupJob(w http.ResponseWriter, r *http.Request) *job {
	id, _ := strconv.ParseInt(urlParam(r, "job"), 10, 64)
	j := repoOf(r).jobByID[id]
	if j == nil {
		notFound(w)
	}
	return j
}

func (s *Server) handleGetJob(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if j := lookupJob(w, r); j != nil {
		writeJSON(w, http.StatusOK, j.raw)
	}
}

// handleRerun records a re-run request and, with RerunCreatesAttempt,
// starts a new queued attempt.
func (s *Server) handleRerun(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ru := lookupRun(w, r); ru != nil {
		s.rerun(w, repoOf(r), ru)
	}
}

// rerun answers a re-run request of a run: refused while the run is not
// completed; with RerunCreatesAttempt, a new queued attempt. Callers hold
// s.mu.
func (s *Server) rerun(w http.ResponseWriter, repo *repoState, ru *run) {
	if ru.fields.Status != "completed" {
		writeError(w, http.StatusForbidden, "This workflow is already running")
		return
	}
	if s.opts.RerunCreatesAttempt {
		if err := s.newAttempt(repo, ru, "queued", ""); err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
	}
	writeJSON(w, http.StatusCreated, json.RawMessage(`{}`))
}

// newAttempt makes the run's next attempt with the given status and
// conclusion, keeping the current one as an earlier attempt. Callers hold
// s.mu.
func (s *Server) newAttempt(repo *repoState, ru *run, status, conclusion string) error {
	prev := ru.fields.RunAttempt
	now := s.now()
	fields := map[string]any{
		"run_attempt": prev + 1, "status": status, "conclusion": orNil(conclusion),
		"previous_attempt_url": s.repoAPI(repo, fmt.Sprintf("actions/runs/%d/attempts/%d", ru.fields.ID, prev)),
		"run_started_at":       ts(now), "updated_at": ts(now),
	}
	raw, err := setFields(ru.raw, fields)
	if err != nil {
		return fmt.Errorf("new attempt of run %d: %w", ru.fields.ID, err)
	}
	for _, j := range repo.jobs[ru.fields.ID] {
		if j.RunAttempt == 0 {
			j.RunAttempt = prev // jobs without run_attempt belonged to the latest attempt
		}
	}
	ru.attempts[prev] = ru.raw
	ru.raw = raw
	ru.fields.RunAttempt, ru.fields.Status, ru.fields.Conclusion = prev+1, status, conclusion
	return nil
}

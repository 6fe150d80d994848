package githubtest

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxLabelName is GitHub's bound on a label's name.
const maxLabelName = 50

// labelsJSON renders the labels of an issue or pull request. Callers hold
// s.mu.
func (s *Server) labelsJSON(repo *repoState, n int) []any {
	out := []any{}
	for _, name := range repo.labels[n] {
		id := repo.labelIDs[strings.ToLower(name)]
		out = append(out, map[string]any{"id": id, "node_id": nodeID("LA_kwDO", id),
			"url": s.repoAPI(repo, "labels/"+url.PathEscape(name)), "name": name, "color": "ededed", "default": false, "description": nil})
	}
	return out
}

// handleAddLabels serves POST …/issues/{number}/labels. The body is a JSON
// array of names or {"labels": [...]}, as GitHub takes either. Names the
// issue has already (compared without case) stay once; names the repository
// has no label for create one. It answers 200 with every label of the
// issue, 404 for an unknown number and 422 for an empty or overlong name.
func (s *Server) handleAddLabels(w http.ResponseWriter, r *http.Request) {
	var raw json.RawMessage
	if !decodeBody(w, r, &raw) {
		return
	}
	var names []string
	if err := json.Unmarshal(raw, &names); err != nil {
		var obj struct {
			Labels []string `json:"labels"`
		}
		if err := json.Unmarshal(raw, &obj); err != nil {
			writeError(w, http.StatusBadRequest, "Problems parsing JSON")
			return
		}
		names = obj.Labels
	}
	if len(names) == 0 {
		writeValidation(w, "Validation Failed", validationError{Resource: "Label", Field: "labels", Code: "missing_field"})
		return
	}
	for _, name := range names {
		if strings.TrimSpace(name) == "" || utf8.RuneCountInString(name) > maxLabelName {
			writeValidation(w, "Validation Failed", validationError{Resource: "Label", Field: "name", Code: "invalid"})
			return
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	repo, n, ok := issueOfRoute(w, r)
	if !ok {
		return
	}
	for _, name := range names {
		key := strings.ToLower(name)
		if repo.labelIDs[key] == 0 {
			repo.labelIDs[key] = s.newID()
		}
		have := false
		for _, l := range repo.labels[n] {
			have = have || strings.EqualFold(l, name)
		}
		if !have {
			repo.labels[n] = append(repo.labels[n], name)
		}
	}
	writeJSON(w, http.StatusOK, s.labelsJSON(repo, n))
}

// handleListLabels serves GET …/issues/{number}/labels.
func (s *Server) handleListLabels(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if repo, n, ok := issueOfRoute(w, r); ok {
		writeJSON(w, http.StatusOK, s.labelsJSON(repo, n))
	}
}

// issueOfRoute returns the repository and the issue or pull request number
// of a route, or answers 404 when no such number exists. Callers hold s.mu.
func issueOfRoute(w http.ResponseWriter, r *http.Request) (*repoState, int, bool) {
	n, _ := strconv.Atoi(urlParam(r, "number"))
	repo := repoOf(r)
	if !issueExists(repo, n) {
		notFound(w)
		return nil, 0, false
	}
	return repo, n, true
}

// Labels returns the label names of an issue or pull request, in the order
// they were added.
func (s *Server) Labels(repo string, number int) []string {
	var out []string
	_ = s.withRepo(repo, func(r *repoState) error {
		out = append(out, r.labels[number]...)
		return nil
	})
	return out
}

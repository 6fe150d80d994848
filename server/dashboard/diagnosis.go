package dashboard

import (
	"bytes"
	"encoding/json"
	"html/template"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/polylane/polylane/analysis/redact"
	"github.com/polylane/polylane/causal/diagnosis"
	"github.com/polylane/polylane/server/report"
	"github.com/polylane/polylane/store"
)

// DiagnosisData is the diagnosis page and
// GET /api/v1/repos/{owner}/{repo}/diagnoses/{id}: the stored document,
// the assessment as markdown (what the pull-request comment says) and the
// flowchart's Mermaid source.
type DiagnosisData struct {
	Repository RepoRef         `json:"repository"`
	Diagnosis  DiagnosisRow    `json:"diagnosis"`
	Document   json.RawMessage `json:"document"`
	Markdown   string          `json:"markdown"`
	Flowchart  string          `json:"flowchart"`
	// Problem says why the document could not be rendered, when it could not.
	Problem string `json:"problem,omitempty"`
	// PullRequest is, for a pull-request run, whether the failure is the
	// pull request's own (the document's pull_request block).
	PullRequest *diagnosis.PullRequest `json:"pull_request,omitempty"`

	HTML template.HTML `json:"-"`
}

// diagnosis builds the diagnosis page.
func (d *Dashboard) diagnosis(r *http.Request, v *viewer) (any, pageMeta, error) {
	repo, err := d.repoFromPath(r, v)
	if err != nil {
		return nil, pageMeta{}, err
	}
	id, err := strconv.ParseInt(chi.URLParam(r, "id"), 10, 64)
	if err != nil || id <= 0 {
		return nil, pageMeta{}, errNotFound
	}
	stored, err := d.st.GetDiagnosisByID(r.Context(), id)
	if err != nil {
		return nil, pageMeta{}, err
	}
	if stored.RepositoryID != repo.ID {
		return nil, pageMeta{}, errNotFound
	}
	page, err := d.st.ListDiagnosisSummaries(r.Context(), store.DiagnosisQuery{RepositoryID: repo.ID, Limit: 1,
		After: &store.DiagnosisCursor{CreatedAt: stored.CreatedAt, ID: stored.ID + 1}})
	if err != nil {
		return nil, pageMeta{}, err
	}
	data := DiagnosisData{Repository: d.repoRef(repo), Document: stored.Document}
	if rows := d.diagnosisRows(repo, page.Diagnoses); len(rows) == 1 && rows[0].ID == stored.ID {
		data.Diagnosis = rows[0]
	} else {
		data.Diagnosis = DiagnosisRow{ID: stored.ID, RunID: stored.RunID, Attempt: stored.Attempt, Verdict: stored.Verdict,
			ClassID: stored.ClassID, Stale: stored.Stale, CreatedAt: stored.CreatedAt, URL: diagnosisPath(repo.FullName, stored.ID),
			RunURL: d.runURL(repo.FullName, stored.RunID)}
	}
	d.renderDocument(repo, stored, &data)
	meta := pageMeta{Title: "Diagnosis of run " + strconv.FormatInt(stored.RunID, 10) + " · " + repo.FullName,
		Mermaid: data.Flowchart != "",
		Crumbs:  []crumb{{Name: "Overview", URL: "/"}, {Name: repo.FullName, URL: repoPath(repo.FullName)}}}
	return data, meta, nil
}

// renderDocument renders the stored document as the assessment.
func (d *Dashboard) renderDocument(repo store.Repository, stored store.Diagnosis, data *DiagnosisData) {
	var stale diagnosis.Diagnosis
	if err := json.Unmarshal(stored.Document, &stale); err != nil {
		data.Document = redactJSON(stored.Document)
		data.Problem = "The stored document is not a readable " + diagnosis.Schema + " document; its JSON is below."
		return
	}
	// a document stored before log lines were redacted is shown redacted
	doc := stale.Redacted()
	if doc != &stale {
		raw, err := json.Marshal(doc)
		if err != nil {
			raw = redactJSON(stored.Document)
		}
		data.Document = raw
	}
	data.PullRequest = doc.PullRequest
	md, err := report.Comment(doc, report.Options{Stale: stored.Stale, RepoID: repo.ID})
	if err != nil {
		data.Problem = "The assessment could not be rendered; the document's JSON is below."
		return
	}
	html, err := renderMarkdown(md)
	if err != nil {
		data.Problem = "The assessment could not be rendered; the document's JSON is below."
		return
	}
	data.Markdown, data.HTML = md, html
	if doc.Chain != nil {
		data.Flowchart = report.Flowchart(doc)
	}
}

// redactJSON redacts every string of a JSON document that is not a
// patch's diff, for a stored document that does not decode as a
// diagnosis; it gives null for what is not JSON at all.
func redactJSON(raw json.RawMessage) json.RawMessage {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return json.RawMessage("null")
	}
	out, err := json.Marshal(redactValue(v))
	if err != nil {
		return json.RawMessage("null")
	}
	return out
}

// redactValue redacts the strings of a decoded JSON value, leaving the
// values of "diff" keys alone.
func redactValue(v any) any {
	switch v := v.(type) {
	case string:
		return redact.String(v)
	case []any:
		for i := range v {
			v[i] = redactValue(v[i])
		}
	case map[string]any:
		for k, e := range v {
			if k != "diff" {
				v[k] = redactValue(e)
			}
		}
	}
	return v
}

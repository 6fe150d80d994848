package dashboard

import (
	"context"
	"net/http"
	"time"

	"github.com/polylane/polylane/analysis/redact"
	"github.com/polylane/polylane/store"
)

// maxClassRows bounds the classes table of the repository page.
const maxClassRows = 100

// classRows builds the classes table: every stored class (most recently
// seen first) with its runs in the window and its trend between the
// window's halves.
func (d *Dashboard) classRows(ctx context.Context, repo store.Repository, win Window) ([]ClassRow, error) {
	classes, err := d.st.ListClasses(ctx, store.ClassQuery{RepositoryID: repo.ID, IncludeMuted: true, Limit: maxClassRows})
	if err != nil {
		return nil, err
	}
	mid := win.From.AddDate(0, 0, win.Days/2)
	first, err := d.classCounts(ctx, repo.ID, win.From, mid)
	if err != nil {
		return nil, err
	}
	second, err := d.classCounts(ctx, repo.ID, mid, win.To)
	if err != nil {
		return nil, err
	}
	fixes, err := d.st.ListFixPullRequests(ctx, repo.ID)
	if err != nil {
		return nil, err
	}
	fixOf := map[string]store.FixPullRequest{}
	for _, f := range fixes {
		fixOf[f.ClassID] = f
	}
	rows := make([]ClassRow, 0, len(classes))
	for _, c := range classes {
		row := ClassRow{ID: c.ID, Workflow: c.WorkflowPath, Step: c.Step, Signature: redact.String(c.Signature), Count: c.Count,
			InWindow: first[c.ID] + second[c.ID], FirstSeen: c.FirstSeen, LastSeen: c.LastSeen,
			Trend: trend(first[c.ID], second[c.ID]), Verdict: c.Verdict, Pattern: c.Pattern,
			URL: classPath(repo.FullName, c.ID)}
		row.setMute(c)
		if f, ok := fixOf[c.ID]; ok {
			row.Fix = d.fixRef(repo, f)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// classCounts counts, per class, the run attempts it occurred in between
// from and to.
func (d *Dashboard) classCounts(ctx context.Context, repoID int64, from, to time.Time) (map[string]int, error) {
	list, err := d.st.ClassRunCounts(ctx, store.DayQuery{RepositoryIDs: []int64{repoID}, From: from, To: to})
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, c := range list {
		out[c.ClassID] += c.Runs
	}
	return out, nil
}

// fixRef describes a fix pull request.
func (d *Dashboard) fixRef(repo store.Repository, f store.FixPullRequest) *FixRef {
	return &FixRef{Number: f.Number, State: f.State, URL: d.pullURL(repo.FullName, f.Number), ClosedAt: f.ClosedAt}
}

// trend compares a class's runs in the first and second half of a window.
func trend(first, second int) string {
	switch {
	case first == 0 && second == 0:
		return "none in window"
	case first == 0:
		return "new"
	case second == 0:
		return "gone quiet"
	case float64(second) >= 1.5*float64(first):
		return "rising"
	case float64(second) <= float64(first)/1.5:
		return "falling"
	}
	return "steady"
}

// diagnosisRows describes diagnoses with their links.
func (d *Dashboard) diagnosisRows(repo store.Repository, list []store.DiagnosisSummary) []DiagnosisRow {
	rows := make([]DiagnosisRow, 0, len(list))
	for _, s := range list {
		row := DiagnosisRow{ID: s.ID, RunID: s.RunID, RunNumber: s.RunNumber, Attempt: s.Attempt, Workflow: s.WorkflowName,
			Branch: s.Branch, Verdict: s.Verdict, ClassID: s.ClassID, Stale: s.Stale, CreatedAt: s.CreatedAt,
			URL: diagnosisPath(repo.FullName, s.ID), RunURL: d.runURL(repo.FullName, s.RunID)}
		if s.ClassID != "" {
			row.ClassURL = classPath(repo.FullName, s.ClassID)
		}
		rows = append(rows, row)
	}
	return rows
}

// DiagnosesData is the list of a repository's diagnoses, one page at a
// time (GET /api/v1/repos/{owner}/{repo}/diagnoses?cursor=…).
type DiagnosesData struct {
	Repository RepoRef        `json:"repository"`
	Diagnoses  []DiagnosisRow `json:"diagnoses"`
	// Next is the URL of the following page; empty on the last one.
	Next string `json:"next"`
}

// diagnoses builds one page of the diagnoses list.
func (d *Dashboard) diagnoses(r *http.Request, v *viewer) (any, pageMeta, error) {
	repo, err := d.repoFromPath(r, v)
	if err != nil {
		return nil, pageMeta{}, err
	}
	q := store.DiagnosisQuery{RepositoryID: repo.ID, Limit: 50}
	if tok := r.URL.Query().Get("cursor"); tok != "" {
		c, err := store.ParseDiagnosisCursor(tok)
		if err != nil {
			return nil, pageMeta{}, badRequest{msg: "the cursor is not one this server made"}
		}
		q.After = &c
	}
	page, err := d.st.ListDiagnosisSummaries(r.Context(), q)
	if err != nil {
		return nil, pageMeta{}, err
	}
	data := DiagnosesData{Repository: d.repoRef(repo), Diagnoses: d.diagnosisRows(repo, page.Diagnoses)}
	if page.Next != nil {
		data.Next = repoPath(repo.FullName) + "/diagnoses?cursor=" + page.Next.String()
	}
	return data, pageMeta{Title: "Diagnoses of " + repo.FullName,
		Crumbs: []crumb{{Name: "Overview", URL: "/"}, {Name: repo.FullName, URL: repoPath(repo.FullName)}}}, nil
}

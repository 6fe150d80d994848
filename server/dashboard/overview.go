package dashboard

import (
	"context"
	"fmt"
	"html/template"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/polylane/polylane/analysis/redact"
	"github.com/polylane/polylane/store"
)

// OverviewData is the overview page and GET /api/v1/overview: the
// installations and repositories the viewer can see, each workflow with its
// failure rate per day and its top failure class in the window.
type OverviewData struct {
	Window        Window             `json:"window"`
	Installations []InstallationView `json:"installations"`
}

// InstallationView is one installation with its visible repositories.
type InstallationView struct {
	ID           int64      `json:"id"`
	Account      string     `json:"account"`
	AccountType  string     `json:"account_type"`
	URL          string     `json:"url"`
	Repositories []RepoView `json:"repositories"`
}

// RepoView is one repository with its workflows.
type RepoView struct {
	ID        int64          `json:"id"`
	FullName  string         `json:"full_name"`
	Private   bool           `json:"private"`
	URL       string         `json:"url"`
	Workflows []WorkflowRate `json:"workflows"`
}

// WorkflowRate is a workflow's failure rate over the window.
type WorkflowRate struct {
	ID          int64     `json:"id"`
	Name        string    `json:"name"`
	Path        string    `json:"path"`
	LastRunAt   string    `json:"last_run_at"`
	Runs        int       `json:"runs"`
	Succeeded   int       `json:"succeeded"`
	Failed      int       `json:"failed"`
	FailureRate float64   `json:"failure_rate"`
	Days        []DayRate `json:"days"`
	TopClass    *ClassRef `json:"top_class"`

	windowDays int
}

// Sparkline draws the daily failure rates; pages call it, the API does not.
func (w WorkflowRate) Sparkline() template.HTML {
	return sparkline(fmt.Sprintf("Failure rate of %s per day over %d days: %s overall (%d of %d finished runs failed)",
		w.Name, w.windowDays, pct(w.FailureRate), w.Failed, w.Failed+w.Succeeded), w.Days)
}

// DayRate is one day of a workflow's runs.
type DayRate struct {
	Day       string  `json:"day"`
	Runs      int     `json:"runs"`
	Succeeded int     `json:"succeeded"`
	Failed    int     `json:"failed"`
	Rate      float64 `json:"failure_rate"`
}

// ClassRef names a failure class and how often it occurred.
type ClassRef struct {
	ID        string `json:"id"`
	Step      string `json:"step"`
	Signature string `json:"signature"`
	Verdict   string `json:"verdict"`
	Runs      int    `json:"runs"`
	URL       string `json:"url"`
}

// overview builds the overview page.
func (d *Dashboard) overview(r *http.Request, v *viewer) (any, pageMeta, error) {
	data, err := d.overviewOf(r.Context(), v, 0)
	return data, pageMeta{Title: "Overview"}, err
}

// installation builds the page of one installation: the overview of its
// repositories. An installation the viewer cannot see is not found.
func (d *Dashboard) installation(r *http.Request, v *viewer) (any, pageMeta, error) {
	id, err := strconv.ParseInt(chi.URLParam(r, "installation"), 10, 64)
	if err != nil || id <= 0 || !v.canSeeInstallation(id) {
		return nil, pageMeta{}, errNotFound
	}
	data, err := d.overviewOf(r.Context(), v, id)
	if err != nil {
		return nil, pageMeta{}, err
	}
	if len(data.Installations) == 0 {
		return nil, pageMeta{}, errNotFound
	}
	in := data.Installations[0]
	return data, pageMeta{Title: in.Account, Crumbs: []crumb{{Name: "Overview", URL: "/"}}}, nil
}

// overviewOf assembles the overview of the viewer's repositories (of one
// installation when installationID is not 0).
func (d *Dashboard) overviewOf(ctx context.Context, v *viewer, installationID int64) (OverviewData, error) {
	insts, repos, err := d.visibleRepos(ctx, v, installationID)
	if err != nil {
		return OverviewData{}, err
	}
	names := map[int64]string{}
	for _, list := range repos {
		for _, r := range list {
			if len(names) < 1000 {
				names[r.ID] = r.FullName
			}
		}
	}
	data := OverviewData{Window: windowEnding(d.now(), d.now(), DefaultWindowDays), Installations: []InstallationView{}}
	rates := map[int64][]WorkflowRate{}
	if len(names) > 0 {
		if rates, data.Window, err = d.workflowRates(ctx, names); err != nil {
			return OverviewData{}, err
		}
	}
	for _, in := range insts {
		iv := InstallationView{ID: in.ID, Account: in.AccountLogin, AccountType: in.AccountType,
			URL: "/installations/" + strconv.FormatInt(in.ID, 10), Repositories: []RepoView{}}
		for _, r := range repos[in.ID] {
			wf := rates[r.ID]
			if wf == nil {
				wf = []WorkflowRate{}
			}
			iv.Repositories = append(iv.Repositories, RepoView{ID: r.ID, FullName: r.FullName, Private: r.Private,
				URL: repoPath(r.FullName), Workflows: wf})
		}
		data.Installations = append(data.Installations, iv)
	}
	return data, nil
}

// workflowRates computes each workflow's daily failure rates and top class
// over the window that ends with the newest run, for repositories given by
// id and full name.
func (d *Dashboard) workflowRates(ctx context.Context, names map[int64]string) (map[int64][]WorkflowRate, Window, error) {
	ids := make([]int64, 0, len(names))
	for id := range names {
		ids = append(ids, id)
	}
	wfs, err := d.st.ListWorkflows(ctx, ids)
	if err != nil {
		return nil, Window{}, err
	}
	var last store.WorkflowSummary
	for _, w := range wfs {
		if w.LastRunAt.After(last.LastRunAt) {
			last = w
		}
	}
	win := windowEnding(last.LastRunAt, d.now(), DefaultWindowDays)
	q := store.DayQuery{RepositoryIDs: ids, From: win.From, To: win.To}
	days, err := d.st.OutcomeDays(ctx, q)
	if err != nil {
		return nil, win, err
	}
	tops, err := d.st.TopClasses(ctx, q)
	if err != nil {
		return nil, win, err
	}
	type wfKey struct{ repo, wf int64 }
	perDay := map[wfKey]map[string]DayRate{}
	for _, od := range days {
		k := wfKey{od.RepositoryID, od.WorkflowID}
		if perDay[k] == nil {
			perDay[k] = map[string]DayRate{}
		}
		day := od.Day.Format("2006-01-02")
		perDay[k][day] = DayRate{Day: day, Runs: od.Runs, Succeeded: od.Succeeded, Failed: od.Failed}
	}
	top := map[wfKey]store.ClassRunCount{}
	for _, c := range tops {
		top[wfKey{c.RepositoryID, c.WorkflowID}] = c
	}
	out := map[int64][]WorkflowRate{}
	for _, w := range wfs {
		k := wfKey{w.RepositoryID, w.WorkflowID}
		wr := WorkflowRate{ID: w.WorkflowID, Name: w.Name, Path: w.Path, LastRunAt: w.LastRunAt.Format("2006-01-02T15:04:05Z")}
		for _, day := range win.dayList() {
			dr := DayRate{Day: day.Format("2006-01-02")}
			if p, ok := perDay[k][dr.Day]; ok {
				dr = p
			}
			dr.Rate = rate(dr.Failed, dr.Succeeded)
			wr.Runs, wr.Succeeded, wr.Failed = wr.Runs+dr.Runs, wr.Succeeded+dr.Succeeded, wr.Failed+dr.Failed
			wr.Days = append(wr.Days, dr)
		}
		wr.FailureRate = rate(wr.Failed, wr.Succeeded)
		if c, ok := top[k]; ok {
			wr.TopClass = &ClassRef{ID: c.ClassID, Step: c.Step, Signature: redact.String(c.Signature), Verdict: c.Verdict, Runs: c.Runs,
				URL: classPath(names[w.RepositoryID], c.ClassID)}
		}
		wr.windowDays = win.Days
		out[w.RepositoryID] = append(out[w.RepositoryID], wr)
	}
	return out, win, nil
}

package dashboard

import (
	"context"
	"fmt"
	"html/template"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/polylane/polylane/store"
)

// RepositoryData is the repository page and GET /api/v1/repos/{owner}/{repo}:
// per workflow the run cadence, the failure classes and recent diagnoses.
type RepositoryData struct {
	Repository RepoRef           `json:"repository"`
	Window     Window            `json:"window"`
	Workflows  []WorkflowCadence `json:"workflows"`
	Classes    []ClassRow        `json:"classes"`
	Diagnoses  []DiagnosisRow    `json:"diagnoses"`
	// MoreDiagnoses lists all diagnoses page by page.
	MoreDiagnoses string `json:"more_diagnoses"`
	// Unfinished are the repository's latest deliveries that Polylane could
	// not finish, with the reason (for example a job whose process died on
	// each attempt, which is not run again).
	Unfinished []UnfinishedDelivery `json:"unfinished_deliveries"`
}

// UnfinishedDelivery is a delivery that ended failed.
type UnfinishedDelivery struct {
	GUID       string    `json:"delivery_id"`
	Event      string    `json:"event"`
	Action     string    `json:"action,omitempty"`
	ReceivedAt time.Time `json:"received_at"`
	FailedAt   time.Time `json:"failed_at"`
	Reason     string    `json:"reason"`
}

// RepoRef names a repository.
type RepoRef struct {
	ID        int64  `json:"id"`
	FullName  string `json:"full_name"`
	Private   bool   `json:"private"`
	URL       string `json:"url"`
	GitHubURL string `json:"github_url"`
}

// WorkflowCadence is one workflow's runs per day, stacked by outcome and
// failure class.
type WorkflowCadence struct {
	ID          int64        `json:"id"`
	Name        string       `json:"name"`
	Path        string       `json:"path"`
	Runs        int          `json:"runs"`
	Succeeded   int          `json:"succeeded"`
	Failed      int          `json:"failed"`
	FailureRate float64      `json:"failure_rate"`
	Days        []CadenceDay `json:"days"`
	Legend      []LegendItem `json:"legend"`

	Chart template.HTML `json:"-"`
}

// CadenceDay is one day of a workflow's runs.
type CadenceDay struct {
	Day          string       `json:"day"`
	Runs         int          `json:"runs"`
	Succeeded    int          `json:"succeeded"`
	Failed       int          `json:"failed"`
	Cancelled    int          `json:"cancelled"`
	Other        int          `json:"other"`
	Pending      int          `json:"pending"`
	Classes      []ClassCount `json:"classes"`
	Unclassified int          `json:"unclassified_failures"`
}

// ClassCount is how many failed runs of a day a class caused.
type ClassCount struct {
	ClassID string `json:"class_id"`
	Runs    int    `json:"runs"`
}

// LegendItem explains one colour of a chart.
type LegendItem struct {
	Key     string `json:"key"`
	Label   string `json:"label"`
	Color   string `json:"color"`
	ClassID string `json:"class_id,omitempty"`
	URL     string `json:"url,omitempty"`
	Runs    int    `json:"runs"`
}

// ClassRow is one line of the classes table.
type ClassRow struct {
	ID        string    `json:"id"`
	Workflow  string    `json:"workflow_path"`
	Step      string    `json:"step"`
	Signature string    `json:"signature"`
	Count     int       `json:"count"`
	InWindow  int       `json:"runs_in_window"`
	FirstSeen time.Time `json:"first_seen"`
	LastSeen  time.Time `json:"last_seen"`
	Trend     string    `json:"trend"`
	Verdict   string    `json:"verdict"`
	Pattern   string    `json:"pattern"`
	Muted     bool      `json:"muted"`                 // with "@polylane mute", in .github/polylane.yml, or both
	MutedBy   []string  `json:"muted_by,omitempty"`    // "command", "configuration"
	MuteNote  string    `json:"mute_reason,omitempty"` // the reasons given, each with its source
	Fix       *FixRef   `json:"fix_pull_request"`
	URL       string    `json:"url"`
}

// setMute fills a row's mute fields from its stored class: muted with the
// command, by the repository's configuration (as of its last published
// diagnosis), or both.
func (r *ClassRow) setMute(c store.FailureClass) {
	var notes []string
	if c.Muted {
		r.MutedBy = append(r.MutedBy, "command")
		if c.MuteReason != "" {
			notes = append(notes, "@polylane mute: "+c.MuteReason)
		}
	}
	if c.MutedInConfig {
		r.MutedBy = append(r.MutedBy, "configuration")
		if c.ConfigMuteReason != "" {
			notes = append(notes, ".github/polylane.yml: "+c.ConfigMuteReason)
		}
	}
	r.Muted = len(r.MutedBy) > 0
	r.MuteNote = strings.Join(notes, "; ")
}

// MuteTitle says, for the page's tooltip, who muted the class and why.
func (r ClassRow) MuteTitle() string {
	var by []string
	for _, b := range r.MutedBy {
		by = append(by, map[string]string{"command": "with @polylane mute", "configuration": "in .github/polylane.yml"}[b])
	}
	t := "muted " + strings.Join(by, " and ")
	if r.MuteNote != "" {
		t += " (" + r.MuteNote + ")"
	}
	return t
}

// FixRef is the fix pull request of a class.
type FixRef struct {
	Number   int       `json:"number"`
	State    string    `json:"state"`
	URL      string    `json:"url"`
	ClosedAt time.Time `json:"closed_at,omitzero"`
}

// DiagnosisRow is one diagnosis in a list.
type DiagnosisRow struct {
	ID        int64     `json:"id"`
	RunID     int64     `json:"run_id"`
	RunNumber int       `json:"run_number"`
	Attempt   int       `json:"attempt"`
	Workflow  string    `json:"workflow"`
	Branch    string    `json:"branch"`
	Verdict   string    `json:"verdict"`
	ClassID   string    `json:"class_id"`
	Stale     bool      `json:"stale"`
	CreatedAt time.Time `json:"created_at"`
	URL       string    `json:"url"`
	RunURL    string    `json:"run_url"`
	ClassURL  string    `json:"class_url,omitempty"`
}

// repository builds the repository page.
func (d *Dashboard) repository(r *http.Request, v *viewer) (any, pageMeta, error) {
	repo, err := d.repoFromPath(r, v)
	if err != nil {
		return nil, pageMeta{}, err
	}
	days, err := intParam(r, "days", DefaultWindowDays, 7, 90)
	if err != nil {
		return nil, pageMeta{}, err
	}
	ctx := r.Context()
	data := RepositoryData{Repository: d.repoRef(repo), Workflows: []WorkflowCadence{}, Classes: []ClassRow{},
		Diagnoses: []DiagnosisRow{}, MoreDiagnoses: repoPath(repo.FullName) + "/diagnoses"}
	wfs, err := d.st.ListWorkflows(ctx, []int64{repo.ID})
	if err != nil {
		return nil, pageMeta{}, err
	}
	var last time.Time
	for _, w := range wfs {
		if w.LastRunAt.After(last) {
			last = w.LastRunAt
		}
	}
	data.Window = windowEnding(last, d.now(), days)
	if data.Workflows, err = d.cadence(ctx, repo, wfs, data.Window); err != nil {
		return nil, pageMeta{}, err
	}
	if data.Classes, err = d.classRows(ctx, repo, data.Window); err != nil {
		return nil, pageMeta{}, err
	}
	page, err := d.st.ListDiagnosisSummaries(ctx, store.DiagnosisQuery{RepositoryID: repo.ID, Limit: 10})
	if err != nil {
		return nil, pageMeta{}, err
	}
	data.Diagnoses = d.diagnosisRows(repo, page.Diagnoses)
	failed, err := d.st.FailedDeliveries(ctx, repo.ID, 10)
	if err != nil {
		return nil, pageMeta{}, err
	}
	data.Unfinished = make([]UnfinishedDelivery, 0, len(failed))
	for _, f := range failed {
		data.Unfinished = append(data.Unfinished, UnfinishedDelivery{GUID: f.GUID, Event: f.Event, Action: f.Action,
			ReceivedAt: f.ReceivedAt, FailedAt: f.UpdatedAt, Reason: f.Error})
	}
	return data, pageMeta{Title: repo.FullName, Crumbs: []crumb{{Name: "Overview", URL: "/"}}}, nil
}

// repoRef describes a repository with its links.
func (d *Dashboard) repoRef(r store.Repository) RepoRef {
	return RepoRef{ID: r.ID, FullName: r.FullName, Private: r.Private, URL: repoPath(r.FullName),
		GitHubURL: d.gh.WebURL() + "/" + r.FullName}
}

// cadence builds each workflow's chart over the window.
func (d *Dashboard) cadence(ctx context.Context, repo store.Repository, wfs []store.WorkflowSummary, win Window) ([]WorkflowCadence, error) {
	q := store.DayQuery{RepositoryIDs: []int64{repo.ID}, From: win.From, To: win.To}
	runDays, err := d.st.RunDays(ctx, q)
	if err != nil {
		return nil, err
	}
	classDays, err := d.st.ClassDays(ctx, q)
	if err != nil {
		return nil, err
	}
	out := []WorkflowCadence{}
	for _, w := range wfs {
		wc := WorkflowCadence{ID: w.WorkflowID, Name: w.Name, Path: w.Path}
		byDay := map[string]*CadenceDay{}
		for _, day := range win.dayList() {
			wc.Days = append(wc.Days, CadenceDay{Day: day.Format("2006-01-02"), Classes: []ClassCount{}})
		}
		for i := range wc.Days {
			byDay[wc.Days[i].Day] = &wc.Days[i]
		}
		for _, rd := range runDays {
			if cd := byDay[rd.Day.Format("2006-01-02")]; cd != nil && rd.WorkflowID == w.WorkflowID {
				addOutcome(cd, rd.Conclusion, rd.Runs)
			}
		}
		classTotals := map[string]int{}
		for _, c := range classDays {
			if cd := byDay[c.Day.Format("2006-01-02")]; cd != nil && c.WorkflowID == w.WorkflowID {
				cd.Classes = append(cd.Classes, ClassCount{ClassID: c.ClassID, Runs: c.Runs})
				classTotals[c.ClassID] += c.Runs
			}
		}
		for i := range wc.Days {
			cd := &wc.Days[i]
			sum := 0
			for _, c := range cd.Classes {
				sum += c.Runs
			}
			cd.Unclassified = max(0, cd.Failed-sum)
			wc.Runs, wc.Succeeded, wc.Failed = wc.Runs+cd.Runs, wc.Succeeded+cd.Succeeded, wc.Failed+cd.Failed
		}
		wc.FailureRate = rate(wc.Failed, wc.Succeeded)
		wc.Legend = d.legend(repo, classTotals)
		wc.Chart = cadenceChart(w, wc, win)
		out = append(out, wc)
	}
	return out, nil
}

// addOutcome counts runs of a conclusion into a day.
func addOutcome(cd *CadenceDay, conclusion string, n int) {
	cd.Runs += n
	switch outcomeOf(conclusion) {
	case outcomeSuccess:
		cd.Succeeded += n
	case outcomeFailure:
		cd.Failed += n
	case outcomeCancelled:
		cd.Cancelled += n
	case outcomePending:
		cd.Pending += n
	default:
		cd.Other += n
	}
}

// legend lists a chart's colours: outcomes, then classes by frequency.
func (d *Dashboard) legend(repo store.Repository, classTotals map[string]int) []LegendItem {
	ids := make([]string, 0, len(classTotals))
	for id := range classTotals {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		if classTotals[ids[i]] != classTotals[ids[j]] {
			return classTotals[ids[i]] > classTotals[ids[j]]
		}
		return ids[i] < ids[j]
	})
	items := []LegendItem{{Key: outcomeSuccess, Label: "succeeded", Color: colorSuccess}}
	for rank, id := range ids {
		label := "class " + shortClass(id)
		item := LegendItem{Key: "class:" + id, Label: label, Color: classColor(rank), ClassID: id, Runs: classTotals[id]}
		if id != "" {
			item.URL = classPath(repo.FullName, id)
		} else {
			item.Label = "failed, class not recorded"
		}
		items = append(items, item)
	}
	return append(items,
		LegendItem{Key: outcomeFailure, Label: "failed, not yet classified", Color: colorFailure},
		LegendItem{Key: outcomeCancelled, Label: "cancelled", Color: colorCancelled},
		LegendItem{Key: outcomeOther, Label: "skipped or neutral", Color: colorOther},
		LegendItem{Key: outcomePending, Label: "not finished", Color: colorPending})
}

// cadenceChart draws a workflow's runs per day.
func cadenceChart(w store.WorkflowSummary, wc WorkflowCadence, win Window) template.HTML {
	colors := map[string]string{}
	classes := 0
	for _, l := range wc.Legend {
		colors[l.Key] = l.Color
		if strings.HasPrefix(l.Key, "class:") {
			classes++
		}
	}
	bars := make([]bar, 0, len(wc.Days))
	for i, cd := range wc.Days {
		segs := []segment{{Key: outcomeSuccess, Label: "succeeded", Color: colorSuccess, Value: cd.Succeeded}}
		for _, l := range wc.Legend { // classes in legend order, so colours stack the same way every day
			if l.ClassID == "" && !strings.HasPrefix(l.Key, "class:") {
				continue
			}
			for _, c := range cd.Classes {
				if "class:"+c.ClassID == l.Key {
					segs = append(segs, segment{Key: l.Key, Label: l.Label, Color: l.Color, Value: c.Runs})
				}
			}
		}
		segs = append(segs,
			segment{Key: outcomeFailure, Color: colorFailure, Value: cd.Unclassified},
			segment{Key: outcomeCancelled, Color: colorCancelled, Value: cd.Cancelled},
			segment{Key: outcomeOther, Color: colorOther, Value: cd.Other},
			segment{Key: outcomePending, Color: colorPending, Value: cd.Pending})
		bars = append(bars, bar{Day: win.From.AddDate(0, 0, i), Segs: segs, Title: dayTitle(cd)})
	}
	return barChart(chartSpec{
		ID:      "cadence-" + strconv.FormatInt(w.WorkflowID, 10),
		Title:   fmt.Sprintf("Runs of %s per day, %s to %s", w.Name, win.From.Format("Jan 2"), win.To.AddDate(0, 0, -1).Format("Jan 2, 2006")),
		Desc:    fmt.Sprintf("%d runs in %d days: %d succeeded, %d failed (%s of finished runs), across %d failure %s. The table below lists the same numbers.", wc.Runs, win.Days, wc.Succeeded, wc.Failed, pct(wc.FailureRate), classes, plural(classes, "class", "classes")),
		Bars:    bars,
		Classes: classes,
	})
}

// dayTitle is the accessible text of one day's bar.
func dayTitle(cd CadenceDay) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d %s", cd.Day, cd.Runs, plural(cd.Runs, "run", "runs"))
	if cd.Runs > 0 {
		fmt.Fprintf(&b, ", %d succeeded, %d failed", cd.Succeeded, cd.Failed)
	}
	for _, c := range cd.Classes {
		fmt.Fprintf(&b, "; class %s: %d", shortClass(c.ClassID), c.Runs)
	}
	if cd.Cancelled > 0 {
		fmt.Fprintf(&b, "; %d cancelled", cd.Cancelled)
	}
	return b.String()
}

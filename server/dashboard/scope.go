package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/polylane/polylane/store"
)

// Window is the span of days a page counts, [From, To) in whole UTC days.
type Window struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	Days int       `json:"days"`
}

// midnightAfter is the first UTC midnight after t.
func midnightAfter(t time.Time) time.Time {
	return t.UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
}

// windowEnding is the window of days ending today, or, when the last run
// is older than that window, ending on the day of the last run, so that a
// quiet repository still shows its history.
func windowEnding(last, now time.Time, days int) Window {
	end := midnightAfter(now)
	if !last.IsZero() && last.Before(end.AddDate(0, 0, -days)) {
		end = midnightAfter(last)
	}
	return Window{From: end.AddDate(0, 0, -days), To: end, Days: days}
}

// dayList returns the days of a window in order.
func (w Window) dayList() []time.Time {
	out := make([]time.Time, 0, w.Days)
	for d := w.From; d.Before(w.To); d = d.AddDate(0, 0, 1) {
		out = append(out, d)
	}
	return out
}

// intParam reads an integer query parameter within [lo, hi] (def when absent).
func intParam(r *http.Request, name string, def, lo, hi int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, badRequest{msg: fmt.Sprintf("%s must be a number from %d to %d", name, lo, hi)}
	}
	return n, nil
}

// repoFromPath finds the repository a page is about and checks that the
// viewer may see it; anything else is errNotFound, never "forbidden".
func (d *Dashboard) repoFromPath(r *http.Request, v *viewer) (store.Repository, error) {
	owner, name := chi.URLParam(r, "owner"), chi.URLParam(r, "repo")
	if owner == "" || name == "" || len(owner) > 100 || len(name) > 100 {
		return store.Repository{}, errNotFound
	}
	repo, err := d.st.GetRepositoryByName(r.Context(), owner+"/"+name)
	if err != nil {
		return store.Repository{}, fmt.Errorf("repository %s/%s: %w", owner, name, err)
	}
	if !v.canSee(repo) {
		return store.Repository{}, errNotFound
	}
	return repo, nil
}

// visibleRepos lists the repositories the viewer may see, by installation
// (only installationID when it is not 0), with the installations' records.
func (d *Dashboard) visibleRepos(ctx context.Context, v *viewer, installationID int64) ([]store.Installation, map[int64][]store.Repository, error) {
	var ids []int64
	if v.public {
		all, err := d.st.ListRepositories(ctx, installationID)
		if err != nil {
			return nil, nil, err
		}
		seen := map[int64]bool{}
		for _, r := range all {
			if v.canSee(r) && !seen[r.InstallationID] {
				seen[r.InstallationID] = true
				ids = append(ids, r.InstallationID)
			}
		}
	} else {
		for id := range v.grant.Installations {
			if installationID == 0 || id == installationID {
				ids = append(ids, id)
			}
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	var insts []store.Installation
	repos := map[int64][]store.Repository{}
	for _, id := range ids {
		in, err := d.st.GetInstallation(ctx, id)
		if err != nil {
			in = store.Installation{ID: id, AccountLogin: fmt.Sprintf("installation %d", id)}
		}
		if in.Deleted {
			continue
		}
		list, err := d.st.ListRepositories(ctx, id)
		if err != nil {
			return nil, nil, err
		}
		for _, r := range list {
			if v.canSee(r) {
				repos[id] = append(repos[id], r)
			}
		}
		if v.public && len(repos[id]) == 0 {
			continue
		}
		insts = append(insts, in)
	}
	return insts, repos, nil
}

// repoPath is a repository's page on the dashboard.
func repoPath(fullName string) string {
	owner, name, _ := strings.Cut(fullName, "/")
	return "/repos/" + url.PathEscape(owner) + "/" + url.PathEscape(name)
}

// classPath is a failure class's page.
func classPath(fullName, classID string) string {
	return repoPath(fullName) + "/classes/" + url.PathEscape(classID)
}

// diagnosisPath is a diagnosis's page.
func diagnosisPath(fullName string, id int64) string {
	return repoPath(fullName) + "/diagnoses/" + strconv.FormatInt(id, 10)
}

// runURL is a run's page on GitHub.
func (d *Dashboard) runURL(fullName string, runID int64) string {
	return d.gh.WebURL() + "/" + fullName + "/actions/runs/" + strconv.FormatInt(runID, 10)
}

// jobLogURL is a job's log on GitHub, opened at a step. GitHub numbers the
// lines of each step from 1; Polylane keeps the raw log's line numbers, so
// the link opens the step and the page shows the raw line number.
func (d *Dashboard) jobLogURL(fullName string, runID, jobID int64, step int) string {
	u := d.runURL(fullName, runID) + "/job/" + strconv.FormatInt(jobID, 10)
	if step > 0 {
		u += "#step:" + strconv.Itoa(step) + ":1"
	}
	return u
}

// pullURL is a pull request's page on GitHub.
func (d *Dashboard) pullURL(fullName string, number int) string {
	return d.gh.WebURL() + "/" + fullName + "/pull/" + strconv.Itoa(number)
}

// Conclusion groups of the charts and rates.
const (
	outcomeSuccess   = "success"
	outcomeFailure   = "failure"
	outcomeCancelled = "cancelled"
	outcomeOther     = "other"
	outcomePending   = "pending"
)

// outcomeOf groups a run conclusion: failure covers failure, timed_out and
// startup_failure; other covers skipped, neutral, stale and action_required.
func outcomeOf(conclusion string) string {
	switch conclusion {
	case "success":
		return outcomeSuccess
	case "failure", "timed_out", "startup_failure":
		return outcomeFailure
	case "cancelled":
		return outcomeCancelled
	case "":
		return outcomePending
	}
	return outcomeOther
}

// rate is failed / (succeeded + failed), 0 without such runs.
func rate(failed, succeeded int) float64 {
	if failed+succeeded == 0 {
		return 0
	}
	return float64(failed) / float64(failed+succeeded)
}

package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"github.com/polylane/polylane/analysis/redact"
	"github.com/polylane/polylane/causal"
	"github.com/polylane/polylane/causal/diagnosis"
	"github.com/polylane/polylane/server/report"
	"github.com/polylane/polylane/store"
)

// Class page bounds.
const (
	classWindowDays = 90
	fixSpanDays     = 30
	samplesPerPage  = 20
	linesPerSample  = 3
	maxLineChars    = 400
)

// ClassData is the failure class page and
// GET /api/v1/repos/{owner}/{repo}/classes/{class}.
type ClassData struct {
	Repository RepoRef       `json:"repository"`
	Class      ClassRow      `json:"class"`
	Window     Window        `json:"window"`
	Timeline   []TimelineDay `json:"timeline"`
	Effect     *FixEffect    `json:"fix_effect"`
	// Verification is the verification of the class's open fix pull
	// request (verification.go); nil without one.
	Verification *FixVerification `json:"fix_verification"`
	Samples      []Sample         `json:"samples"`
	NextPage     string           `json:"next_samples"`
	Chain        *causal.Chain    `json:"chain"`
	Flowchart    string           `json:"flowchart"`
	Diagnosis    *DiagnosisRow    `json:"latest_diagnosis"`
	// PullRequests are the pull requests the class hit, as its latest
	// diagnoses of pull-request runs name them (the diagnosed one and the
	// others it was seen in), newest first.
	PullRequests []PullRequestHit `json:"pull_requests"`
	Chart        template.HTML    `json:"-"`
	Legend       []LegendItem     `json:"-"`
	Diagnoses    []DiagnosisRow   `json:"-"`
}

// PullRequestHit is a pull request a class hit; Classification is set for
// the pull request whose run was diagnosed (flaky, broken-base, new,
// unknown).
type PullRequestHit struct {
	Number         int    `json:"number"`
	URL            string `json:"url"`
	Classification string `json:"classification,omitempty"`
}

// TimelineDay is one day of a class's history in its workflow.
type TimelineDay struct {
	Day       string `json:"day"`
	Finished  int    `json:"finished_runs"`
	WithClass int    `json:"runs_with_class"`
}

// FixEffect is the class's failure rate before and after its fix pull
// request was merged: the fixSpanDays whole days before the merge day and
// after it (the merge day itself belongs to neither).
type FixEffect struct {
	MergedAt time.Time `json:"merged_at"`
	Before   RateSpan  `json:"before"`
	After    RateSpan  `json:"after"`
}

// RateSpan is the class's share of finished runs over some days.
type RateSpan struct {
	From      time.Time `json:"from"`
	To        time.Time `json:"to"`
	Finished  int       `json:"finished_runs"`
	WithClass int       `json:"runs_with_class"`
	Rate      float64   `json:"rate"`
}

// Sample is one occurrence of the class with its cause lines.
type Sample struct {
	RunID      int64        `json:"run_id"`
	Attempt    int          `json:"attempt"`
	JobID      int64        `json:"job_id"`
	JobName    string       `json:"job_name"`
	Step       int          `json:"step_number"`
	StepName   string       `json:"step_name"`
	OccurredAt time.Time    `json:"occurred_at"`
	RunURL     string       `json:"run_url"`
	LogURL     string       `json:"log_url"`
	Lines      []SampleLine `json:"lines"`
}

// SampleLine is a cause line, numbered as in the raw job log.
type SampleLine struct {
	N    int    `json:"n"`
	Text string `json:"text"`
}

// class builds the failure class page.
func (d *Dashboard) class(r *http.Request, v *viewer) (any, pageMeta, error) {
	repo, err := d.repoFromPath(r, v)
	if err != nil {
		return nil, pageMeta{}, err
	}
	ctx := r.Context()
	id := chi.URLParam(r, "class")
	c, err := d.st.GetClass(ctx, repo.ID, id)
	if err != nil {
		return nil, pageMeta{}, fmt.Errorf("class %q: %w", id, err)
	}
	data := ClassData{Repository: d.repoRef(repo), Samples: []Sample{}, PullRequests: []PullRequestHit{}}
	rows, err := d.classRows(ctx, repo, windowEnding(c.LastSeen, d.now(), DefaultWindowDays))
	if err != nil {
		return nil, pageMeta{}, err
	}
	for _, row := range rows {
		if row.ID == c.ID {
			data.Class = row
		}
	}
	if data.Class.ID == "" { // beyond the table's bound
		data.Class = ClassRow{ID: c.ID, Workflow: c.WorkflowPath, Step: c.Step, Signature: redact.String(c.Signature), Count: c.Count,
			FirstSeen: c.FirstSeen, LastSeen: c.LastSeen, Verdict: c.Verdict, Pattern: c.Pattern}
		data.Class.setMute(c)
	}
	data.Window = windowEnding(c.LastSeen, d.now(), classWindowDays)
	if err := d.classTimeline(ctx, repo, c, &data); err != nil {
		return nil, pageMeta{}, err
	}
	if err := d.fixEffect(ctx, repo, c, &data); err != nil {
		return nil, pageMeta{}, err
	}
	if err := d.fixVerification(ctx, repo, c, &data); err != nil {
		return nil, pageMeta{}, err
	}
	if err := d.samples(r, repo, c, &data); err != nil {
		return nil, pageMeta{}, err
	}
	if err := d.classChain(ctx, repo, c, &data); err != nil {
		return nil, pageMeta{}, err
	}
	meta := pageMeta{Title: "Class " + shortClass(c.ID) + " · " + repo.FullName, Mermaid: data.Flowchart != "",
		Crumbs: []crumb{{Name: "Overview", URL: "/"}, {Name: repo.FullName, URL: repoPath(repo.FullName)}}}
	return data, meta, nil
}

// classTimeline counts the class's runs and its workflow's finished runs
// per day over the class window, and draws them.
func (d *Dashboard) classTimeline(ctx context.Context, repo store.Repository, c store.FailureClass, data *ClassData) error {
	win := data.Window
	finished, with, err := d.classSpan(ctx, repo.ID, c, win.From, win.To)
	if err != nil {
		return err
	}
	bars := make([]bar, 0, win.Days)
	withTotal := 0
	for _, day := range win.dayList() {
		k := day.Format("2006-01-02")
		td := TimelineDay{Day: k, Finished: finished[k], WithClass: with[k]}
		withTotal += td.WithClass
		data.Timeline = append(data.Timeline, td)
		title := fmt.Sprintf("%s: %d of %d finished %s failed with this class", k, td.WithClass, td.Finished, plural(td.Finished, "run", "runs"))
		bars = append(bars, bar{Day: day, Title: title, Segs: []segment{
			{Key: "class:" + c.ID, Color: classColor(0), Value: td.WithClass},
			{Key: "other-runs", Color: colorOther, Value: max(0, td.Finished-td.WithClass)},
		}})
	}
	spec := chartSpec{ID: "timeline", Bars: bars, Classes: 1,
		Title: fmt.Sprintf("Runs with class %s per day, %s to %s", shortClass(c.ID), win.From.Format("Jan 2"), win.To.AddDate(0, 0, -1).Format("Jan 2, 2006")),
		Desc:  fmt.Sprintf("%d runs of %s failed with this class in %d days; grey is the workflow's other finished runs.", withTotal, c.WorkflowPath, win.Days)}
	if f, err := d.st.GetFixPullRequest(ctx, repo.ID, c.ID); err == nil && f.State == store.FixMerged {
		m := mergeDay(f)
		spec.Marker, spec.Marked = &m, fmt.Sprintf("fix #%d merged", f.Number)
	}
	data.Chart = barChart(spec)
	data.Legend = []LegendItem{{Key: "class", Label: "runs that failed with this class", Color: classColor(0)},
		{Key: "other-runs", Label: "other finished runs of the workflow", Color: colorOther}}
	return nil
}

// classSpan counts, per day, the finished runs of the class's workflow and
// the runs in which the class occurred.
func (d *Dashboard) classSpan(ctx context.Context, repoID int64, c store.FailureClass, from, to time.Time) (finished, with map[string]int, err error) {
	q := store.DayQuery{RepositoryIDs: []int64{repoID}, WorkflowID: c.WorkflowID, From: from, To: to}
	runDays, err := d.st.RunDays(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	q.ClassID = c.ID
	classDays, err := d.st.ClassDays(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	finished, with = map[string]int{}, map[string]int{}
	for _, rd := range runDays {
		if o := outcomeOf(rd.Conclusion); o == outcomeSuccess || o == outcomeFailure {
			finished[rd.Day.Format("2006-01-02")] += rd.Runs
		}
	}
	for _, cd := range classDays {
		with[cd.Day.Format("2006-01-02")] += cd.Runs
	}
	return finished, with, nil
}

// mergeDay is the UTC day a fix pull request was merged (closed).
func mergeDay(f store.FixPullRequest) time.Time {
	at := f.ClosedAt
	if at.IsZero() {
		at = f.UpdatedAt
	}
	return at.UTC().Truncate(24 * time.Hour)
}

// fixEffect fills the fix pull request and, when it was merged, the
// class's failure rate before and after.
func (d *Dashboard) fixEffect(ctx context.Context, repo store.Repository, c store.FailureClass, data *ClassData) error {
	f, err := d.st.GetFixPullRequest(ctx, repo.ID, c.ID)
	if err != nil || f.State != store.FixMerged {
		return nil // no fix, or not merged: nothing to compare
	}
	day := mergeDay(f)
	before, err := d.rateSpan(ctx, repo.ID, c, day.AddDate(0, 0, -fixSpanDays), day)
	if err != nil {
		return err
	}
	end := day.AddDate(0, 0, 1+fixSpanDays)
	if now := midnightAfter(d.now()); end.After(now) {
		end = now
	}
	after, err := d.rateSpan(ctx, repo.ID, c, day.AddDate(0, 0, 1), end)
	if err != nil {
		return err
	}
	merged := f.ClosedAt
	if merged.IsZero() {
		merged = f.UpdatedAt
	}
	data.Effect = &FixEffect{MergedAt: merged, Before: before, After: after}
	return nil
}

// rateSpan sums a class span into a rate.
func (d *Dashboard) rateSpan(ctx context.Context, repoID int64, c store.FailureClass, from, to time.Time) (RateSpan, error) {
	s := RateSpan{From: from, To: to}
	if !to.After(from) {
		return s, nil
	}
	finished, with, err := d.classSpan(ctx, repoID, c, from, to)
	if err != nil {
		return s, err
	}
	for _, n := range finished {
		s.Finished += n
	}
	for _, n := range with {
		s.WithClass += n
	}
	if s.Finished > 0 {
		s.Rate = float64(s.WithClass) / float64(s.Finished)
	}
	return s, nil
}

// samples fills one page of occurrences with their cause lines.
func (d *Dashboard) samples(r *http.Request, repo store.Repository, c store.FailureClass, data *ClassData) error {
	q := store.OccurrencePageQuery{RepositoryID: repo.ID, ClassID: c.ID, Limit: samplesPerPage}
	if tok := r.URL.Query().Get("cursor"); tok != "" {
		cur, err := store.ParseOccurrenceCursor(tok)
		if err != nil {
			return badRequest{msg: "the cursor is not one this server made"}
		}
		q.After = &cur
	}
	page, err := d.st.ListOccurrencePage(r.Context(), q)
	if err != nil {
		return err
	}
	for _, o := range page.Occurrences {
		s := Sample{RunID: o.RunID, Attempt: o.Attempt, JobID: o.JobID, JobName: o.JobName, Step: o.StepNumber,
			StepName: o.StepName, OccurredAt: o.OccurredAt, RunURL: d.runURL(repo.FullName, o.RunID),
			LogURL: d.jobLogURL(repo.FullName, o.RunID, o.JobID, o.StepNumber), Lines: causeLines(o.CauseLines)}
		data.Samples = append(data.Samples, s)
	}
	if page.Next != nil {
		data.NextPage = classPath(repo.FullName, c.ID) + "?cursor=" + url.QueryEscape(page.Next.String())
	}
	return nil
}

// causeLines decodes stored cause lines, bounded in count and length.
func causeLines(raw json.RawMessage) []SampleLine {
	var lines []SampleLine
	if err := json.Unmarshal(raw, &lines); err != nil {
		return []SampleLine{}
	}
	if len(lines) > linesPerSample {
		lines = lines[:linesPerSample]
	}
	for i := range lines {
		lines[i].Text = clip(redact.String(lines[i].Text), maxLineChars)
	}
	return lines
}

// clip shortens text to n runes, marking the cut, and drops invalid UTF-8.
func clip(s string, n int) string {
	if !utf8.ValidString(s) {
		s = string([]rune(s))
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// classChain fills the causal chain and flowchart from the class's latest
// diagnosis.
func (d *Dashboard) classChain(ctx context.Context, repo store.Repository, c store.FailureClass, data *ClassData) error {
	page, err := d.st.ListDiagnosisSummaries(ctx, store.DiagnosisQuery{RepositoryID: repo.ID, ClassID: c.ID, Limit: 5})
	if err != nil {
		return err
	}
	data.Diagnoses = d.diagnosisRows(repo, page.Diagnoses)
	if len(page.Diagnoses) == 0 {
		return nil
	}
	latest := data.Diagnoses[0]
	data.Diagnosis = &latest
	seen := map[int]bool{}
	for i, row := range data.Diagnoses {
		stored, err := d.st.GetDiagnosisByID(ctx, row.ID)
		if err != nil {
			return err
		}
		var stale diagnosis.Diagnosis
		if err := json.Unmarshal(stored.Document, &stale); err != nil {
			continue // an unreadable document shows no chain; the diagnosis page says more
		}
		doc := stale.Redacted() // stored before log lines were redacted, perhaps
		if i == 0 {
			data.Chain = doc.Chain
			if doc.Chain != nil {
				data.Flowchart = report.Flowchart(doc)
			}
		}
		if pr := doc.PullRequest; pr != nil {
			add := func(n int, classification string) {
				if n > 0 && !seen[n] {
					seen[n] = true
					data.PullRequests = append(data.PullRequests, PullRequestHit{Number: n,
						URL: d.gh.WebURL() + "/" + repo.FullName + "/pull/" + strconv.Itoa(n), Classification: classification})
				}
			}
			add(pr.Number, pr.Classification)
			for _, n := range pr.OtherPullRequests {
				add(n, "")
			}
		}
	}
	return nil
}

package demoscenario

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// Facts of the fictional repository the scenario is about. Every id is made
// up; only their shapes follow GitHub's.
const (
	owner        = "lumenfield"
	repoName     = "tally"
	fullName     = owner + "/" + repoName
	repoID       = 861204377
	ownerID      = 171340512
	installID    = 60417723
	workflowID   = 120551846
	workflowName = "CI"
	workflowPath = ".github/workflows/ci.yml"
	// seed makes the generator deterministic; change it only on purpose.
	seed = 20261127
)

// The history runs from firstDay for historyDays days.
var firstDay = time.Date(2026, 10, 30, 0, 0, 0, 0, time.UTC)

const historyDays = 29

// person is a commit author and run actor.
type person struct {
	login, name, email string
	id                 int64
	bot                bool
}

var (
	mara     = person{"mara-okafor", "Mara Okafor", "mara@lumenfield.dev", 81233417, false}
	jonas    = person{"jbrandt", "Jonas Brandt", "jonas.brandt@lumenfield.dev", 64410982, false}
	priyanka = person{"priyanka-sel", "Priyanka Sel", "priyanka@lumenfield.dev", 93850211, false}
	tomasz   = person{"tomasz-w", "Tomasz Wierzbicki", "tomasz.w@lumenfield.dev", 57120394, false}
	depbot   = person{"dependabot[bot]", "dependabot[bot]", "49699333+dependabot[bot]@users.noreply.github.com", 49699333, true}
	people   = []person{mara, jonas, priyanka, tomasz}
)

// outcome is how a run ends.
type outcome int

const (
	green          outcome = iota
	dbNotReady             // "Migrate database" fails: the postgres service is not accepting connections yet
	unitRegression         // "Unit tests" fail: a month-bucketing bug that is merged and fixed four runs later
	lintIssue              // "Lint" fails on a pull request
)

// pullRef is the pull request a pull_request run belongs to.
type pullRef struct {
	number int
	id     int64
	branch string
	title  string
	author person
}

// plannedRun is one run of the CI workflow, as planned before any JSON or
// log is written.
type plannedRun struct {
	id, checkSuite int64
	number         int
	created        time.Time
	branch, event  string
	sha            string
	message        string // head commit message; its first line is the title on push runs
	author         person
	pr             *pullRef
	outcome        outcome
	// cacheHit says whether setup-go restored the module and build cache.
	cacheHit bool
	// port is the host port Docker mapped the postgres service to.
	port int
	// hasQuota says whether the commit has internal/quota (pull request
	// 238 and main from its merge on).
	hasQuota bool
}

// title is the run's display title.
func (p *plannedRun) title() string {
	if p.pr != nil {
		return p.pr.title
	}
	return firstLine(p.message)
}

func firstLine(s string) string {
	for i := range len(s) {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}

// pushSlots returns the times of pushes to main: a few on weekdays, at most
// one on weekend days, during working hours.
func pushSlots(r *rand.Rand) []time.Time {
	var out []time.Time
	for d := range historyDays {
		day := firstDay.AddDate(0, 0, d)
		n := 2 + r.IntN(4)
		if wd := day.Weekday(); wd == time.Saturday || wd == time.Sunday {
			n = r.IntN(2)
		}
		var mins []int
		for len(mins) < n {
			m := 7*60 + r.IntN(11*60)
			if !slices.ContainsFunc(mins, func(o int) bool { return abs(o-m) < 15 }) {
				mins = append(mins, m)
			}
		}
		slices.Sort(mins)
		for _, m := range mins {
			out = append(out, day.Add(time.Duration(m)*time.Minute+time.Duration(r.IntN(60))*time.Second))
		}
	}
	return out
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// pullRequestRuns are the runs of pull requests, on their own branches.
func pullRequestRuns() []plannedRun {
	quotas := &pullRef{number: 238, id: 2467180331, branch: "feat/customer-quotas", title: "quota: per-customer monthly limits", author: priyanka}
	pgx := &pullRef{number: 246, id: 2501974226, branch: "dependabot/go_modules/github.com/jackc/pgx/v5-5.7.2",
		title: "deps: bump github.com/jackc/pgx/v5 from 5.7.1 to 5.7.2", author: depbot}
	docs := &pullRef{number: 251, id: 2519340187, branch: "docs/helm-values", title: "docs: document the chart's database secret", author: tomasz}
	at := func(day, hour, minute int) time.Time {
		return firstDay.AddDate(0, 0, day).Add(time.Duration(hour)*time.Hour + time.Duration(minute)*time.Minute + 17*time.Second)
	}
	return []plannedRun{
		{created: at(5, 9, 41), pr: quotas, outcome: lintIssue, message: "quota: enforce monthly limits per customer and meter"},
		{created: at(5, 11, 2), pr: quotas, outcome: green, message: "quota: check the error of Touch"},
		{created: at(18, 6, 12), pr: pgx, outcome: dbNotReady, message: "deps: bump github.com/jackc/pgx/v5 from 5.7.1 to 5.7.2\n\nBumps github.com/jackc/pgx/v5 from 5.7.1 to 5.7.2."},
		{created: at(18, 14, 36), pr: pgx, outcome: green, message: "Merge branch 'main' into dependabot/go_modules/github.com/jackc/pgx/v5-5.7.2"},
		{created: at(22, 16, 5), pr: docs, outcome: green, message: "docs: document the chart's database secret"},
		{created: at(25, 10, 48), pr: docs, outcome: green, message: "docs: say which key the secret must have"},
	}
}

// regressionAt is where, among main's runs (oldest first, as a fraction of
// them), the month-bucketing regression is merged; it fails regressionRuns
// runs and the next commit fixes it.
const (
	regressionAt   = 0.42
	regressionRuns = 4
	// flakeRuns is how many main runs hit the not-ready database, the newest
	// run (the trigger) included.
	flakeRuns = 8
)

// plan builds every run, oldest first.
func plan() []plannedRun {
	r := rand.New(rand.NewPCG(seed, 1))
	slots := pushSlots(r)
	mainRuns := make([]plannedRun, len(slots))
	msgs := mainMessages(len(slots))
	reg := int(regressionAt * float64(len(slots)))
	for i, t := range slots {
		p := &mainRuns[i]
		p.created, p.branch, p.event = t, "main", "push"
		p.message, p.author = msgs[i].text, msgs[i].author
		if i >= reg && i < reg+regressionRuns {
			p.outcome = unitRegression
		}
	}
	retitle(&mainRuns[reg], "rollup: bucket usage by the customer's time zone", jonas)
	retitle(&mainRuns[reg+regressionRuns], "rollup: take the zone offset at the event's time when bucketing months", jonas)
	for _, i := range flakyPicks(r, len(mainRuns), reg) {
		mainRuns[i].outcome = dbNotReady
	}
	all := append(mainRuns, pullRequestRuns()...)
	slices.SortStableFunc(all, func(a, b plannedRun) int { return a.created.Compare(b.created) })
	mergePullRequests(all)
	quota := false
	for i := range all {
		p := &all[i]
		quota = quota || p.pr == nil && strings.HasSuffix(p.message, " (#238)")
		p.hasQuota = quota || p.pr != nil && p.pr.number == 238
	}
	for i := range all {
		finishRun(&all[i], i, r)
	}
	return all
}

// retitle gives a run's merge commit another subject and author, keeping
// its pull-request number.
func retitle(p *plannedRun, subject string, author person) {
	num := p.message[strings.LastIndex(p.message, " (#"):]
	p.message, p.author = subject+num, author
}

// flakyPicks chooses the main runs that hit the not-ready database: the
// newest run, and others spread over the history, never next to the
// regression and never the run just before the newest.
func flakyPicks(r *rand.Rand, n, reg int) []int {
	picks := []int{n - 1}
	for len(picks) < flakeRuns {
		i := r.IntN(n - 2)
		if i >= reg-1 && i <= reg+regressionRuns || slices.Contains(picks, i) {
			continue
		}
		picks = append(picks, i)
	}
	return picks
}

// finishRun fills ids, numbers, the head SHA, the cache and the port.
func finishRun(p *plannedRun, i int, r *rand.Rand) {
	mins := int64(p.created.Sub(firstDay) / time.Minute)
	p.id = 19_481_200_000 + mins*2113 + int64(r.IntN(2000))
	p.checkSuite = 46_005_300_000 + mins*5209 + int64(r.IntN(5000))
	p.number = 1841 + i
	p.sha = hexString(r, 40)
	if p.pr != nil {
		p.branch, p.event, p.author = p.pr.branch, "pull_request", p.pr.author
	}
	// setup-go restores its cache on most runs; a run that hits the
	// not-ready database always had a warm cache, so go run started fast.
	p.cacheHit = p.outcome == dbNotReady || r.IntN(5) != 0
	p.port = 32768 + r.IntN(40)
}

// hexString returns n random lower-case hex digits.
func hexString(r *rand.Rand, n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[r.IntN(16)]
	}
	return string(b)
}

// jobIDs are the ids of a run's three jobs, in the workflow's order.
func (p *plannedRun) jobIDs() [3]int64 {
	base := 55_310_400_000 + int64(p.created.Sub(firstDay)/time.Minute)*5813 + p.id%977
	return [3]int64{base, base + 3, base + 8}
}

func (p *plannedRun) String() string {
	return fmt.Sprintf("run %d #%d %s %s", p.id, p.number, p.branch, p.created.Format(time.RFC3339))
}

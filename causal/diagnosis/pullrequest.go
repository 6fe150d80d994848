package diagnosis

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/polylane/polylane/analysis/gha"
	"github.com/polylane/polylane/analysis/history"
)

// Classifications of a pull-request run (contracts.md §2 pull_request).
const (
	PRFlaky      = "flaky"
	PRBrokenBase = "broken-base"
	PRNew        = "new"
	PRUnknown    = "unknown"
)

// maxPRExamples bounds the example runs the block lists.
const maxPRExamples = 6

// PullRequest is the diagnosis's pull_request block: whether the failure of
// a pull-request run is the pull request's own, with the runs of other pull
// requests and of the base branch that say so.
type PullRequest struct {
	Number                  int                  `json:"number"`
	Base                    string               `json:"base"`
	Classification          string               `json:"classification"`
	SeenInOtherPullRequests int                  `json:"seen_in_other_pull_requests"`
	SeenOnBaseBranch        int                  `json:"seen_on_base_branch"`
	Examples                []PullRequestExample `json:"examples"`
	// OtherPullRequests are the numbers of the other pull requests the class
	// hit, newest first (a fork's pull request without a number is left out).
	OtherPullRequests []int `json:"other_pull_requests,omitempty"`
	// From and To bound the runs compared; Compared counts them.
	From     time.Time `json:"from"`
	To       time.Time `json:"to"`
	Compared int       `json:"compared"`
	// OtherCount counts the other pull requests the class hit, forks'
	// included.
	OtherCount int `json:"other_pull_request_count,omitempty"`
	// Reason says in one sentence why the classification was reached.
	Reason string `json:"reason"`
	// FirstFailing is, for a new failure, the pull request's first run (and
	// commit) that failed this way since it last passed.
	FirstFailing *CommitRun `json:"first_failing,omitempty"`
	// BaseFirstBad is, for a broken base, the base branch's first run that
	// failed this way since it last passed.
	BaseFirstBad *BaseBreak `json:"base_first_bad,omitempty"`
}

// PullRequestExample is one run outside the pull request with the same
// failure: of another pull request (PullRequest set, or 0 for a fork's), or
// of the base branch (Branch is the base).
type PullRequestExample struct {
	RunID       int64     `json:"run_id"`
	PullRequest int       `json:"pull_request,omitempty"`
	Branch      string    `json:"branch"`
	HTMLURL     string    `json:"html_url,omitempty"`
	HeadSHA     string    `json:"head_sha,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
}

// CommitRun is a run and the commit it ran.
type CommitRun struct {
	SHA     string `json:"sha"`
	RunID   int64  `json:"run_id"`
	HTMLURL string `json:"html_url,omitempty"`
}

// BaseBreak is where the base branch started to fail: its first red run, the
// pull request whose merge made that commit when the message names one, and,
// when runs between the last green run and the first red one were cancelled,
// the last green commit: the regression is in (LastGoodSHA, SHA].
type BaseBreak struct {
	CommitRun
	PullRequest int    `json:"pull_request,omitempty"`
	LastGoodSHA string `json:"last_good_sha,omitempty"`
	Cancelled   int    `json:"cancelled_between,omitempty"`
}

// pullRequestView compares a pull-request run's failure with the same
// workflow's runs on the base branch and in other pull requests over the
// window's span of time (at least history.PullRequestLookback), and
// classifies it. It returns the block and the occurrences it computed for
// the runs outside the window.
func pullRequestView(in Input, trigger gha.Run, window []gha.Run, occs []history.Occurrence, trig history.Occurrence,
	windowClass history.Class, analyze history.Analyzer, gates map[string]gate,
) (*PullRequest, []history.Occurrence, error) {
	base := history.BaseBranch(trigger, in.Repository.DefaultBranch)
	from := trigger.CreatedAt.Add(-history.PullRequestLookback)
	if len(window) > 0 && window[0].CreatedAt.Before(from) {
		from = window[0].CreatedAt
	}
	others := history.Elsewhere(in.Runs, trigger, base, in.Repository.ID, from, 2*cmp.Or(in.WindowSize, history.DefaultWindow))
	eocc, err := occurrences(others, in, analyze)
	if err != nil {
		return nil, nil, err
	}
	eocc = withoutGates(eocc, gates)
	pr := &PullRequest{Number: history.PullRequestNumber(trigger), Base: base, From: from, To: trigger.CreatedAt,
		Examples: []PullRequestExample{}}
	inClass := classAcross(occs, eocc, trig)
	var baseRuns, prRuns []gha.Run
	for _, r := range others {
		if r.Conclusion == "cancelled" {
			if history.OnBase(r, base, in.Repository.ID) {
				baseRuns = append(baseRuns, r)
			}
			continue
		}
		pr.Compared++
		if history.OnBase(r, base, in.Repository.ID) {
			baseRuns = append(baseRuns, r)
		} else {
			prRuns = append(prRuns, r)
		}
	}
	pr.count(others, inClass, base, in.Repository.ID)
	pr.classify(baseRuns, prRuns, inClass)
	switch pr.Classification {
	case PRNew:
		pr.FirstFailing = firstFailing(window, windowClass)
	case PRBrokenBase:
		pr.BaseFirstBad = baseBreak(baseRuns, inClass)
	}
	pr.Reason = pr.reason()
	return pr, eocc, nil
}

// classAcross clusters the window's occurrences together with those outside
// it and returns the runs of the class that holds the trigger.
func classAcross(occs, eocc []history.Occurrence, trig history.Occurrence) map[int64]bool {
	all := make([]history.Occurrence, 0, len(occs)+len(eocc))
	all = append(append(all, occs...), eocc...)
	classes := history.Cluster(clusterable(all, trig), nil)
	out := map[int64]bool{}
	if i := triggerClassIndex(classes, trig); i >= 0 {
		for _, id := range classes[i].Runs {
			out[id] = true
		}
	}
	delete(out, trig.RunID)
	return out
}

// count fills the counts, examples and pull-request numbers, newest first.
func (pr *PullRequest) count(others []gha.Run, inClass map[int64]bool, base string, repoID int64) {
	seen := map[string]bool{}
	for i := len(others) - 1; i >= 0; i-- {
		r := others[i]
		if !inClass[r.ID] {
			continue
		}
		onBase := history.OnBase(r, base, repoID)
		n := history.PullRequestNumber(r)
		if onBase {
			pr.SeenOnBaseBranch++
		} else {
			pr.SeenInOtherPullRequests++
			if k := prKey(r); !seen[k] {
				seen[k] = true
				pr.OtherCount++
			}
			if n != 0 && !slices.Contains(pr.OtherPullRequests, n) {
				pr.OtherPullRequests = append(pr.OtherPullRequests, n)
			}
		}
		if len(pr.Examples) < maxPRExamples {
			ex := PullRequestExample{RunID: r.ID, Branch: r.HeadBranch, HTMLURL: r.HTMLURL, HeadSHA: r.HeadSHA, CreatedAt: r.CreatedAt}
			if !onBase {
				ex.PullRequest = n
			}
			pr.Examples = append(pr.Examples, ex)
		}
	}
}

// classify decides the classification. The base branch is broken when its
// latest runs fail this way: two or more, unless the base failed this way
// before and other pull requests passed twice since; one only when no
// earlier base run failed this way and no other pull request passed since. A workflow
// without base-branch runs is broken when every run of at least two other
// pull requests failed this way since the failure first appeared. Any other
// failure seen elsewhere is flaky; one seen nowhere else is new, unless
// fewer than history.MinHistory runs elsewhere were compared: too little to
// tell.
func (pr *PullRequest) classify(baseRuns, prRuns []gha.Run, inClass map[int64]bool) {
	seen := pr.SeenOnBaseBranch + pr.SeenInOtherPullRequests
	switch {
	case seen == 0 && pr.Compared < history.MinHistory:
		pr.Classification = PRUnknown
		return
	case seen == 0:
		pr.Classification = PRNew
		return
	}
	completed := slices.DeleteFunc(slices.Clone(baseRuns), func(r gha.Run) bool { return r.Conclusion == "cancelled" })
	streak := 0
	for i := len(completed) - 1; i >= 0 && inClass[completed[i].ID]; i-- {
		streak++
	}
	switch {
	case streak >= 1:
		// a broken base fails every pull request merged with it: other
		// pull requests that passed since it turned red, where the base
		// has failed this way and passed before, say it comes and goes
		start := completed[len(completed)-streak]
		earlier := slices.ContainsFunc(completed[:len(completed)-streak], func(r gha.Run) bool { return inClass[r.ID] })
		passedSince := 0
		for _, r := range prRuns {
			if r.Conclusion == "success" && r.CreatedAt.After(start.CreatedAt) {
				passedSince++
			}
		}
		if streak >= 2 && !(earlier && passedSince >= 2) || streak == 1 && !earlier && passedSince == 0 {
			pr.Classification = PRBrokenBase
			return
		}
	case len(completed) == 0 && pr.OtherCount >= 2 && persistentAcross(prRuns, inClass):
		pr.Classification = PRBrokenBase
		return
	}
	pr.Classification = PRFlaky
}

// persistentAcross reports whether every run of other pull requests since
// the first one in the class failed this way.
func persistentAcross(prRuns []gha.Run, inClass map[int64]bool) bool {
	first := slices.IndexFunc(prRuns, func(r gha.Run) bool { return inClass[r.ID] })
	if first < 0 {
		return false
	}
	for _, r := range prRuns[first:] {
		if !inClass[r.ID] {
			return false
		}
	}
	return true
}

// firstFailing returns the pull request's first run of the trigger's class
// since the pull request last passed: the commit that most likely brought
// the failure.
func firstFailing(window []gha.Run, c history.Class) *CommitRun {
	var first *gha.Run
	for i := len(window) - 1; i >= 0; i-- {
		r := &window[i]
		if r.Conclusion == "cancelled" {
			continue
		}
		if !slices.Contains(c.Runs, r.ID) {
			break
		}
		first = r
	}
	if first == nil {
		return nil
	}
	return &CommitRun{SHA: first.HeadSHA, RunID: first.ID, HTMLURL: first.HTMLURL}
}

// baseBreak returns the base branch's first run of its current streak of
// this failure, with the last green commit before it when cancelled runs
// sit in between.
func baseBreak(baseRuns []gha.Run, inClass map[int64]bool) *BaseBreak {
	first := -1
	for i := len(baseRuns) - 1; i >= 0; i-- {
		r := baseRuns[i]
		if r.Conclusion == "cancelled" {
			continue
		}
		if !inClass[r.ID] {
			break
		}
		first = i
	}
	if first < 0 {
		return nil
	}
	r := baseRuns[first]
	b := &BaseBreak{CommitRun: CommitRun{SHA: r.HeadSHA, RunID: r.ID, HTMLURL: r.HTMLURL}, PullRequest: history.IntroducedBy(r)}
	i := first - 1
	for ; i >= 0 && baseRuns[i].Conclusion == "cancelled"; i-- {
		b.Cancelled++
	}
	if b.Cancelled > 0 && i >= 0 && baseRuns[i].Conclusion == "success" {
		b.LastGoodSHA = baseRuns[i].HeadSHA
	}
	return b
}

// Span says over which time the runs were compared: "in the last 30 days".
func (pr *PullRequest) Span() string {
	days := int(pr.To.Sub(pr.From).Round(24*time.Hour) / (24 * time.Hour))
	return fmt.Sprintf("in the last %d %s", days, plural(days, "day", "days"))
}

// reason says why, in the words the comment leads with.
func (pr *PullRequest) reason() string {
	span := pr.Span()
	elsewhere := pr.Elsewhere(func(s string) string { return s })
	switch pr.Classification {
	case PRUnknown:
		return fmt.Sprintf("Only %d other %s of this workflow, on %s or in other pull requests, %s to compare with, and none failed this way: too little to tell whether this pull request caused the failure.",
			pr.Compared, plural(pr.Compared, "run", "runs"), pr.Base, span)
	case PRNew:
		return fmt.Sprintf("None of the %d other %s of this workflow (on %s and in other pull requests) %s failed this way: the failure is most likely caused by this pull request.",
			pr.Compared, plural(pr.Compared, "run", "runs"), pr.Base, span)
	case PRBrokenBase:
		return fmt.Sprintf("Not caused by this pull request: %s currently fails this way, and the same failure hit %s %s.", pr.Base, elsewhere, span)
	}
	return fmt.Sprintf("Not caused by this pull request: the same failure hit %s %s, with green runs in between.", elsewhere, span)
}

// Elsewhere names where the failure was seen: "3 other pull requests and
// main twice"; branch renders the base branch's name.
func (pr *PullRequest) Elsewhere(branch func(string) string) string {
	var parts []string
	if n := pr.SeenInOtherPullRequests; n > 0 {
		prs := pr.OtherCount
		switch {
		case prs == n:
			parts = append(parts, fmt.Sprintf("%d other %s", prs, plural(prs, "pull request", "pull requests")))
		default:
			parts = append(parts, fmt.Sprintf("%d other %s (%d runs)", prs, plural(prs, "pull request", "pull requests"), n))
		}
	}
	if n := pr.SeenOnBaseBranch; n > 0 {
		parts = append(parts, fmt.Sprintf("%s %s", branch(pr.Base), times(n)))
	}
	return strings.Join(parts, " and ")
}

func times(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// blameBase points a pull request's regression at the base branch when the
// base broke this way: a pull-request run tests the merge with its base, so
// a pull request that turned red when its base moved past the base's first
// bad commit inherited the failure; its own commit (often "Merge branch
// 'main'") did not cause it.
func blameBase(d *Diagnosis) {
	pr := d.PullRequest
	if pr.Classification != PRBrokenBase || pr.BaseFirstBad == nil || d.Verdict.Kind != history.Regression {
		return
	}
	sha := pr.BaseFirstBad.SHA
	d.Verdict.FirstBadSHA = &sha
	d.Verdict.LastGoodSHA, d.Verdict.UntestedRuns = pr.BaseFirstBad.LastGoodSHA, pr.BaseFirstBad.Cancelled
	if d.Verdict.LastGoodSHA == "" {
		d.Verdict.UntestedRuns = 0
	}
	d.Verdict.Reason = fmt.Sprintf("The pull request turned red when its base %s moved past commit %s, which broke %s the same way.",
		pr.Base, short(sha), pr.Base)
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// prKey identifies a run's pull request: its number, else (a fork's) head
// repository and branch.
func prKey(r gha.Run) string {
	if n := history.PullRequestNumber(r); n != 0 {
		return fmt.Sprint("#", n)
	}
	repo := ""
	if r.HeadRepository != nil {
		repo = cmp.Or(r.HeadRepository.FullName, fmt.Sprint(r.HeadRepository.ID))
	}
	return repo + ":" + r.HeadBranch
}

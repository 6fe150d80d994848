package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/polylane/polylane/server/githubtest"
)

// publication is what Polylane posted for the trigger run.
type publication struct {
	// where says where the comment is ("pull request #12", "commit abc1234").
	where string
	body  string
	// fix is the fix pull request Polylane opened, if any.
	fix *githubtest.PullRequest
}

// errNoWebhookRoute means the server answered 404 to the delivery: this
// build does not handle webhooks.
var errNoWebhookRoute = errors.New("the server has no webhook route: POST /webhooks/github answered 404 Not Found")

// trigger sends the signed workflow_run delivery of the trigger run and
// waits until Polylane has posted its comment.
func (e *demoEnv) trigger(ctx context.Context, out io.Writer) (*publication, error) {
	ev, err := e.sim.WorkflowRunEvent(e.repo, e.trig.ID)
	if err != nil {
		return nil, fmt.Errorf("build the webhook delivery: %w", err)
	}
	d, err := e.sim.Deliver(ctx, e.url+"/webhooks/github", ev)
	if err != nil {
		return nil, fmt.Errorf("send the webhook delivery: %w", err)
	}
	fmt.Fprintf(out, "Sent the signed workflow_run delivery of %s #%d (%s on %s) -> %d %s\n",
		e.trig.Name, e.trig.RunNumber, e.trig.Conclusion, e.trig.HeadBranch, d.Status, http.StatusText(d.Status))
	switch {
	case d.Status == http.StatusNotFound:
		return nil, errNoWebhookRoute
	case d.Status < 200 || d.Status > 299:
		return nil, fmt.Errorf("the server answered the delivery %d: %s", d.Status, clip(string(d.Response), 200))
	}
	fmt.Fprintf(out, "Waiting for the diagnosis (up to %s)...\n", e.timeout)
	start := time.Now()
	pub, err := e.waitPublication(ctx)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "Posted after %.1fs.\n", time.Since(start).Seconds())
	return pub, nil
}

// waitPublication polls the simulator for the app's comment.
func (e *demoEnv) waitPublication(ctx context.Context) (*publication, error) {
	deadline := time.NewTimer(e.timeout)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if pub := findPublication(e.sim, e.repo); pub != nil {
			return pub, nil
		}
		select {
		case <-ctx.Done():
			return nil, errors.New("interrupted before the diagnosis was posted")
		case err := <-e.serverDone:
			e.serverDone <- err
			return nil, fmt.Errorf("the server stopped before posting: %w", orStopped(err))
		case <-deadline.C:
			return nil, fmt.Errorf("no comment by %s[bot] within %s of the delivery; see the server's log %s",
				e.sim.AppSlug(), e.timeout, e.logPath)
		case <-tick.C:
		}
	}
}

// commentPath matches the paths of comment writes on issues and pull requests.
var commentPath = regexp.MustCompile(`^/repos/[^/]+/[^/]+/issues/(\d+)/comments$`)

// findPublication returns the app's newest comment on a pull request or
// issue (else on a commit) and the fix pull request it opened, or nil when
// it has not commented yet.
func findPublication(sim *githubtest.Server, repo string) *publication {
	bot := sim.AppSlug() + "[bot]"
	numbers := map[int]bool{}
	var fix *githubtest.PullRequest
	for _, p := range sim.PullRequests(repo) {
		numbers[p.Number] = true
		if p.User == bot && (fix == nil || p.Number > fix.Number) {
			fix = &p
		}
	}
	for _, w := range sim.Writes() {
		if m := commentPath.FindStringSubmatch(w.Path); m != nil {
			n, _ := strconv.Atoi(m[1])
			numbers[n] = true
		}
	}
	var best *githubtest.IssueComment
	for n := range numbers {
		for _, c := range sim.Comments(repo, n) {
			if c.User == bot && (best == nil || c.UpdatedAt.After(best.UpdatedAt)) {
				best = &c
			}
		}
	}
	if best != nil {
		kind := "issue"
		if _, ok := numbers[best.Number]; ok && isPull(sim, repo, best.Number) {
			kind = "pull request"
		}
		return &publication{where: fmt.Sprintf("%s %s#%d", kind, repo, best.Number), body: best.Body, fix: fix}
	}
	ccs := sim.CommitComments(repo)
	sort.SliceStable(ccs, func(i, j int) bool { return ccs[i].ID > ccs[j].ID })
	for _, c := range ccs {
		if c.User == bot {
			return &publication{where: "commit " + shortSHA(c.SHA), body: c.Body, fix: fix}
		}
	}
	return nil
}

func isPull(sim *githubtest.Server, repo string, n int) bool {
	for _, p := range sim.PullRequests(repo) {
		if p.Number == n {
			return true
		}
	}
	return false
}

// printStarted prints where everything runs.
func (e *demoEnv) printStarted(out io.Writer) {
	fmt.Fprintf(out, "Polylane demo\n")
	fmt.Fprintf(out, "  example repository  %s: %d CI runs on main over four weeks, shipped inside the binary\n", e.repo, e.mainRun)
	fmt.Fprintf(out, "  GitHub simulator    %s\n", e.sim.APIURL())
	fmt.Fprintf(out, "  Polylane            %s (SQLite database and log in %s)\n\n", e.url, e.dir)
}

// printPublication prints the comment (control characters removed, so that
// log text quoted in it cannot drive the terminal) and the dashboard's URL.
func (e *demoEnv) printPublication(out io.Writer, pub *publication) {
	if f := pub.fix; f != nil {
		fmt.Fprintf(out, "\nPolylane opened fix pull request #%d %q (branch %s).\n", f.Number, terminalSafe(f.Title), terminalSafe(f.Head))
	}
	rule := strings.Repeat("─", 72)
	fmt.Fprintf(out, "\nComment posted on %s:\n%s\n%s\n%s\n", pub.where, rule, strings.TrimRight(terminalSafe(pub.body), "\n"), rule)
	fmt.Fprintf(out, "\nDashboard: %s/repos/%s  (sign in with GitHub: the simulator signs you in as %s)\n", e.url, e.repo, demoUser)
}

// terminalSafe replaces control characters other than newline and tab.
func terminalSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			return '?'
		}
		return r
	}, s)
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func shortSHA(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// pullRequest delivers the history's failed pull-request run too, once
// Polylane has posted its assessment of the trigger, and prints the line
// its comment leads with: whether the failure is the pull request's own.
// It only reports; a demo whose pull-request comment does not come still
// succeeds.
func (e *demoEnv) pullRequest(ctx context.Context, out io.Writer, main *publication) {
	if e.prRun == nil || !strings.Contains(main.body, "<!-- polylane:") {
		return
	}
	r := e.prRun
	number := r.PullRequests[0].Number
	ev, err := e.sim.WorkflowRunEvent(e.repo, r.ID)
	if err == nil {
		_, err = e.sim.Deliver(ctx, e.url+"/webhooks/github", ev)
	}
	if err != nil {
		fmt.Fprintf(out, "\nCould not deliver pull request #%d's failed run: %v\n", number, err)
		return
	}
	fmt.Fprintf(out, "\nSent the delivery of %s #%d, a failed run of pull request #%d (%s).\n", r.Name, r.RunNumber, number, terminalSafe(r.HeadBranch))
	marker := fmt.Sprintf(" run=%d ", r.ID)
	deadline := time.Now().Add(e.timeout)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		for _, c := range e.sim.Comments(e.repo, number) {
			if c.User == e.sim.AppSlug()+"[bot]" && strings.Contains(c.Body, marker) {
				fmt.Fprintf(out, "Its comment on pull request #%d leads with:\n  %s\n", number, terminalSafe(leadLine(c.Body)))
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	fmt.Fprintf(out, "No comment on pull request #%d within %s; see the server's log %s\n", number, e.timeout, e.logPath)
}

// leadLine is the first paragraph after a comment's heading, without its
// markdown links.
func leadLine(body string) string {
	_, rest, _ := strings.Cut(body, "\n### ")
	_, rest, _ = strings.Cut(rest, "\n\n")
	line, _, _ := strings.Cut(rest, "\n")
	return markdownLink.ReplaceAllString(line, "$1")
}

// markdownLink matches a markdown link, whose label is kept.
var markdownLink = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

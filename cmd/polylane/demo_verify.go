package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/polylane/polylane/server/githubtest"
)

// demoGreenRuns is how many runs of the trigger's workflow the demo
// completes, green, on the fix pull request's branch.
const demoGreenRuns = 3

// verifyFix shows a fix pull request being verified: the simulator runs
// the trigger's workflow on the fix branch demoGreenRuns times, green, and
// sends each run's signed workflow_run delivery; Polylane records them and
// edits the fix pull request's assessment, whose Verification section is
// printed.
func (e *demoEnv) verifyFix(ctx context.Context, out io.Writer, pub *publication) (*publication, error) {
	branch := pub.fix.Head
	for i := range demoGreenRuns {
		id, err := e.sim.RunOnBranch(e.repo, githubtest.BranchRun{Branch: branch, Like: e.trig.ID, Conclusion: "success"})
		if err != nil {
			return nil, fmt.Errorf("run %s on the fix branch: %w", e.trig.Name, err)
		}
		if err := e.deliverFixRun(ctx, id); err != nil {
			return nil, err
		}
		fmt.Fprintf(out, "The simulator ran %s on %s: success (%d of %d); sent its workflow_run delivery.\n", e.trig.Name, branch, i+1, demoGreenRuns)
	}
	want := fmt.Sprintf("%d green runs of", demoGreenRuns)
	deadline := time.Now().Add(e.timeout)
	for {
		if p := findPublication(e.sim, e.repo); p != nil && strings.Contains(p.body, want) && e.describes(pub.fix.Number, want) {
			fmt.Fprintf(out, "Polylane updated the Verification section of the fix pull request's description and assessment.\n")
			return p, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the fix pull request's description and assessment did not count %d green runs within %s; see the server's log %s",
				demoGreenRuns, e.timeout, e.logPath)
		}
		if err := e.pause(ctx); err != nil {
			return nil, err
		}
	}
}

// describes reports whether a pull request's description holds want.
func (e *demoEnv) describes(number int, want string) bool {
	for _, p := range e.sim.PullRequests(e.repo) {
		if p.Number == number {
			return strings.Contains(p.Body, want)
		}
	}
	return false
}

// deliverFixRun sends a fix-branch run's delivery. The fix is recorded a
// moment after its pull request appears: a delivery answered that no fix
// pull request is open is sent again until the timeout.
func (e *demoEnv) deliverFixRun(ctx context.Context, runID int64) error {
	ev, err := e.sim.WorkflowRunEvent(e.repo, runID)
	if err != nil {
		return fmt.Errorf("build the webhook delivery: %w", err)
	}
	deadline := time.Now().Add(e.timeout)
	for {
		d, err := e.sim.Deliver(ctx, e.url+"/webhooks/github", ev)
		switch {
		case err != nil:
			return fmt.Errorf("send the webhook delivery: %w", err)
		case d.Status < 200 || d.Status > 299:
			return fmt.Errorf("the server answered the delivery %d %s: %s", d.Status, http.StatusText(d.Status), clip(string(d.Response), 200))
		case !strings.Contains(string(d.Response), "no open fix pull request"):
			return nil
		case time.Now().After(deadline):
			return fmt.Errorf("the server did not see the fix pull request within %s: %s", e.timeout, clip(string(d.Response), 200))
		}
		if err := e.pause(ctx); err != nil {
			return err
		}
	}
}

// pause waits a tenth of a second, or reports why the demo must stop.
func (e *demoEnv) pause(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return errors.New("interrupted while verifying the fix pull request")
	case err := <-e.serverDone:
		e.serverDone <- err
		return fmt.Errorf("the server stopped: %w", orStopped(err))
	case <-time.After(100 * time.Millisecond):
		return nil
	}
}

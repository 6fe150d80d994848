package githubtest

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v66/github"
)

// freshClient is a token client on its own transport, so each case starts
// on a new connection and go-github's secondary-limit memory is empty.
func freshClient(t *testing.T, s *Server) *github.Client {
	t.Helper()
	tok, err := s.InstallationToken(tinyInst)
	if err != nil {
		t.Fatal(err)
	}
	c, err := github.NewClient(&http.Client{Transport: &http.Transport{}}).WithEnterpriseURLs(s.URL(), s.URL())
	if err != nil {
		t.Fatal(err)
	}
	return c.WithAuthToken(tok)
}

// faultCase is a fault and what go-github must report for it.
type faultCase struct {
	name  string
	fault Fault
	check func(t *testing.T, resp *github.Response, err error)
}

// faultCases are the status and transport faults as go-github v66 sees them.
func faultCases() []faultCase {
	return []faultCase{
		{"429 is a plain ErrorResponse", Fault{Kind: FaultTooManyRequests, RetryAfter: 30 * time.Second}, func(t *testing.T, resp *github.Response, err error) {
			var abuse *github.AbuseRateLimitError
			if statusOf(err) != 429 || errors.As(err, &abuse) || resp.Header.Get("Retry-After") != "30" {
				t.Errorf("err=%T %v Retry-After=%q", err, err, resp.Header.Get("Retry-After"))
			}
		}},
		{"403 secondary limit", Fault{Kind: FaultSecondaryLimit, RetryAfter: 30 * time.Second}, func(t *testing.T, _ *github.Response, err error) {
			var abuse *github.AbuseRateLimitError
			if !errors.As(err, &abuse) || abuse.GetRetryAfter() != 30*time.Second {
				t.Errorf("err=%T %v, want *AbuseRateLimitError with RetryAfter 30s", err, err)
			}
		}},
		{"502", Fault{Kind: FaultServerError}, func(t *testing.T, _ *github.Response, err error) {
			if statusOf(err) != 502 {
				t.Errorf("err=%v", err)
			}
		}},
		{"503 by Status", Fault{Kind: FaultServerError, Status: 503}, func(t *testing.T, _ *github.Response, err error) {
			if statusOf(err) != 503 {
				t.Errorf("err=%v", err)
			}
		}},
		{"409", Fault{Kind: FaultConflict}, func(t *testing.T, _ *github.Response, err error) {
			if statusOf(err) != 409 {
				t.Errorf("err=%v", err)
			}
		}},
		{"422", Fault{Kind: FaultValidation}, func(t *testing.T, _ *github.Response, err error) {
			if statusOf(err) != 422 || !strings.Contains(err.Error(), "Validation Failed") {
				t.Errorf("err=%v", err)
			}
		}},
		{"connection reset", Fault{Kind: FaultReset}, func(t *testing.T, _ *github.Response, err error) {
			if err == nil || statusOf(err) != 0 {
				t.Errorf("err=%v, want a transport error", err)
			}
		}},
	}
}

func TestFaultsSurfaceLikeGitHub(t *testing.T) {
	for _, tc := range faultCases() {
		t.Run(tc.name, func(t *testing.T) {
			s := startTiny(t, Options{})
			h := s.InjectFault(tc.fault)
			c := freshClient(t, s)
			_, resp, err := c.Repositories.Get(ctx(t), tinyOwner, tinyName)
			tc.check(t, resp, err)
			if h.Hits() != 1 {
				t.Errorf("hits = %d", h.Hits())
			}
			if _, _, err := freshClient(t, s).Repositories.Get(ctx(t), tinyOwner, tinyName); err != nil {
				t.Errorf("one-shot fault fired again: %v", err)
			}
			if calls := s.APICalls(); len(calls) != 2 || calls[0].Fault != tc.fault.Kind || calls[1].Fault != "" {
				t.Errorf("calls = %+v", calls)
			}
		})
	}
}

func TestTimeoutFault(t *testing.T) {
	s := startTiny(t, Options{})
	s.InjectFault(Fault{Kind: FaultTimeout})
	c := freshClient(t, s)
	short, cancel := context.WithTimeout(ctx(t), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err := c.Repositories.Get(short, tinyOwner, tinyName)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Errorf("err=%v after %v, want the client's deadline", err, time.Since(start))
	}
}

func TestResponseLostCommitsTheWrite(t *testing.T) {
	s := startTiny(t, Options{})
	s.InjectFault(Fault{Kind: FaultResponseLost, Method: "POST", Path: "/repos/*/*/issues/*/comments"})
	c := freshClient(t, s)
	_, _, err := c.Issues.CreateComment(ctx(t), tinyOwner, tinyName, tinyPR, &github.IssueComment{Body: github.String("sticky")})
	if err == nil {
		t.Fatal("the response was lost, the client must see an error")
	}
	if got := s.Comments(tinyRepo, tinyPR); len(got) != 1 || got[0].Body != "sticky" {
		t.Errorf("the write must be committed: %+v", got)
	}
	w := s.Writes()
	if len(w) != 1 || w[0].Status != 201 || w[0].Fault != FaultResponseLost || !strings.Contains(string(w[0].Body), "sticky") {
		t.Errorf("writes = %+v", w)
	}
}

func TestFaultSelection(t *testing.T) {
	s := startTiny(t, Options{})
	c := installClient(t, s) // its token exchange is not an API call
	s.InjectFault(Fault{Kind: FaultServerError, At: 2})
	repeat := s.InjectFault(Fault{Kind: FaultConflict, Method: "PATCH", Path: "/repos/acme/widget/issues/comments/*", Times: -1})
	var statuses []int
	for i := 0; i < 3; i++ {
		_, _, err := c.Repositories.Get(ctx(t), tinyOwner, tinyName)
		statuses = append(statuses, statusOf(err))
	}
	if statuses[0] != 0 || statuses[1] != 502 || statuses[2] != 0 {
		t.Errorf("statuses = %v, want only the 2nd API call to fail", statuses)
	}
	id, _ := s.AddIssueComment(tinyRepo, tinyPR, "dana", "hi")
	for i := 0; i < 3; i++ {
		if _, _, err := c.Issues.EditComment(ctx(t), tinyOwner, tinyName, id, &github.IssueComment{Body: github.String("x")}); statusOf(err) != 409 {
			t.Errorf("edit %d: %v, want 409", i, err)
		}
	}
	if _, _, err := c.Issues.GetComment(ctx(t), tinyOwner, tinyName, id); err != nil {
		t.Errorf("GET must not match a PATCH fault: %v", err)
	}
	repeat.Remove()
	if _, _, err := c.Issues.EditComment(ctx(t), tinyOwner, tinyName, id, &github.IssueComment{Body: github.String("x")}); err != nil || repeat.Hits() != 3 {
		t.Errorf("after Remove: %v, hits %d", err, repeat.Hits())
	}
	blob := s.InjectFault(Fault{Kind: FaultServerError, Target: KindBlob, Times: -1})
	loc, _, err := c.Actions.GetWorkflowJobLogs(ctx(t), tinyOwner, tinyName, tinyFailJob, 2)
	if err != nil {
		t.Fatal(err)
	}
	if resp := plainGet(t, loc.String(), nil); resp.StatusCode != 502 || blob.Hits() != 1 {
		t.Errorf("blob fault: %d, hits %d", resp.StatusCode, blob.Hits())
	}
	s.ResetFaults()
	if resp := plainGet(t, loc.String(), nil); resp.StatusCode != 200 {
		t.Errorf("after ResetFaults: %d", resp.StatusCode)
	}
	s.InjectFault(Fault{Kind: FaultServerError, Match: func(c Call) bool { return strings.HasSuffix(c.Path, "/jobs") }})
	if _, _, err := c.Actions.ListWorkflowJobs(ctx(t), tinyOwner, tinyName, tinyTrigger, nil); statusOf(err) != 502 {
		t.Errorf("predicate fault: %v", err)
	}
}

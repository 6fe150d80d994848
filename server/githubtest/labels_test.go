package githubtest

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestLabels adds labels to a pull request as go-github does (a JSON
// array) and in the object form: repeats stay once, the pull request and
// its issue show them, and bad requests are refused as GitHub refuses them.
func TestLabels(t *testing.T) {
	s := startTiny(t, Options{})
	c := installClient(t, s)
	got, _, err := c.Issues.AddLabelsToIssue(ctx(t), tinyOwner, tinyName, tinyPR, []string{"ci", "polylane fix"})
	if err != nil || len(got) != 2 || got[1].GetName() != "polylane fix" || got[0].GetID() == 0 {
		t.Fatalf("add: %v %+v", err, got)
	}
	if _, _, err := c.Issues.AddLabelsToIssue(ctx(t), tinyOwner, tinyName, tinyPR, []string{"CI", "flaky"}); err != nil {
		t.Fatal(err)
	}
	if want := "ci,polylane fix,flaky"; strings.Join(s.Labels(tinyRepo, tinyPR), ",") != want {
		t.Errorf("labels %q, want %s", s.Labels(tinyRepo, tinyPR), want)
	}
	pr, _, err := c.PullRequests.Get(ctx(t), tinyOwner, tinyName, tinyPR)
	if err != nil || len(pr.Labels) != 3 || pr.Labels[2].GetName() != "flaky" {
		t.Errorf("pull request labels: %v %+v", err, pr.Labels)
	}
	issue, _, err := c.Issues.Get(ctx(t), tinyOwner, tinyName, tinyPR)
	if err != nil || len(issue.Labels) != 3 {
		t.Errorf("issue labels: %v %+v", err, issue.Labels)
	}
	list, _, err := c.Issues.ListLabelsByIssue(ctx(t), tinyOwner, tinyName, tinyPR, nil)
	if err != nil || len(list) != 3 {
		t.Errorf("list: %v %d", err, len(list))
	}

	for name, tc := range map[string]struct {
		number int
		body   string
		status int
	}{
		"object form":   {tinyPR, `{"labels":["from-object"]}`, http.StatusOK},
		"no labels":     {tinyPR, `[]`, http.StatusUnprocessableEntity},
		"empty name":    {tinyPR, `[""]`, http.StatusUnprocessableEntity},
		"long name":     {tinyPR, `["` + strings.Repeat("x", 51) + `"]`, http.StatusUnprocessableEntity},
		"not JSON":      {tinyPR, `labels`, http.StatusBadRequest},
		"wrong shape":   {tinyPR, `{"labels":"ci"}`, http.StatusBadRequest},
		"no such issue": {99999, `["ci"]`, http.StatusNotFound},
	} {
		req, err := c.NewRequest(http.MethodPost, "repos/"+tinyRepo+"/issues/"+itoa(int64(tc.number))+"/labels", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Body = io.NopCloser(strings.NewReader(tc.body))
		req.ContentLength = int64(len(tc.body))
		resp, err := c.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%s: status %d, want %d", name, resp.StatusCode, tc.status)
		}
	}
	if labels := s.Labels(tinyRepo, tinyPR); len(labels) != 4 || labels[3] != "from-object" {
		t.Errorf("after the object form: %q", labels)
	}
}

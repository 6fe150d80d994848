package githubtest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v66/github"
)

func TestIssueCommentsLifecycle(t *testing.T) {
	s := startTiny(t, Options{})
	c := installClient(t, s)
	human, err := s.AddIssueComment(tinyRepo, tinyPR, "dana", "@polylane explain")
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for i := 0; i < 4; i++ {
		cm, _, err := c.Issues.CreateComment(ctx(t), tinyOwner, tinyName, tinyPR, &github.IssueComment{Body: github.String("<!-- polylane -->\nattempt " + string(rune('1'+i)))})
		if err != nil {
			t.Fatal(err)
		}
		if cm.GetUser().GetLogin() != "polylane[bot]" || cm.GetUser().GetType() != "Bot" {
			t.Errorf("comment author = %+v", cm.GetUser())
		}
		ids = append(ids, cm.GetID())
	}
	var got []int64
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 2}}
	for {
		page, resp, err := c.Issues.ListComments(ctx(t), tinyOwner, tinyName, tinyPR, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, cm := range page {
			got = append(got, cm.GetID())
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if want := append([]int64{human}, ids...); !equalIDs(got, want) {
		t.Errorf("listed %v, want ascending %v", got, want)
	}
	edited, _, err := c.Issues.EditComment(ctx(t), tinyOwner, tinyName, ids[0], &github.IssueComment{Body: github.String("<!-- polylane -->\nupdated")})
	if err != nil || edited.GetBody() != "<!-- polylane -->\nupdated" {
		t.Errorf("edit: %v", err)
	}
	one, _, err := c.Issues.GetComment(ctx(t), tinyOwner, tinyName, human)
	if err != nil || one.GetUser().GetLogin() != "dana" || one.GetAuthorAssociation() != "NONE" {
		t.Errorf("get: %v %+v", err, one)
	}
	if _, err := c.Issues.DeleteComment(ctx(t), tinyOwner, tinyName, ids[3]); err != nil {
		t.Fatal(err)
	}
	if n := len(s.Comments(tinyRepo, tinyPR)); n != 4 {
		t.Errorf("Comments() has %d, want 4 after a delete", n)
	}
}

func TestCommentBodyLimits(t *testing.T) {
	s := startTiny(t, Options{})
	c := installClient(t, s)
	long := strings.Repeat("é", maxCommentLength+1)
	if _, _, err := c.Issues.CreateComment(ctx(t), tinyOwner, tinyName, tinyPR, &github.IssueComment{Body: &long}); statusOf(err) != 422 {
		t.Errorf("65,537-character body: %v, want 422", err)
	}
	ok := strings.Repeat("é", maxCommentLength)
	if _, _, err := c.Issues.CreateComment(ctx(t), tinyOwner, tinyName, tinyPR, &github.IssueComment{Body: &ok}); err != nil {
		t.Errorf("65,536-character body: %v", err)
	}
	if _, _, err := c.Issues.CreateComment(ctx(t), tinyOwner, tinyName, tinyPR, &github.IssueComment{Body: github.String(" ")}); statusOf(err) != 422 {
		t.Errorf("blank body: %v, want 422", err)
	}
	if _, _, err := c.Issues.CreateComment(ctx(t), tinyOwner, tinyName, 999, &github.IssueComment{Body: github.String("x")}); statusOf(err) != 404 {
		t.Errorf("comment on a missing issue: %v", err)
	}
}

func TestReactionsAndUserComments(t *testing.T) {
	s := startTiny(t, Options{})
	c := installClient(t, s)
	id, err := s.AddIssueComment(tinyRepo, tinyPR, "dana", "@polylane why")
	if err != nil {
		t.Fatal(err)
	}
	r1, resp, err := c.Reactions.CreateIssueCommentReaction(ctx(t), tinyOwner, tinyName, id, "eyes")
	if err != nil || resp.StatusCode != http.StatusCreated || r1.GetUser().GetLogin() != "polylane[bot]" {
		t.Fatalf("reaction: %v %d", err, resp.StatusCode)
	}
	r2, resp, err := c.Reactions.CreateIssueCommentReaction(ctx(t), tinyOwner, tinyName, id, "eyes")
	if err != nil || resp.StatusCode != http.StatusOK || r2.GetID() != r1.GetID() {
		t.Errorf("repeated reaction: %v %d", err, resp.StatusCode)
	}
	if _, _, err := c.Reactions.CreateIssueCommentReaction(ctx(t), tinyOwner, tinyName, id, "party"); statusOf(err) != 422 {
		t.Errorf("bad reaction: %v", err)
	}
	user := s.NewTokenClient(s.UserToken("erin"))
	if _, _, err := user.Reactions.CreateIssueCommentReaction(ctx(t), tinyOwner, tinyName, id, "+1"); err != nil {
		t.Fatal(err)
	}
	req, _ := c.NewRequest(http.MethodGet, "repos/acme/widget/issues/comments/"+itoa(id)+"/reactions?content=eyes", nil)
	var list []*github.Reaction
	if _, err := c.Do(ctx(t), req, &list); err != nil || len(list) != 1 {
		t.Errorf("reactions filtered by content: %v %d", err, len(list))
	}
	cm, _, err := user.Issues.CreateComment(ctx(t), tinyOwner, tinyName, tinyPR, &github.IssueComment{Body: github.String("thanks")})
	if err != nil || cm.GetUser().GetLogin() != "erin" || cm.GetUser().GetType() != "User" {
		t.Errorf("user comment: %v %+v", err, cm.GetUser())
	}
	got := s.Comments(tinyRepo, tinyPR)
	if len(got) != 2 || len(got[0].Reactions) != 2 || got[0].Reactions[0].Content != "eyes" {
		t.Errorf("Comments() = %+v", got)
	}
}

func TestPermission(t *testing.T) {
	s := startTiny(t, Options{})
	c := installClient(t, s)
	if err := s.SetPermission(tinyRepo, "dana", "write"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetPermission(tinyRepo, "max", "maintain"); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ user, want, role string }{
		{"dana", "write", "write"}, {"max", "write", "maintain"}, {"acme", "admin", "admin"}, {"stranger", "read", "read"},
	}
	for _, tc := range tests {
		p, _, err := c.Repositories.GetPermissionLevel(ctx(t), tinyOwner, tinyName, tc.user)
		if err != nil || p.GetPermission() != tc.want || p.GetRoleName() != tc.role || p.GetUser().GetLogin() != tc.user {
			t.Errorf("%s: %v %q/%q, want %q/%q", tc.user, err, p.GetPermission(), p.GetRoleName(), tc.want, tc.role)
		}
	}
}

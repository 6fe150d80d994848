package githubtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-github/v66/github"
)

// octokitFixture is one recorded GitHub exchange of octokit/fixtures.
type octokitFixture struct {
	Method   string          `json:"method"`
	Path     string          `json:"path"`
	Body     json.RawMessage `json:"body"`
	Status   int             `json:"status"`
	Response json.RawMessage `json:"response"`
	Req      map[string]any  `json:"reqheaders"`
	Headers  map[string]any  `json:"headers"`
}

// loadFixtures reads one recorded scenario, skipping the test when the
// shared data is absent (failing under CI).
func loadFixtures(t *testing.T, name string) []octokitFixture {
	t.Helper()
	p := filepath.Join(sharedDir(), "data", "octokit-fixtures", name+".normalized-fixture.json")
	raw, err := os.ReadFile(p)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("fixture %s is missing: %v", name, err)
		}
		t.Skipf("fixture %s not found at %s", name, p)
	}
	var out []octokitFixture
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
	return out
}

// shapeDiff lists where the simulator's JSON lacks a field GitHub's has, or
// has it with another kind; values are not compared (ids, URLs and SHAs
// differ by nature). An array's shape is its first element's.
func shapeDiff(where string, github, sim any) []string {
	switch g := github.(type) {
	case map[string]any:
		s, ok := sim.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: an object, the simulator's is %T", where, sim)}
		}
		var out []string
		for k, gv := range g {
			sv, ok := s[k]
			if !ok {
				out = append(out, where+"."+k+": missing")
				continue
			}
			if gv != nil && sv != nil {
				out = append(out, shapeDiff(where+"."+k, gv, sv)...)
			}
		}
		return out
	case []any:
		s, ok := sim.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: an array, the simulator's is %T", where, sim)}
		}
		if len(g) == 0 || len(s) == 0 {
			return nil
		}
		return shapeDiff(where+"[0]", g[0], s[0])
	}
	if fmt.Sprintf("%T", github) != fmt.Sprintf("%T", sim) {
		return []string{fmt.Sprintf("%s: %T, the simulator's is %T", where, github, sim)}
	}
	return nil
}

// replay sends a fixture's request to the simulator (its path and body
// rewritten by fix) and compares the status, the headers Polylane reads
// and the body's shape with GitHub's recorded answer.
func replay(t *testing.T, s *Server, token string, f octokitFixture, path string, body []byte) {
	t.Helper()
	req, err := http.NewRequest(strings.ToUpper(f.Method), s.APIURL()+strings.TrimPrefix(path, "/"), bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := f.Req["accept"].(string); ok {
		req.Header.Set("Accept", a)
	}
	req.Header.Set("Authorization", "token "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	what := f.Method + " " + f.Path
	if resp.StatusCode != f.Status {
		t.Errorf("%s: %d, GitHub answered %d: %s", what, resp.StatusCode, f.Status, got)
		return
	}
	for _, h := range []string{"x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "x-ratelimit-used", "x-ratelimit-resource", "location"} {
		if _, recorded := f.Headers[h]; recorded && resp.Header.Get(h) == "" {
			t.Errorf("%s: no %s header", what, h)
		}
	}
	if _, recorded := f.Headers["etag"]; recorded && f.Method == "get" && resp.Header.Get("ETag") == "" {
		t.Errorf("%s: no ETag", what)
	}
	if ct, _ := f.Headers["content-type"].(string); ct != "" {
		want, _, _ := strings.Cut(ct, ";")
		if have, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";"); have != want {
			t.Errorf("%s: Content-Type %q, GitHub's %q", what, have, want)
		}
	}
	var recorded any
	if json.Unmarshal(f.Response, &recorded) != nil || recorded == "" {
		return
	}
	if text, isText := recorded.(string); isText {
		if len(got) == 0 || text == "" {
			t.Errorf("%s: empty answer", what)
		}
		return
	}
	var have any
	if err := json.Unmarshal(got, &have); err != nil {
		t.Errorf("%s: not JSON: %v", what, err)
		return
	}
	diff := shapeDiff("body", recorded, have)
	sort.Strings(diff)
	for _, d := range diff {
		t.Errorf("%s: %s", what, d)
	}
}

// TestRecordedGitHubAnswers replays the recorded exchanges of the
// endpoints Polylane uses (octokit/fixtures: git refs, contents) against
// the simulator, on testdata/tiny.
func TestRecordedGitHubAnswers(t *testing.T) {
	refs := loadFixtures(t, "git-refs")
	contents := loadFixtures(t, "get-content")
	s := startTiny(t, Options{})
	token, err := s.InstallationToken(tinyInst)
	if err != nil {
		t.Fatal(err)
	}
	c := installClient(t, s)
	mainRef, _, err := c.Git.GetRef(ctx(t), tinyOwner, tinyName, "heads/main")
	if err != nil {
		t.Fatal(err)
	}
	base := mainRef.GetObject().GetSHA()
	next, _, err := c.Git.CreateCommit(ctx(t), tinyOwner, tinyName, &github.Commit{Message: github.String("next"),
		Tree: &github.Tree{SHA: github.String(mustTree(t, c, base))}, Parents: []*github.Commit{{SHA: github.String(base)}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The recording moves refs/heads/test forward from …02 to …01: here
	// from main's head to a child of it.
	shas := strings.NewReplacer("0000000000000000000000000000000000000002", base, "0000000000000000000000000000000000000001", next.GetSHA())
	repoPath := strings.NewReplacer("/repos/octokit-fixture-org/git-refs/", "/repos/acme/widget/", "/repos/octokit-fixture-org/hello-world/", "/repos/acme/widget/")
	for _, f := range append(refs, contents...) {
		var body []byte
		if len(f.Body) > 0 && string(f.Body) != `""` {
			body = []byte(shas.Replace(string(f.Body)))
		}
		replay(t, s, token, f, repoPath.Replace(f.Path), body)
	}
}

// mustTree returns a commit's tree.
func mustTree(t *testing.T, c *github.Client, sha string) string {
	t.Helper()
	cm, _, err := c.Git.GetCommit(ctx(t), tinyOwner, tinyName, sha)
	if err != nil {
		t.Fatal(err)
	}
	return cm.GetTree().GetSHA()
}

package githubtest

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-github/v66/github"
)

// rangeScenario is a diagnosis scenario whose commits.json gives every
// run's commit the paths it changed.
var rangeScenario = filepath.Join("..", "..", "causal", "diagnosis", "testdata", "scenarios", "range-one-commit-touches")

// TestCompareListsTheRangeAndItsFiles: GET compare/{base}...{head} lists
// the commits after base up to head, oldest first, and the files changed
// between them; GET commits/{sha} lists the files of one commit; unknown
// refs are 404 as on GitHub.
func TestCompareListsTheRangeAndItsFiles(t *testing.T) {
	s, err := Start(Options{Scenarios: []string{rangeScenario}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	c, err := s.NewInstallationClient(7)
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Commits []struct {
			SHA   string   `json:"sha"`
			Files []string `json:"files"`
		} `json:"commits"`
	}
	data, err := os.ReadFile(filepath.Join(rangeScenario, "commits.json"))
	if err != nil || json.Unmarshal(data, &list) != nil || len(list.Commits) != 10 {
		t.Fatalf("commits.json: %v", err)
	}
	base, head := list.Commits[2].SHA, list.Commits[7].SHA
	cmp, _, err := c.Repositories.CompareCommits(ctx(t), "acme", "shop", base, head, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, k := range cmp.Commits {
		got = append(got, k.GetSHA())
	}
	var want []string
	var files []string
	for _, k := range list.Commits[3:8] {
		want = append(want, k.SHA)
		files = append(files, k.Files...)
	}
	slices.Sort(files)
	files = slices.Compact(files)
	if !slices.Equal(got, want) || cmp.GetStatus() != "ahead" || cmp.GetAheadBy() != 5 || cmp.GetBehindBy() != 0 || cmp.GetTotalCommits() != 5 {
		t.Errorf("compare: status %s ahead %d behind %d total %d, commits %v, want %v", cmp.GetStatus(), cmp.GetAheadBy(), cmp.GetBehindBy(), cmp.GetTotalCommits(), got, want)
	}
	var gotFiles []string
	for _, f := range cmp.Files {
		gotFiles = append(gotFiles, f.GetFilename())
		if f.GetStatus() != "added" || f.GetAdditions() != 1 || f.GetChanges() != 1 || f.GetSHA() == "" {
			t.Errorf("file %s: status %s, +%d, changes %d", f.GetFilename(), f.GetStatus(), f.GetAdditions(), f.GetChanges())
		}
	}
	if !slices.Equal(gotFiles, files) {
		t.Errorf("compare files = %v, want %v", gotFiles, files)
	}
	if cmp.GetMergeBaseCommit().GetSHA() != base || cmp.GetBaseCommit().GetSHA() != base {
		t.Errorf("merge base %s, base %s, want %s", cmp.GetMergeBaseCommit().GetSHA(), cmp.GetBaseCommit().GetSHA(), base)
	}

	back, _, err := c.Repositories.CompareCommits(ctx(t), "acme", "shop", head, base, nil)
	if err != nil || back.GetStatus() != "behind" || back.GetBehindBy() != 5 || len(back.Commits) != 0 || len(back.Files) != 0 {
		t.Errorf("reverse compare: %v, status %s behind %d, %d commits, %d files", err, back.GetStatus(), back.GetBehindBy(), len(back.Commits), len(back.Files))
	}
	paged, _, err := c.Repositories.CompareCommits(ctx(t), "acme", "shop", base, head, &github.ListOptions{PerPage: 2, Page: 2})
	if err != nil || len(paged.Commits) != 2 || paged.Commits[0].GetSHA() != want[2] || len(paged.Files) != 0 {
		t.Errorf("page 2 of 2: %v, %d commits, %d files", err, len(paged.Commits), len(paged.Files))
	}

	one, _, err := c.Repositories.GetCommit(ctx(t), "acme", "shop", list.Commits[5].SHA, nil)
	if err != nil {
		t.Fatal(err)
	}
	var oneFiles []string
	for _, f := range one.Files {
		oneFiles = append(oneFiles, f.GetFilename())
	}
	if !slices.Equal(oneFiles, list.Commits[5].Files) || one.GetStats().GetAdditions() != 2 {
		t.Errorf("commit %s files = %v (stats %+v), want %v", list.Commits[5].SHA, oneFiles, one.GetStats(), list.Commits[5].Files)
	}

	for _, pair := range [][2]string{{base, "0123456789012345678901234567890123456789"}, {"nope", head}} {
		if _, _, err := c.Repositories.CompareCommits(ctx(t), "acme", "shop", pair[0], pair[1], nil); statusOf(err) != http.StatusNotFound {
			t.Errorf("compare %s...%s: %v, want 404", pair[0], pair[1], err)
		}
	}
}

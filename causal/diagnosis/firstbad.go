package diagnosis

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/polylane/polylane/analysis/history"
	"github.com/polylane/polylane/analysis/redact"
	"github.com/polylane/polylane/causal"
)

// maxRangeCommits bounds the commits of a range that are named; a longer
// range lists its first ones (oldest first) and says how many there were.
const maxRangeCommits = 50

// maxReachListed bounds the files and directories of the step's reach the
// document lists (all of them are matched).
const maxReachListed = 100

// FirstBadRange is the range of commits in which a regression started,
// (Base, Head], when runs between the last green run and the first red
// one never got to the failing step.
type FirstBadRange struct {
	Base string `json:"base"`
	Head string `json:"head"`
	// Commits is the number of commits in the range.
	Commits int `json:"commits"`
	// Touching are the commits of the range that changed a file the failing
	// step builds or tests (its workflow, Make or Task file, script,
	// Dockerfile, a directory it builds, the failed test's file), oldest
	// first; Files lists those files of each.
	Touching []RangeCommit `json:"touching"`
	// Unchecked counts the commits whose changed files were not listed
	// (past the number read one by one); they may touch the step too.
	Unchecked int `json:"unchecked,omitempty"`
	// Reach is what the step builds or tests, as the harness model follows
	// it (the first maxReachListed files and directories).
	Reach causal.Reach `json:"reach"`
}

// RangeCommit is a commit of a range that touched the failing step.
type RangeCommit struct {
	SHA     string   `json:"sha"`
	Message string   `json:"message"`
	HTMLURL string   `json:"html_url,omitempty"`
	Files   []string `json:"files"`
}

// firstBadRange names the commits of the verdict's range that touched what
// the step reaches. It calls compare only when the verdict is a range.
func firstBadRange(compare CompareFunc, v history.Verdict, reach causal.Reach) (*FirstBadRange, error) {
	if compare == nil || v.LastGoodSHA == "" || v.FirstBadSHA == nil {
		return nil, nil
	}
	commits, err := compare(v.LastGoodSHA, *v.FirstBadSHA)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("compare %s...%s: %w", shortSHA(v.LastGoodSHA), shortSHA(*v.FirstBadSHA), err)
	}
	shown := reach
	shown.Files, shown.Dirs = shown.Files[:min(len(shown.Files), maxReachListed)], shown.Dirs[:min(len(shown.Dirs), maxReachListed)]
	r := &FirstBadRange{Base: v.LastGoodSHA, Head: *v.FirstBadSHA, Commits: len(commits), Touching: []RangeCommit{}, Reach: shown}
	if len(commits) > maxRangeCommits {
		r.Unchecked = len(commits) - maxRangeCommits
		commits = commits[:maxRangeCommits]
	}
	for _, c := range commits {
		if c.Files == nil {
			r.Unchecked++
			continue
		}
		var files []string
		for _, f := range c.Files {
			if reach.Touches(f) {
				files = append(files, f)
			}
		}
		if len(files) > 0 {
			r.Touching = append(r.Touching, RangeCommit{SHA: c.SHA, Message: subject(c.Message), HTMLURL: c.HTMLURL, Files: files})
		}
	}
	return r, nil
}

// shortSHA is the seven-character form of a commit id.
func shortSHA(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// subject is the first line of a commit message, redacted and at most 100
// characters long (a message is the committer's text, not ours).
func subject(msg string) string {
	line, _, _ := strings.Cut(msg, "\n")
	line = redact.String(strings.TrimSpace(line))
	if r := []rune(line); len(r) > 100 {
		line = string(r[:99]) + "…"
	}
	return line
}

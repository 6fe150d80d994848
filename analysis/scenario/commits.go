package scenario

import (
	"fmt"
	"io/fs"
	"slices"

	"github.com/polylane/polylane/analysis/gha"
)

// CommitsFile lists the commits of the scenario's history with the paths
// each changed (optional): {"commits": [{"sha", "parents", "message",
// "files"}]}, any order.
const CommitsFile = "commits.json"

// Compare returns the commits after base up to head, oldest first, each
// with the paths it changed: what GitHub's compare endpoint lists for
// base...head. Without commits.json, or when head does not descend from
// base along first parents, the error wraps fs.ErrNotExist.
func (s *Scenario) Compare(base, head string) ([]gha.Commit, error) {
	var list struct {
		Commits []gha.Commit `json:"commits"`
	}
	if err := readJSON(s.fsys, CommitsFile, &list); err != nil {
		return nil, err
	}
	byID := map[string]gha.Commit{}
	for _, c := range list.Commits {
		byID[c.SHA] = c
	}
	var out []gha.Commit
	for sha := head; sha != base; {
		c, ok := byID[sha]
		if !ok || len(out) > len(list.Commits) {
			return nil, fmt.Errorf("%s: %s does not descend from %s: %w", CommitsFile, head, base, fs.ErrNotExist)
		}
		out = append(out, c)
		if len(c.Parents) == 0 {
			return nil, fmt.Errorf("%s: %s does not descend from %s: %w", CommitsFile, head, base, fs.ErrNotExist)
		}
		sha = c.Parents[0]
	}
	slices.Reverse(out)
	return out, nil
}

package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/polylane/polylane/analysis/gha"
	"github.com/polylane/polylane/causal/diagnosis"
	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/store"
)

// maxCommitLookups bounds the commits of a first bad range whose files are
// read one by one; the range's later commits stay unchecked.
const maxCommitLookups = 20

// compare is the diagnosis's CompareFunc: the commits of base...head with
// the paths each changed, from the cache or GitHub (one compare call, and
// one call per commit when the range holds more than one). Two commit ids
// always compare the same, so the answer is cached for good.
func (w *Worker) compare(ctx context.Context, gh *ghclient.Repo, repoID int64) diagnosis.CompareFunc {
	return func(base, head string) ([]gha.Commit, error) {
		key := fmt.Sprintf("compare:%d:%s...%s", repoID, base, head)
		if e, err := w.st.GetCacheEntry(ctx, key); err == nil {
			var commits []gha.Commit
			if json.Unmarshal(e.Body, &commits) == nil {
				return commits, nil
			}
		} else if !isNotFound(err) {
			return nil, err
		}
		commits, err := rangeCommits(ctx, gh, base, head)
		if err != nil {
			return nil, err
		}
		body, err := json.Marshal(commits)
		if err != nil {
			return nil, fmt.Errorf("encode the commits of %s...%s: %w", base, head, err)
		}
		if err := w.st.PutCacheEntry(ctx, store.CacheEntry{Key: key, Body: body}); err != nil {
			return nil, err
		}
		return commits, nil
	}
}

// rangeCommits asks GitHub for the commits of base...head and their files:
// a range of one commit has the comparison's files; otherwise each commit
// (up to maxCommitLookups) is read for its own. A commit whose files were
// not read has none listed (nil). An unknown commit is fs.ErrNotExist.
func rangeCommits(ctx context.Context, gh *ghclient.Repo, base, head string) ([]gha.Commit, error) {
	cmp, err := gh.Compare(ctx, base, head)
	if errors.Is(err, ghclient.ErrNotFound) {
		return nil, fmt.Errorf("compare %s...%s: %w (%v)", base, head, fs.ErrNotExist, err)
	}
	if err != nil {
		return nil, err
	}
	commits := cmp.Commits
	if len(commits) == 1 {
		commits[0].Files = append([]string{}, cmp.Files...)
		return commits, nil
	}
	for i := range commits[:min(len(commits), maxCommitLookups)] {
		c, err := gh.CommitFiles(ctx, commits[i].SHA)
		if errors.Is(err, ghclient.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		commits[i].Files = c.Files
	}
	return commits, nil
}

// trackedCompare remembers a failure of GitHub or the store while a range
// was compared, so that the diagnosis is tried again rather than failed for
// good (the pipeline turns any error into a failed diagnosis).
type trackedCompare struct {
	fn  diagnosis.CompareFunc
	err error
}

// compare calls fn and keeps its error, unless the range does not exist.
func (t *trackedCompare) compare(base, head string) ([]gha.Commit, error) {
	commits, err := t.fn(base, head)
	if err != nil && !errors.Is(err, fs.ErrNotExist) && t.err == nil {
		t.err = err
	}
	return commits, err
}

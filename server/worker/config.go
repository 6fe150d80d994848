package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/rs/zerolog"

	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/server/worker/repoconfig"
	"github.com/polylane/polylane/store"
)

// settings is a repository's configuration as a job uses it: the file of
// the default branch with defaults filled in, and what was wrong with it.
type settings struct {
	repoconfig.Config
	// Warnings say what in the file could not be used; they are shown at
	// the top of the comment.
	Warnings []string
	// Source is the file read, "" when there is none.
	Source string
}

// configFile is the cached result of looking for the file at one commit.
type configFile struct {
	Path     string `json:"path"` // "" when no file exists
	Content  []byte `json:"content,omitempty"`
	TooLarge bool   `json:"too_large,omitempty"`
}

// settingsOf reads the repository's configuration from the head of its
// default branch, never from a pull request's head: a pull request cannot
// change how Polylane treats it. The file is cached by (repository,
// commit), so a job costs one branch lookup while the branch stays put.
// Without a default branch, or when the branch is gone, the defaults hold.
func (w *Worker) settingsOf(ctx context.Context, gh *ghclient.Repo, repoID int64, defaultBranch string) (settings, error) {
	if defaultBranch == "" {
		return settings{Config: repoconfig.Defaults()}, nil
	}
	sha, err := gh.BranchHead(ctx, defaultBranch)
	if errors.Is(err, ghclient.ErrNotFound) {
		return settings{Config: repoconfig.Defaults()}, nil
	}
	if err != nil {
		return settings{}, err
	}
	f, err := w.configAt(ctx, gh, repoID, sha)
	if err != nil {
		return settings{}, err
	}
	if f.Path == "" {
		return settings{Config: repoconfig.Defaults()}, nil
	}
	var cfg repoconfig.Config
	var warnings []string
	if f.TooLarge {
		cfg, warnings = repoconfig.Defaults(), []string{fmt.Sprintf("the file is larger than the %d bytes Polylane reads; the defaults are used", repoconfig.MaxBytes)}
	} else {
		cfg, warnings = repoconfig.Parse(f.Content)
	}
	if len(warnings) > 0 {
		zerolog.Ctx(ctx).Info().Str("file", f.Path).Strs("warnings", warnings).Msg("repository configuration has problems")
	}
	return settings{Config: cfg, Warnings: warnings, Source: f.Path}, nil
}

// configAt finds the file at a commit, from the cache or GitHub.
func (w *Worker) configAt(ctx context.Context, gh *ghclient.Repo, repoID int64, sha string) (configFile, error) {
	key := fmt.Sprintf("config:%d:%s", repoID, sha)
	var f configFile
	if e, err := w.st.GetCacheEntry(ctx, key); err == nil && json.Unmarshal(e.Body, &f) == nil {
		return f, nil
	} else if err != nil && !isNotFound(err) {
		return f, err
	}
	f = configFile{}
	for _, p := range repoconfig.Paths {
		data, err := gh.GetFile(ctx, p, sha, repoconfig.MaxBytes)
		if errors.Is(err, ghclient.ErrNotFound) {
			continue
		}
		if err != nil && !errors.Is(err, ghclient.ErrFileTooLarge) {
			return f, err
		}
		f = configFile{Path: p, Content: data, TooLarge: err != nil}
		break
	}
	body, err := json.Marshal(f)
	if err != nil {
		return f, fmt.Errorf("encode configuration of %s: %w", sha, err)
	}
	return f, w.st.PutCacheEntry(ctx, store.CacheEntry{Key: key, Body: body})
}

// skipReason says why a run is not diagnosed under the configuration, or
// "" when it is.
func (s settings) skipReason(p *runPayload, serverConclusions []string) string {
	run := p.Run
	switch {
	case !s.Counts(run.Conclusion, serverConclusions):
		return fmt.Sprintf("conclusion %s is not diagnosed (conclusions: %v)", run.Conclusion, s.conclusions(serverConclusions))
	case !s.WatchesWorkflow(p.Workflow.Path, p.Workflow.Name):
		return fmt.Sprintf("workflow %s is not among the workflows %s watches", p.Workflow.Path, s.source())
	case !s.WatchesBranch(run.HeadBranch) && !p.ownFixBranch():
		return fmt.Sprintf("branch %s is not among the branches %s watches", run.HeadBranch, s.source())
	}
	return ""
}

func (s settings) conclusions(server []string) []string {
	if s.Conclusions != nil {
		return s.Conclusions
	}
	return slices.Clone(server)
}

func (s settings) source() string {
	if s.Source == "" {
		return "the configuration"
	}
	return s.Source
}

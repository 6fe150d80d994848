package dashboardtest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// WriteScenarios writes one minimal scenario directory (contracts.md §1)
// per generated repository under dir, so that the GitHub simulator knows
// the same installations and repositories, with the same ids, and a user
// signing in through it sees them. It returns the directories.
func WriteScenarios(dir string, s *Seeded) ([]string, error) {
	var dirs []string
	for _, r := range s.Repos {
		owner, name, _ := strings.Cut(r.FullName, "/")
		d := filepath.Join(dir, owner+"-"+name)
		if err := os.MkdirAll(filepath.Join(d, "repo"), 0o755); err != nil {
			return nil, fmt.Errorf("scenario of %s: %w", r.FullName, err)
		}
		wf := s.Workflows[r.ID][0]
		runID := r.ID*1_000_000 + 1
		sc := map[string]any{
			"schema": "polylane.scenario/v1",
			"repository": map[string]any{"id": r.ID, "name": name, "full_name": r.FullName, "owner": map[string]any{"login": owner},
				"default_branch": "main", "private": r.Private, "html_url": "https://github.com/" + r.FullName},
			"installation_id": r.InstallationID,
			"workflow":        map[string]any{"id": wf, "name": "CI", "path": ".github/workflows/workflow-1.yml"},
			"trigger_run_id":  runID,
		}
		created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Format(time.RFC3339)
		runs := map[string]any{"total_count": 1, "workflow_runs": []map[string]any{{
			"id": runID, "name": "CI", "run_number": 1, "run_attempt": 1, "workflow_id": wf,
			"path": ".github/workflows/workflow-1.yml", "head_sha": strings.Repeat("a", 40), "head_branch": "main",
			"event": "push", "status": "completed", "conclusion": "success", "created_at": created,
			"updated_at": created, "run_started_at": created, "pull_requests": []any{},
		}}}
		files := map[string]any{"scenario.json": sc, "runs.json": runs}
		for file, v := range files {
			b, err := json.MarshalIndent(v, "", "  ")
			if err != nil {
				return nil, fmt.Errorf("scenario of %s: %w", r.FullName, err)
			}
			if err := os.WriteFile(filepath.Join(d, file), b, 0o644); err != nil {
				return nil, fmt.Errorf("scenario of %s: %w", r.FullName, err)
			}
		}
		if err := os.WriteFile(filepath.Join(d, "repo", "README.md"), []byte("# "+name+"\n"), 0o644); err != nil {
			return nil, fmt.Errorf("scenario of %s: %w", r.FullName, err)
		}
		dirs = append(dirs, d)
	}
	return dirs, nil
}

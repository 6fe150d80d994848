package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/polylane/polylane/server/ghclient"
)

// tempMark is in the name of a file being written; a capture removes those
// an interrupted one left behind.
const tempMark = ".partial-"

// writeAtomic writes data to path through a temporary file in the same
// directory and a rename, so that path is either absent or complete.
func writeAtomic(path string, data []byte) error {
	return writeAtomicWith(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeAtomicWith writes path through fill, atomically.
func writeAtomicWith(path string, fill func(w io.Writer) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, filepath.Base(path)+tempMark+"*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op after the rename
	if err := fill(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// removePartials deletes the temporary files an interrupted capture left.
func removePartials(root string) error {
	return filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.Contains(d.Name(), tempMark) {
			return os.Remove(p)
		}
		return nil
	})
}

// exists reports a regular file at path: written completely by an earlier
// capture (files appear only by rename).
func exists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// marshalIndented encodes v as the scenario's files are: two-space indented
// JSON, raw documents as GitHub sent them, a final newline.
func marshalIndented(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// capturedRun is the part of a run the capture decides on.
type capturedRun struct {
	ID         int64  `json:"id"`
	Status     string `json:"status"`
	Conclusion string `json:"conclusion"`
	HeadSHA    string `json:"head_sha"`
}

// captureJobs writes jobs/<run>.json for every completed run that did not
// succeed, skipping the files an earlier capture completed.
func (c *capture) captureJobs(ctx context.Context, runs []capturedRun) error {
	var todo []int64
	for _, r := range runs {
		if r.Status == "completed" && r.Conclusion != "success" {
			todo = append(todo, r.ID)
		}
	}
	c.progress.start("jobs", len(todo))
	skipped := 0
	for _, id := range todo {
		path := filepath.Join(c.out, "jobs", strconv.FormatInt(id, 10)+".json")
		if exists(path) {
			skipped++
			c.progress.step()
			continue
		}
		var jobs []json.RawMessage
		for page := 1; page > 0 && page <= 50; {
			p, err := c.repo.ListJobsRaw(ctx, id, page)
			if err != nil {
				return fmt.Errorf("jobs of run %d: %w", id, err)
			}
			jobs = append(jobs, p.Items...)
			page = p.NextPage
		}
		if jobs == nil {
			jobs = []json.RawMessage{}
		}
		data, err := marshalIndented(struct {
			TotalCount int               `json:"total_count"`
			Jobs       []json.RawMessage `json:"jobs"`
		}{len(jobs), jobs})
		if err != nil {
			return fmt.Errorf("encode jobs of run %d: %w", id, err)
		}
		if err := writeAtomic(path, data); err != nil {
			return err
		}
		c.progress.step()
	}
	c.progress.finish(resumedNote(skipped))
	c.stats.jobs = len(todo)
	return nil
}

// capturedJob is the part of a job the capture decides on.
type capturedJob struct {
	ID         int64  `json:"id"`
	Conclusion string `json:"conclusion"`
}

// captureLogs writes logs/<job>.txt for every failed job of the jobs files,
// downloading through GitHub's redirect; logs GitHub no longer has are
// counted and left out.
func (c *capture) captureLogs(ctx context.Context, runs []capturedRun) error {
	var todo []int64
	for _, r := range runs {
		data, err := os.ReadFile(filepath.Join(c.out, "jobs", strconv.FormatInt(r.ID, 10)+".json"))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("read jobs of run %d: %w", r.ID, err)
		}
		var list struct {
			Jobs []capturedJob `json:"jobs"`
		}
		if err := json.Unmarshal(data, &list); err != nil {
			return fmt.Errorf("jobs/%d.json: %w", r.ID, err)
		}
		for _, j := range list.Jobs {
			if j.Conclusion == "failure" {
				todo = append(todo, j.ID)
			}
		}
	}
	c.progress.start("logs", len(todo))
	skipped, gone := 0, 0
	for _, id := range todo {
		path := filepath.Join(c.out, "logs", strconv.FormatInt(id, 10)+".txt")
		if exists(path) {
			skipped++
			c.progress.step()
			continue
		}
		err := writeAtomicWith(path, func(w io.Writer) error {
			_, err := c.repo.DownloadLog(ctx, id, &resettable{w: w.(*os.File)})
			return err
		})
		switch {
		case errors.Is(err, ghclient.ErrLogsExpired), errors.Is(err, ghclient.ErrLogTooLarge):
			gone++
		case err != nil:
			return fmt.Errorf("log of job %d: %w", id, err)
		}
		c.progress.step()
	}
	note := resumedNote(skipped)
	if gone > 0 {
		note = strings.TrimPrefix(note+fmt.Sprintf("; %d expired or too large, left out", gone), "; ")
	}
	c.progress.finish(note)
	c.stats.logs, c.stats.logsGone = len(todo)-gone, gone
	return nil
}

// resettable lets a log download start over in the same temporary file.
type resettable struct{ w *os.File }

func (r *resettable) Write(p []byte) (int, error) { return r.w.Write(p) }

// Reset empties the file for a download that starts again.
func (r *resettable) Reset() error {
	if err := r.w.Truncate(0); err != nil {
		return err
	}
	_, err := r.w.Seek(0, io.SeekStart)
	return err
}

// resumedNote says how many files an earlier capture had completed.
func resumedNote(skipped int) string {
	if skipped == 0 {
		return ""
	}
	return fmt.Sprintf("%d already captured", skipped)
}

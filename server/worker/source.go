package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"

	"github.com/polylane/polylane/analysis/gha"

	"github.com/polylane/polylane/server/ghclient"
	"github.com/polylane/polylane/store"
)

// source is the history.Source of one diagnosis: jobs come from the store's
// history cache or GitHub (then stored), logs are downloaded once into a
// temporary directory and reopened from there.
type source struct {
	jobs    func(runID int64) ([]gha.Job, error)
	openLog func(jobID int64) (io.ReadCloser, error)
}

// Jobs returns the jobs of a run's attempt in the window.
func (s source) Jobs(runID int64) ([]gha.Job, error) { return s.jobs(runID) }

// OpenLog opens a job's raw log.
func (s source) OpenLog(jobID int64) (io.ReadCloser, error) { return s.openLog(jobID) }

// newSource builds the source of a diagnosis; attempts maps each run of the
// window to its attempt. cleanup removes the downloaded logs.
func (w *Worker) newSource(ctx context.Context, gh *ghclient.Repo, repoID int64, attempts map[int64]int) (source, func(), error) {
	dir, err := os.MkdirTemp("", "polylane-logs-")
	if err != nil {
		return source{}, nil, fmt.Errorf("directory for job logs: %w", err)
	}
	var mu sync.Mutex
	logs := map[int64]string{}
	jobs := func(runID int64) ([]gha.Job, error) {
		key := store.RunKey{RepositoryID: repoID, RunID: runID, Attempt: max(attempts[runID], 1)}
		return w.runJobs(ctx, gh, key)
	}
	openLog := func(jobID int64) (io.ReadCloser, error) {
		mu.Lock()
		defer mu.Unlock()
		path, ok := logs[jobID]
		if !ok {
			var err error
			if path, err = downloadLog(ctx, gh, dir, jobID); err != nil {
				return nil, err
			}
			logs[jobID] = path
		}
		if path == "" {
			return nil, fmt.Errorf("log of job %d: %w", jobID, fs.ErrNotExist)
		}
		return os.Open(path)
	}
	return source{jobs: jobs, openLog: openLog}, func() { _ = os.RemoveAll(dir) }, nil
}

// runJobs returns a run attempt's jobs from the store, or lists them on
// GitHub and stores them (a completed attempt's jobs do not change).
func (w *Worker) runJobs(ctx context.Context, gh *ghclient.Repo, key store.RunKey) ([]gha.Job, error) {
	stored, err := w.st.ListJobs(ctx, key)
	if err != nil {
		return nil, err
	}
	if len(stored) > 0 {
		return jobsOf(key, stored), nil
	}
	list, err := gh.ListJobs(ctx, key.RunID, key.Attempt)
	if errors.Is(err, ghclient.ErrNotFound) {
		return nil, fmt.Errorf("jobs of run %d: %w (%v)", key.RunID, fs.ErrNotExist, err)
	}
	if err != nil {
		return nil, err
	}
	recs := make([]store.WorkflowJob, 0, len(list))
	for _, j := range list {
		recs = append(recs, jobRecord(j))
	}
	if len(recs) > 0 {
		if err := w.st.PutJobs(ctx, key, recs); err != nil {
			return nil, err
		}
	}
	return list, nil
}

// downloadLog writes a job's log to a file of dir; an expired, missing or
// oversized log gives an empty path (the run is then unknown).
func downloadLog(ctx context.Context, gh *ghclient.Repo, dir string, jobID int64) (string, error) {
	f, err := os.CreateTemp(dir, "job-*.log")
	if err != nil {
		return "", fmt.Errorf("file for the log of job %d: %w", jobID, err)
	}
	_, err = gh.DownloadLog(ctx, jobID, resettable{f})
	closeErr := f.Close()
	switch {
	case errors.Is(err, ghclient.ErrLogsExpired), errors.Is(err, ghclient.ErrNotFound), errors.Is(err, ghclient.ErrLogTooLarge):
		_ = os.Remove(f.Name())
		return "", nil
	case err != nil:
		return "", err
	case closeErr != nil:
		return "", fmt.Errorf("write the log of job %d: %w", jobID, closeErr)
	}
	return f.Name(), nil
}

// resettable lets a download start the file over.
type resettable struct{ f *os.File }

func (r resettable) Write(p []byte) (int, error) { return r.f.Write(p) }

func (r resettable) Reset() error {
	if err := r.f.Truncate(0); err != nil {
		return err
	}
	_, err := r.f.Seek(0, io.SeekStart)
	return err
}

// jobRecord is the store's record of a job.
func jobRecord(j gha.Job) store.WorkflowJob {
	rec := store.WorkflowJob{ID: j.ID, Name: j.Name, Status: j.Status, Conclusion: j.Conclusion,
		StartedAt: j.StartedAt, CompletedAt: j.CompletedAt, HTMLURL: j.HTMLURL}
	for _, s := range j.Steps {
		rec.Steps = append(rec.Steps, store.JobStep{Number: s.Number, Name: s.Name, Status: s.Status,
			Conclusion: s.Conclusion, StartedAt: s.StartedAt, CompletedAt: s.CompletedAt})
	}
	return rec
}

// jobsOf turns stored jobs back into the pipeline's jobs.
func jobsOf(key store.RunKey, recs []store.WorkflowJob) []gha.Job {
	out := make([]gha.Job, 0, len(recs))
	for _, r := range recs {
		j := gha.Job{ID: r.ID, RunID: key.RunID, RunAttempt: key.Attempt, Name: r.Name, Status: r.Status,
			Conclusion: r.Conclusion, HTMLURL: r.HTMLURL, StartedAt: r.StartedAt, CompletedAt: r.CompletedAt,
			Steps: []gha.Step{}}
		for _, s := range r.Steps {
			j.Steps = append(j.Steps, gha.Step{Number: s.Number, Name: s.Name, Status: s.Status,
				Conclusion: s.Conclusion, StartedAt: s.StartedAt, CompletedAt: s.CompletedAt})
		}
		out = append(out, j)
	}
	return out
}

// isNotFound reports the store's not-found error.
func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }

package worker

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/polylane/polylane/server/webhook"
	"github.com/polylane/polylane/store"
)

// registerConversation adds the workers of the conversation features.
func registerConversation(workers *river.Workers, w *Worker) error {
	if err := river.AddWorkerSafely(workers, &mentionWorker{w: w}); err != nil {
		return fmt.Errorf("register mention worker: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &pullRequestWorker{w: w}); err != nil {
		return fmt.Errorf("register pull request worker: %w", err)
	}
	if err := river.AddWorkerSafely(workers, &lifecycleWorker{w: w}); err != nil {
		return fmt.Errorf("register lifecycle worker: %w", err)
	}
	return nil
}

type mentionWorker struct {
	river.WorkerDefaults[webhook.MentionArgs]
	w *Worker
}

func (m *mentionWorker) Timeout(*river.Job[webhook.MentionArgs]) time.Duration {
	return m.w.opts.JobTimeout
}

func (m *mentionWorker) Work(ctx context.Context, job *river.Job[webhook.MentionArgs]) error {
	a := job.Args
	ctx = m.w.jobContext(ctx, a.DeliveryGUID, a.InstallationID, a.RepositoryID, 0)
	return m.w.run(ctx, job.JobRow, a.DeliveryGUID, "answer the comment",
		func(ctx context.Context) error { return m.w.mention(ctx, a) })
}

type pullRequestWorker struct {
	river.WorkerDefaults[webhook.PullRequestArgs]
	w *Worker
}

func (p *pullRequestWorker) Timeout(*river.Job[webhook.PullRequestArgs]) time.Duration {
	return p.w.opts.JobTimeout
}

func (p *pullRequestWorker) Work(ctx context.Context, job *river.Job[webhook.PullRequestArgs]) error {
	a := job.Args
	ctx = p.w.jobContext(ctx, a.DeliveryGUID, a.InstallationID, a.RepositoryID, 0)
	return p.w.run(ctx, job.JobRow, a.DeliveryGUID, "pull request "+a.Action,
		func(ctx context.Context) error { return p.w.pullRequestDone(ctx, a) })
}

type lifecycleWorker struct {
	river.WorkerDefaults[webhook.LifecycleArgs]
	w *Worker
}

func (l *lifecycleWorker) Timeout(*river.Job[webhook.LifecycleArgs]) time.Duration {
	return l.w.opts.JobTimeout
}

func (l *lifecycleWorker) Work(ctx context.Context, job *river.Job[webhook.LifecycleArgs]) error {
	a := job.Args
	ctx = l.w.jobContext(ctx, a.DeliveryGUID, a.InstallationID, a.RepositoryID, a.RunID)
	return l.w.run(ctx, job.JobRow, a.DeliveryGUID, "fix pull request check",
		func(ctx context.Context) error { return l.w.lifecycleDone(ctx, a) })
}

// pullRequestDone works a pull request job and marks its delivery done.
func (w *Worker) pullRequestDone(ctx context.Context, a webhook.PullRequestArgs) error {
	if err := w.pullRequestEvent(ctx, a); err != nil {
		return err
	}
	return w.st.SetDeliveryState(ctx, a.DeliveryGUID, store.DeliveryDone, "")
}

// lifecycleDone works a lifecycle job and marks its delivery done; a job
// that a publish job enqueued has no delivery of its own.
func (w *Worker) lifecycleDone(ctx context.Context, a webhook.LifecycleArgs) error {
	if err := w.lifecycle(ctx, a); err != nil || a.DeliveryGUID == "" {
		return err
	}
	return w.st.SetDeliveryState(ctx, a.DeliveryGUID, store.DeliveryDone, "")
}

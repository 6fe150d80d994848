package worker

import (
	"context"

	"github.com/polylane/polylane/server/jobs"

	"github.com/polylane/polylane/store"
)

// pullRequestDone works a pull request job and marks its delivery done.
func (w *Worker) pullRequestDone(ctx context.Context, a jobs.PullRequestArgs) error {
	if err := w.pullRequestEvent(ctx, a); err != nil {
		return err
	}
	return w.st.SetDeliveryState(ctx, a.DeliveryGUID, store.DeliveryDone, "")
}

// lifecycleDone works a lifecycle job and marks its delivery done; a job
// that a publish job enqueued has no delivery of its own.
func (w *Worker) lifecycleDone(ctx context.Context, a jobs.LifecycleArgs) error {
	if err := w.lifecycle(ctx, a); err != nil || a.DeliveryGUID == "" {
		return err
	}
	return w.st.SetDeliveryState(ctx, a.DeliveryGUID, store.DeliveryDone, "")
}

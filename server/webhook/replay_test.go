package webhook_test

import (
	"context"
	"errors"
	"testing"

	"github.com/polylane/polylane/server/githubtest"
	"github.com/polylane/polylane/store"
	"github.com/polylane/polylane/store/storetest"
)

// send posts a simulator event under a delivery id and checks the answer.
func (r *rig) send(t *testing.T, build func(*githubtest.Server) (githubtest.Event, error), guid string, want int) {
	t.Helper()
	ev, err := build(r.sim)
	if err != nil {
		t.Fatal(err)
	}
	if status, text := r.post(t, ev.Name, guid, ev.Payload, "", "application/json"); status != want {
		t.Fatalf("%s %s: %d %s, want %d", ev.Name, guid, status, text, want)
	}
}

func installationEvent(action string) func(*githubtest.Server) (githubtest.Event, error) {
	return func(s *githubtest.Server) (githubtest.Event, error) { return s.InstallationEvent(action, tinyInst) }
}

// TestReplayUnderNewDeliveryIDDoesNothing replays captured deliveries
// under a new X-GitHub-Delivery, which the signature does not cover: each
// is answered 200 and changes nothing (no delivery row, no job, no
// installation change), while GitHub's own redelivery (same id, same body)
// is still answered 200 as a duplicate.
func TestReplayUnderNewDeliveryIDDoesNothing(t *testing.T) {
	tests := []struct {
		name  string
		check func(t *testing.T, r *rig)
	}{
		{"failing workflow_run", func(t *testing.T, r *rig) {
			r.send(t, runEvent(tinyFailed), "run-1", 202)
			r.send(t, runEvent(tinyFailed), "run-1", 200) // GitHub's redelivery
			r.send(t, runEvent(tinyFailed), "run-replayed", 200)
			r.notStored(t, "run-replayed")
			if n := r.jobs(t); n != 1 {
				t.Fatalf("%d jobs after a replayed run, want 1", n)
			}
		}},
		{"installation suspend after unsuspend", func(t *testing.T, r *rig) {
			r.send(t, installationEvent("suspend"), "suspend-1", 200)
			r.send(t, installationEvent("unsuspend"), "unsuspend-1", 200)
			r.send(t, installationEvent("suspend"), "suspend-replayed", 200)
			r.notStored(t, "suspend-replayed")
			r.wantSuspended(t, false)
			r.send(t, installationEvent("suspend"), "suspend-1", 200) // GitHub's redelivery of an old delivery
			r.wantSuspended(t, false)
		}},
	}
	for _, b := range storetest.Backends() {
		for _, tc := range tests {
			t.Run(b.Name+"/"+tc.name, func(t *testing.T) { tc.check(t, newRig(t, b, 0)) })
		}
	}
}

func (r *rig) notStored(t *testing.T, guid string) {
	t.Helper()
	if _, err := r.st.GetDelivery(context.Background(), guid); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("delivery %s was stored (%v)", guid, err)
	}
}

func (r *rig) wantSuspended(t *testing.T, want bool) {
	t.Helper()
	in, err := r.st.GetInstallation(context.Background(), tinyInst)
	if err != nil || in.Suspended != want {
		t.Fatalf("installation: %v suspended=%v, want %v", err, in.Suspended, want)
	}
}

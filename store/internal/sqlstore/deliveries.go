package sqlstore

import (
	"context"
	"fmt"

	"github.com/riverqueue/river"

	"github.com/polylane/polylane/store"
)

func validDeliveryState(state string) bool {
	switch state {
	case store.DeliveryQueued, store.DeliveryProcessing, store.DeliveryDone, store.DeliveryFailed, store.DeliveryIgnored:
		return true
	}
	return false
}

// RecordDelivery stores a delivery and enqueues its job in one transaction.
func (s *Records) RecordDelivery(ctx context.Context, d store.Delivery, args river.JobArgs, opts *river.InsertOpts) (bool, error) {
	if d.GUID == "" || d.Event == "" {
		return false, invalid("delivery %q: guid and event are required", d.GUID)
	}
	if d.State == "" {
		d.State = store.DeliveryQueued
	}
	if !validDeliveryState(d.State) {
		return false, invalid("delivery %s: unknown state %q", d.GUID, d.State)
	}
	now := s.clock()
	if d.ReceivedAt.IsZero() {
		d.ReceivedAt = now
	}
	if d.Payload == nil {
		d.Payload = []byte{}
	}
	duplicate := false
	err := s.db.Write(ctx, func(tx Tx) error {
		n, err := tx.Exec(ctx, `
INSERT INTO webhook_deliveries
    (guid, event, action, installation_id, repository_id, received_at, payload, state, error, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
ON CONFLICT (guid) DO NOTHING`,
			d.GUID, d.Event, d.Action, d.InstallationID, d.RepositoryID, norm(d.ReceivedAt), d.Payload, d.State, d.Error, now)
		if err != nil {
			return err
		}
		if n == 0 {
			duplicate = true
			return nil
		}
		if args == nil {
			return nil
		}
		skipped, err := tx.Enqueue(ctx, args, opts)
		if err != nil {
			return fmt.Errorf("enqueue %s job: %w", args.Kind(), err)
		}
		if !skipped {
			return nil
		}
		// A unique job for the same work exists already: this delivery adds
		// nothing, and says so.
		_, err = tx.Exec(ctx, `UPDATE webhook_deliveries SET state = $2, error = $3 WHERE guid = $1`,
			d.GUID, store.DeliveryIgnored, "an equal "+args.Kind()+" job was already queued or done")
		return err
	})
	if err != nil {
		return false, fmt.Errorf("record delivery %s: %w", d.GUID, err)
	}
	return duplicate, nil
}

// GetDelivery reads one delivery.
func (s *Records) GetDelivery(ctx context.Context, guid string) (store.Delivery, error) {
	var d store.Delivery
	err := s.db.Read(ctx, func(tx Tx) error {
		return tx.QueryRow(ctx, `
SELECT guid, event, action, installation_id, repository_id, received_at, payload, state, error, updated_at
FROM webhook_deliveries WHERE guid = $1`, guid).Scan(
			&d.GUID, &d.Event, &d.Action, &d.InstallationID, &d.RepositoryID, at(&d.ReceivedAt),
			&d.Payload, &d.State, &d.Error, at(&d.UpdatedAt))
	})
	if err != nil {
		return store.Delivery{}, fmt.Errorf("get delivery %s: %w", guid, err)
	}
	if d.Payload == nil {
		d.Payload = []byte{}
	}
	return d, nil
}

// SetDeliveryState moves a delivery to a state.
func (s *Records) SetDeliveryState(ctx context.Context, guid, state, errText string) error {
	if !validDeliveryState(state) {
		return invalid("delivery %s: unknown state %q", guid, state)
	}
	err := s.db.Write(ctx, func(tx Tx) error {
		n, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET state = $2, error = $3, updated_at = $4 WHERE guid = $1`,
			guid, state, errText, s.clock())
		if err != nil {
			return err
		}
		if n == 0 {
			return store.ErrNotFound
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("set delivery %s to %s: %w", guid, state, err)
	}
	return nil
}

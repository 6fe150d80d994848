package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

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

// prepareDelivery checks a delivery and fills its defaults.
func prepareDelivery(d *store.Delivery, now time.Time) error {
	if d.GUID == "" || d.Event == "" {
		return invalid("delivery %q: guid and event are required", d.GUID)
	}
	if d.State == "" {
		d.State = store.DeliveryQueued
	}
	if !validDeliveryState(d.State) {
		return invalid("delivery %s: unknown state %q", d.GUID, d.State)
	}
	if d.ReceivedAt.IsZero() {
		d.ReceivedAt = now
	}
	if d.Payload == nil {
		d.Payload = []byte{}
	}
	if d.Packed == nil {
		d.Packed = store.PackPayload(d.Payload)
	}
	return nil
}

// deliveryColumns are the columns insertDelivery and insertDeliveries
// write, in the order of deliveryValues.
const deliveryColumns = `(guid, event, action, installation_id, repository_id, received_at, payload, body_hash, state, error, updated_at)`

// deliveryValues are a prepared delivery's values for deliveryColumns.
func deliveryValues(d store.Delivery, now time.Time) []any {
	return []any{d.GUID, d.Event, d.Action, d.InstallationID, d.RepositoryID, norm(d.ReceivedAt), d.Packed,
		bodyHash(d.BodyHash), d.State, d.Error, now}
}

// bodyHash is a body hash as a query argument: NULL when there is none (an
// empty blob would be a hash every such delivery shares).
func bodyHash(h []byte) any {
	if len(h) == 0 {
		return nil
	}
	return h
}

// insertDelivery inserts a delivery row (prepared: its payload packed);
// inserted is false for a GUID or a body hash that is already stored.
func insertDelivery(ctx context.Context, tx Tx, d store.Delivery, now time.Time) (inserted bool, err error) {
	n, err := tx.Exec(ctx, `INSERT INTO webhook_deliveries `+deliveryColumns+`
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
ON CONFLICT DO NOTHING`, deliveryValues(d, now)...)
	return n > 0, err
}

// insertDeliveries inserts delivery rows with one statement and returns,
// for each, whether it was inserted (false: its GUID or body hash was
// stored already, or repeats an earlier one of the batch). The deliveries
// are prepared (their payloads packed).
func insertDeliveries(ctx context.Context, tx Tx, ds []store.Delivery, now time.Time) ([]bool, error) {
	var b strings.Builder
	b.WriteString(`INSERT INTO webhook_deliveries ` + deliveryColumns + ` VALUES `)
	const cols = 11
	args := make([]any, 0, len(ds)*cols)
	for i, d := range ds {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(")
		for c := range cols {
			if c > 0 {
				b.WriteString(", ")
			}
			b.WriteString("$" + strconv.Itoa(i*cols+c+1))
		}
		b.WriteString(")")
		args = append(args, deliveryValues(d, now)...)
	}
	// Without a conflict target, a stored GUID and a stored body hash are
	// both skipped.
	b.WriteString(" ON CONFLICT DO NOTHING RETURNING guid")
	rows, err := tx.Query(ctx, b.String(), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	fresh := map[string]bool{}
	for rows.Next() {
		var guid string
		if err := rows.Scan(&guid); err != nil {
			return nil, err
		}
		fresh[guid] = true
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	inserted := make([]bool, len(ds))
	for i, d := range ds {
		inserted[i] = fresh[d.GUID]
		delete(fresh, d.GUID) // a GUID repeated in the batch counts once
	}
	return inserted, nil
}

// markSkipped records that a delivery's unique job existed already: the
// delivery adds nothing, and says so.
func markSkipped(ctx context.Context, tx Tx, guid string, args river.JobArgs) error {
	_, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET state = $2, error = $3 WHERE guid = $1`,
		guid, store.DeliveryIgnored, "an equal "+args.Kind()+" job was already queued or done")
	return err
}

// RecordDelivery stores a delivery and enqueues its job in one transaction.
func (s *Records) RecordDelivery(ctx context.Context, d store.Delivery, args river.JobArgs, opts *river.InsertOpts) (bool, error) {
	now := s.clock()
	if err := prepareDelivery(&d, now); err != nil {
		return false, err
	}
	duplicate := false
	err := s.db.Write(ctx, func(tx Tx) error {
		inserted, err := insertDelivery(ctx, tx, d, now)
		if err != nil {
			return err
		}
		if !inserted {
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
		return markSkipped(ctx, tx, d.GUID, args)
	})
	if err != nil {
		return false, fmt.Errorf("record delivery %s: %w", d.GUID, err)
	}
	return duplicate, nil
}

// errUniqueSkipped ends a transaction whose fast job insert skipped a
// unique job: it is rolled back and written again the way that tells
// which job existed.
var errUniqueSkipped = errors.New("a unique job of the batch existed already")

// RecordDeliveries records deliveries and their jobs in one transaction,
// the jobs with one insert statement. On an InProcess DB the jobs are
// inserted first without reading them back (River's fast insert: about
// 12% of a SQLite batch's time saved); only when that skips a unique job
// that exists already, which is rare, is the batch rolled back and written
// again with the insert that says which job it was.
func (s *Records) RecordDeliveries(ctx context.Context, batch []store.DeliveryJob) ([]bool, error) {
	now := s.clock()
	ds := make([]store.Delivery, len(batch))
	for i := range batch {
		// Packed before the transaction: on SQLite the writer is single.
		if err := prepareDelivery(&batch[i].Delivery, now); err != nil {
			return nil, err
		}
		ds[i] = batch[i].Delivery
	}
	duplicates, err := s.recordDeliveries(ctx, batch, ds, now, inProcess(s.db))
	if errors.Is(err, errUniqueSkipped) {
		duplicates, err = s.recordDeliveries(ctx, batch, ds, now, false)
	}
	if err != nil {
		return nil, fmt.Errorf("record %d deliveries: %w", len(batch), err)
	}
	return duplicates, nil
}

// recordDeliveries is one attempt of RecordDeliveries; fast inserts the
// jobs without reading them back and fails with errUniqueSkipped when one
// was skipped.
func (s *Records) recordDeliveries(ctx context.Context, batch []store.DeliveryJob, ds []store.Delivery, now time.Time, fast bool) ([]bool, error) {
	duplicates := make([]bool, len(batch))
	err := s.db.Write(ctx, func(tx Tx) error {
		var inserted []bool
		var err error
		if inProcess(s.db) {
			inserted = make([]bool, len(ds))
			for i, d := range ds {
				if inserted[i], err = insertDelivery(ctx, tx, d, now); err != nil {
					break
				}
			}
		} else {
			inserted, err = insertDeliveries(ctx, tx, ds, now)
		}
		if err != nil {
			return err
		}
		var jobs []river.InsertManyParams
		var owners []int // batch index of each job
		for i, item := range batch {
			duplicates[i] = !inserted[i]
			if inserted[i] && item.Args != nil {
				jobs = append(jobs, river.InsertManyParams{Args: item.Args, InsertOpts: item.Opts})
				owners = append(owners, i)
			}
		}
		if len(jobs) == 0 {
			return nil
		}
		if fast {
			n, err := tx.EnqueueManyFast(ctx, jobs)
			switch {
			case err != nil:
				return fmt.Errorf("enqueue %d jobs: %w", len(jobs), err)
			case n < len(jobs):
				return errUniqueSkipped
			}
			return nil
		}
		skipped, err := tx.EnqueueMany(ctx, jobs)
		if err != nil {
			return fmt.Errorf("enqueue %d jobs: %w", len(jobs), err)
		}
		for j, sk := range skipped {
			if sk {
				if err := markSkipped(ctx, tx, batch[owners[j]].Delivery.GUID, jobs[j].Args); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return duplicates, err
}

// DeliveryRecorded reports whether a delivery with the GUID, or with the
// body hash when it is not empty, is stored.
func (s *Records) DeliveryRecorded(ctx context.Context, guid string, hash []byte) (bool, error) {
	var found bool
	err := s.db.Read(ctx, func(tx Tx) error {
		var one int
		err := tx.QueryRow(ctx, `SELECT 1 FROM webhook_deliveries WHERE guid = $1
UNION ALL SELECT 1 FROM webhook_deliveries WHERE body_hash = $2 LIMIT 1`, guid, bodyHash(hash)).Scan(&one)
		switch {
		case errors.Is(err, store.ErrNotFound):
			return nil
		case err != nil:
			return err
		}
		found = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("look up delivery %s: %w", guid, err)
	}
	return found, nil
}

// GetDelivery reads one delivery.
func (s *Records) GetDelivery(ctx context.Context, guid string) (store.Delivery, error) {
	var d store.Delivery
	err := s.db.Read(ctx, func(tx Tx) error {
		return tx.QueryRow(ctx, `
SELECT guid, event, action, installation_id, repository_id, received_at, payload, body_hash, state, error, updated_at
FROM webhook_deliveries WHERE guid = $1`, guid).Scan(
			&d.GUID, &d.Event, &d.Action, &d.InstallationID, &d.RepositoryID, at(&d.ReceivedAt),
			&d.Payload, &d.BodyHash, &d.State, &d.Error, at(&d.UpdatedAt))
	})
	if err == nil {
		d.Payload, err = store.UnpackPayload(d.Payload)
	}
	if err != nil {
		return store.Delivery{}, fmt.Errorf("get delivery %s: %w", guid, err)
	}
	if d.Payload == nil {
		d.Payload = []byte{}
	}
	return d, nil
}

// FailedDeliveries lists a repository's failed deliveries, newest first.
func (s *Records) FailedDeliveries(ctx context.Context, repositoryID int64, limit int) ([]store.Delivery, error) {
	list, err := readAll(ctx, s.db, `
SELECT guid, event, action, installation_id, repository_id, received_at, state, error, updated_at
FROM webhook_deliveries WHERE repository_id = $1 AND state = 'failed'
ORDER BY updated_at DESC, guid LIMIT $2`, []any{repositoryID, limit}, func(r Rows) (store.Delivery, error) {
		var d store.Delivery
		err := r.Scan(&d.GUID, &d.Event, &d.Action, &d.InstallationID, &d.RepositoryID, at(&d.ReceivedAt),
			&d.State, &d.Error, at(&d.UpdatedAt))
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("list failed deliveries of repository %d: %w", repositoryID, err)
	}
	return list, nil
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

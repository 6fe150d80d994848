package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/polylane/polylane/store"
)

// jsonText validates a JSON document and returns it as text; empty means def.
func jsonText(doc json.RawMessage, def, what string) (string, error) {
	if len(doc) == 0 {
		return def, nil
	}
	if !json.Valid(doc) {
		return "", invalid("%s is not valid JSON", what)
	}
	return string(doc), nil
}

// PutOccurrences replaces the failure occurrences of a run attempt. As in
// PutJobs, rows another diagnosis committed meanwhile for the same attempt
// are kept rather than failing this one.
func (s *Records) PutOccurrences(ctx context.Context, key store.RunKey, occ []store.Occurrence) error {
	if err := validKey(key); err != nil {
		return err
	}
	lines := make([]string, len(occ))
	details := make([]string, len(occ))
	for i, o := range occ {
		if (o.RepositoryID != 0 && o.RepositoryID != key.RepositoryID) || (o.RunID != 0 && o.RunID != key.RunID) ||
			(o.Attempt != 0 && o.Attempt != key.Attempt) {
			return invalid("occurrence %d belongs to another run than %d attempt %d", i, key.RunID, key.Attempt)
		}
		var err error
		if lines[i], err = jsonText(o.CauseLines, "[]", fmt.Sprintf("cause lines of occurrence %d", i)); err != nil {
			return err
		}
		if details[i], err = jsonText(o.Detail, "", fmt.Sprintf("detail of occurrence %d", i)); err != nil {
			return err
		}
	}
	err := s.db.Write(ctx, func(tx Tx) error {
		var created time.Time
		if err := tx.QueryRow(ctx, `SELECT created_at FROM workflow_runs WHERE repository_id = $1 AND run_id = $2 AND attempt = $3`,
			key.RepositoryID, key.RunID, key.Attempt).Scan(at(&created)); err != nil {
			return fmt.Errorf("run %d attempt %d: %w", key.RunID, key.Attempt, err)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM failure_occurrences WHERE repository_id = $1 AND run_id = $2 AND attempt = $3`,
			key.RepositoryID, key.RunID, key.Attempt); err != nil {
			return err
		}
		for i, o := range occ {
			when := o.OccurredAt
			if when.IsZero() {
				when = created
			}
			_, err := tx.Exec(ctx, `
INSERT INTO failure_occurrences (repository_id, run_id, attempt, job_id, job_name, step_number, step_name,
    signature, signature_id, cause_lines, exit_code, unknown, class_id, occurred_at, detail)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) ON CONFLICT DO NOTHING`,
				key.RepositoryID, key.RunID, key.Attempt, o.JobID, o.JobName, o.StepNumber, o.StepName,
				o.Signature, o.SignatureID, lines[i], o.ExitCode, o.Unknown, o.ClassID, norm(when), details[i])
			if err != nil {
				return fmt.Errorf("insert occurrence of job %d step %d: %w", o.JobID, o.StepNumber, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("put occurrences of run %d attempt %d: %w", key.RunID, key.Attempt, err)
	}
	return nil
}

// ListOccurrences lists failure occurrences newest first.
func (s *Records) ListOccurrences(ctx context.Context, q store.OccurrenceQuery) ([]store.Occurrence, error) {
	var f filter
	f.add("o.repository_id = ?", q.RepositoryID)
	if q.ClassID != "" {
		f.add("o.class_id = ?", q.ClassID)
	}
	if q.WorkflowID != 0 {
		f.add("r.workflow_id = ?", q.WorkflowID)
	}
	if !q.Since.IsZero() {
		f.add("o.occurred_at >= ?", norm(q.Since))
	}
	query := `
SELECT o.repository_id, o.run_id, o.attempt, o.job_id, o.job_name, o.step_number, o.step_name, o.signature,
    o.signature_id, o.cause_lines, o.exit_code, o.unknown, o.class_id, o.occurred_at, o.detail
FROM failure_occurrences o JOIN workflow_runs r
    ON r.repository_id = o.repository_id AND r.run_id = o.run_id AND r.attempt = o.attempt` + f.where() + `
ORDER BY o.occurred_at DESC, o.run_id DESC, o.attempt DESC, o.job_id, o.step_number` + f.limit(clampLimit(q.Limit, 200, 5000))
	var list []store.Occurrence
	err := s.db.Read(ctx, func(tx Tx) error {
		rows, err := tx.Query(ctx, query, f.args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var o store.Occurrence
			var lines, detail string
			if err := rows.Scan(&o.RepositoryID, &o.RunID, &o.Attempt, &o.JobID, &o.JobName, &o.StepNumber, &o.StepName,
				&o.Signature, &o.SignatureID, &lines, &o.ExitCode, &o.Unknown, &o.ClassID, at(&o.OccurredAt), &detail); err != nil {
				return err
			}
			o.CauseLines = json.RawMessage(lines)
			if detail != "" {
				o.Detail = json.RawMessage(detail)
			}
			list = append(list, o)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("list occurrences of repository %d: %w", q.RepositoryID, err)
	}
	return list, nil
}

// UpsertClass inserts a class or updates its statistics. FirstSeen keeps the
// earliest value ever stored, LastSeen the latest; Muted and MuteReason are
// left as stored (MuteClass changes them).
func (s *Records) UpsertClass(ctx context.Context, c store.FailureClass) error {
	if c.RepositoryID <= 0 || c.ID == "" {
		return invalid("failure class %q of repository %d: id is required", c.ID, c.RepositoryID)
	}
	if c.LastSeen.IsZero() {
		return invalid("failure class %s: last_seen is required", c.ID)
	}
	if c.FirstSeen.IsZero() || c.FirstSeen.After(c.LastSeen) {
		c.FirstSeen = c.LastSeen
	}
	detail, err := jsonText(c.Detail, "", "detail of failure class "+c.ID)
	if err != nil {
		return err
	}
	err = s.db.Write(ctx, func(tx Tx) error {
		_, err := tx.Exec(ctx, `
INSERT INTO failure_classes (repository_id, id, workflow_id, workflow_path, step, signature, first_seen, last_seen,
    count, pattern, verdict, muted, mute_reason, updated_at, detail)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
ON CONFLICT (repository_id, id) DO UPDATE SET
    workflow_id = excluded.workflow_id, workflow_path = excluded.workflow_path, step = excluded.step,
    signature = excluded.signature,
    first_seen = CASE WHEN excluded.first_seen < failure_classes.first_seen
        THEN excluded.first_seen ELSE failure_classes.first_seen END,
    last_seen = CASE WHEN excluded.last_seen > failure_classes.last_seen
        THEN excluded.last_seen ELSE failure_classes.last_seen END,
    count = excluded.count, pattern = excluded.pattern, verdict = excluded.verdict,
    updated_at = excluded.updated_at,
    detail = CASE WHEN excluded.detail = '' THEN failure_classes.detail ELSE excluded.detail END`,
			c.RepositoryID, c.ID, c.WorkflowID, c.WorkflowPath, c.Step, c.Signature, norm(c.FirstSeen), norm(c.LastSeen),
			c.Count, c.Pattern, c.Verdict, c.Muted, c.MuteReason, s.clock(), detail)
		return err
	})
	if err != nil {
		return fmt.Errorf("upsert failure class %s: %w", c.ID, err)
	}
	return nil
}

const classColumns = `repository_id, id, workflow_id, workflow_path, step, signature, first_seen, last_seen,
    count, pattern, verdict, muted, mute_reason, muted_in_config, config_mute_reason, updated_at, detail`

func scanClass(row Row) (store.FailureClass, error) {
	var c store.FailureClass
	var detail string
	err := row.Scan(&c.RepositoryID, &c.ID, &c.WorkflowID, &c.WorkflowPath, &c.Step, &c.Signature,
		at(&c.FirstSeen), at(&c.LastSeen), &c.Count, &c.Pattern, &c.Verdict, &c.Muted, &c.MuteReason,
		&c.MutedInConfig, &c.ConfigMuteReason, at(&c.UpdatedAt), &detail)
	if detail != "" {
		c.Detail = json.RawMessage(detail)
	}
	return c, err
}

// GetClass reads one failure class.
func (s *Records) GetClass(ctx context.Context, repositoryID int64, id string) (store.FailureClass, error) {
	var c store.FailureClass
	err := s.db.Read(ctx, func(tx Tx) error {
		var err error
		c, err = scanClass(tx.QueryRow(ctx, `SELECT `+classColumns+` FROM failure_classes
WHERE repository_id = $1 AND id = $2`, repositoryID, id))
		return err
	})
	if err != nil {
		return store.FailureClass{}, fmt.Errorf("get failure class %s of repository %d: %w", id, repositoryID, err)
	}
	return c, nil
}

// ListClasses lists the classes of a repository, most recently seen first.
func (s *Records) ListClasses(ctx context.Context, q store.ClassQuery) ([]store.FailureClass, error) {
	var f filter
	f.add("repository_id = ?", q.RepositoryID)
	if q.WorkflowID != 0 {
		f.add("workflow_id = ?", q.WorkflowID)
	}
	if !q.IncludeMuted {
		f.add("muted = ? AND muted_in_config = ?", false, false)
	}
	query := `SELECT ` + classColumns + ` FROM failure_classes` + f.where() +
		` ORDER BY last_seen DESC, id` + f.limit(clampLimit(q.Limit, 200, 5000))
	var list []store.FailureClass
	err := s.db.Read(ctx, func(tx Tx) error {
		rows, err := tx.Query(ctx, query, f.args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			c, err := scanClass(rows)
			if err != nil {
				return err
			}
			list = append(list, c)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("list failure classes of repository %d: %w", q.RepositoryID, err)
	}
	return list, nil
}

// MuteClass mutes or unmutes a class.
func (s *Records) MuteClass(ctx context.Context, repositoryID int64, id string, muted bool, reason string) error {
	err := s.db.Write(ctx, func(tx Tx) error {
		n, err := tx.Exec(ctx, `UPDATE failure_classes SET muted = $3, mute_reason = $4, updated_at = $5
WHERE repository_id = $1 AND id = $2`, repositoryID, id, muted, reason, s.clock())
		if err != nil {
			return err
		}
		if n == 0 {
			return store.ErrNotFound
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("mute failure class %s of repository %d: %w", id, repositoryID, err)
	}
	return nil
}

// SetConfigMutes marks the classes a repository's configuration mutes and
// clears the mark from every other class of it, in one transaction that
// writes only the rows whose mark or reason changes.
func (s *Records) SetConfigMutes(ctx context.Context, repositoryID int64, muted map[string]string) error {
	err := s.db.Write(ctx, func(tx Tx) error {
		rows, err := tx.Query(ctx, `SELECT id, config_mute_reason FROM failure_classes
WHERE repository_id = $1 AND muted_in_config = $2`, repositoryID, true)
		if err != nil {
			return err
		}
		marked := map[string]string{}
		for rows.Next() {
			var id, reason string
			if err := rows.Scan(&id, &reason); err != nil {
				rows.Close()
				return err
			}
			marked[id] = reason
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		type change struct {
			id, reason string
			on         bool
		}
		var changes []change
		for id := range marked {
			if _, ok := muted[id]; !ok {
				changes = append(changes, change{id: id})
			}
		}
		for id, reason := range muted {
			if was, ok := marked[id]; !ok || was != reason {
				changes = append(changes, change{id: id, reason: reason, on: true})
			}
		}
		sort.Slice(changes, func(i, j int) bool { return changes[i].id < changes[j].id })
		now := s.clock()
		for _, c := range changes {
			if _, err := tx.Exec(ctx, `UPDATE failure_classes SET muted_in_config = $3, config_mute_reason = $4, updated_at = $5
WHERE repository_id = $1 AND id = $2`, repositoryID, c.id, c.on, c.reason, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("set the configuration's muted classes of repository %d: %w", repositoryID, err)
	}
	return nil
}

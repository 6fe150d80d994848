package sqlstore

import (
	"context"
	"fmt"

	"github.com/polylane/polylane/store"
)

// CreateSession stores a dashboard session and deletes the expired ones.
func (s *Records) CreateSession(ctx context.Context, ds store.DashboardSession) error {
	if len(ds.ID) == 0 || ds.UserID == 0 || ds.CreatedAt.IsZero() || !ds.ExpiresAt.After(ds.CreatedAt) {
		return invalid("dashboard session: id, user, creation and a later expiry are required")
	}
	err := s.db.Write(ctx, func(tx Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM dashboard_sessions WHERE expires_at < $1`, norm(ds.CreatedAt)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO dashboard_sessions (id, user_id, login, created_at, expires_at)
VALUES ($1, $2, $3, $4, $5)`, ds.ID, ds.UserID, ds.Login, norm(ds.CreatedAt), norm(ds.ExpiresAt))
		return err
	})
	if err != nil {
		return fmt.Errorf("create dashboard session of %s: %w", ds.Login, err)
	}
	return nil
}

// GetSession reads a dashboard session.
func (s *Records) GetSession(ctx context.Context, id []byte) (store.DashboardSession, error) {
	var ds store.DashboardSession
	err := s.db.Read(ctx, func(tx Tx) error {
		return tx.QueryRow(ctx, `SELECT id, user_id, login, created_at, expires_at FROM dashboard_sessions WHERE id = $1`,
			id).Scan(&ds.ID, &ds.UserID, &ds.Login, at(&ds.CreatedAt), at(&ds.ExpiresAt))
	})
	if err != nil {
		return store.DashboardSession{}, fmt.Errorf("get dashboard session: %w", err)
	}
	return ds, nil
}

// DeleteSession deletes a dashboard session.
func (s *Records) DeleteSession(ctx context.Context, id []byte) error {
	err := s.db.Write(ctx, func(tx Tx) error {
		_, err := tx.Exec(ctx, `DELETE FROM dashboard_sessions WHERE id = $1`, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("delete dashboard session: %w", err)
	}
	return nil
}

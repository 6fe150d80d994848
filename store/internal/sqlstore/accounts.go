package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/polylane/polylane/store"
)

// UpsertInstallation inserts an installation or updates it.
func (s *Records) UpsertInstallation(ctx context.Context, in store.Installation) error {
	if in.ID <= 0 || in.AccountLogin == "" {
		return invalid("installation %d: id and account login are required", in.ID)
	}
	now := s.clock()
	err := s.db.Write(ctx, func(tx Tx) error {
		_, err := tx.Exec(ctx, `
INSERT INTO installations (id, account_login, account_type, suspended, deleted, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $6)
ON CONFLICT (id) DO UPDATE SET
    account_login = excluded.account_login, account_type = excluded.account_type,
    suspended = excluded.suspended, deleted = excluded.deleted, updated_at = excluded.updated_at`,
			in.ID, in.AccountLogin, in.AccountType, in.Suspended, in.Deleted, now)
		return err
	})
	if err != nil {
		return fmt.Errorf("upsert installation %d: %w", in.ID, err)
	}
	return nil
}

// GetInstallation reads one installation.
func (s *Records) GetInstallation(ctx context.Context, id int64) (store.Installation, error) {
	var in store.Installation
	err := s.db.Read(ctx, func(tx Tx) error {
		return tx.QueryRow(ctx, `
SELECT id, account_login, account_type, suspended, deleted, created_at, updated_at
FROM installations WHERE id = $1`, id).Scan(
			&in.ID, &in.AccountLogin, &in.AccountType, &in.Suspended, &in.Deleted, at(&in.CreatedAt), at(&in.UpdatedAt))
	})
	if err != nil {
		return store.Installation{}, fmt.Errorf("get installation %d: %w", id, err)
	}
	return in, nil
}

// UpsertRepository inserts a repository or updates it.
func (s *Records) UpsertRepository(ctx context.Context, r store.Repository) error {
	if r.ID <= 0 || !strings.Contains(r.FullName, "/") {
		return invalid("repository %d %q: id and owner/name are required", r.ID, r.FullName)
	}
	now := s.clock()
	err := s.db.Write(ctx, func(tx Tx) error {
		_, err := tx.Exec(ctx, `
INSERT INTO repositories (id, installation_id, full_name, default_branch, private, removed, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
ON CONFLICT (id) DO UPDATE SET
    installation_id = excluded.installation_id, full_name = excluded.full_name,
    default_branch = excluded.default_branch, private = excluded.private,
    removed = excluded.removed, updated_at = excluded.updated_at`,
			r.ID, r.InstallationID, r.FullName, r.DefaultBranch, r.Private, r.Removed, now)
		return err
	})
	if err != nil {
		return fmt.Errorf("upsert repository %s: %w", r.FullName, err)
	}
	return nil
}

const repositoryColumns = `id, installation_id, full_name, default_branch, private, removed, created_at, updated_at`

func scanRepository(row Row) (store.Repository, error) {
	var r store.Repository
	err := row.Scan(&r.ID, &r.InstallationID, &r.FullName, &r.DefaultBranch, &r.Private, &r.Removed,
		at(&r.CreatedAt), at(&r.UpdatedAt))
	return r, err
}

// GetRepository reads one repository by GitHub id.
func (s *Records) GetRepository(ctx context.Context, id int64) (store.Repository, error) {
	var r store.Repository
	err := s.db.Read(ctx, func(tx Tx) error {
		var err error
		r, err = scanRepository(tx.QueryRow(ctx, `SELECT `+repositoryColumns+` FROM repositories WHERE id = $1`, id))
		return err
	})
	if err != nil {
		return store.Repository{}, fmt.Errorf("get repository %d: %w", id, err)
	}
	return r, nil
}

// GetRepositoryByName reads a repository by owner/name, ignoring case.
func (s *Records) GetRepositoryByName(ctx context.Context, fullName string) (store.Repository, error) {
	var r store.Repository
	err := s.db.Read(ctx, func(tx Tx) error {
		var err error
		r, err = scanRepository(tx.QueryRow(ctx, `SELECT `+repositoryColumns+` FROM repositories
WHERE lower(full_name) = lower($1) ORDER BY removed, updated_at DESC, id DESC LIMIT 1`, fullName))
		return err
	})
	if err != nil {
		return store.Repository{}, fmt.Errorf("get repository %q: %w", fullName, err)
	}
	return r, nil
}

// ListRepositories lists the repositories of an installation (0: all).
func (s *Records) ListRepositories(ctx context.Context, installationID int64) ([]store.Repository, error) {
	var list []store.Repository
	var f filter
	if installationID != 0 {
		f.add("installation_id = ?", installationID)
	}
	query := `SELECT ` + repositoryColumns + ` FROM repositories` + f.where() + ` ORDER BY lower(full_name), id`
	err := s.db.Read(ctx, func(tx Tx) error {
		rows, err := tx.Query(ctx, query, f.args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			r, err := scanRepository(rows)
			if err != nil {
				return err
			}
			list = append(list, r)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("list repositories of installation %d: %w", installationID, err)
	}
	return list, nil
}

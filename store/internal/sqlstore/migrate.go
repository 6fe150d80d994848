package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/pressly/goose/v3"

	"github.com/polylane/polylane/migrations"
)

// gooseDialect maps a migrations dialect to goose's.
func gooseDialect(dialect string) (goose.Dialect, error) {
	switch dialect {
	case migrations.SQLite:
		return goose.DialectSQLite3, nil
	case migrations.Postgres:
		return goose.DialectPostgres, nil
	}
	return "", fmt.Errorf("no goose dialect for %q", dialect)
}

// MigrateSchema applies Polylane's pending goose migrations on db and returns
// the schema version and the number applied. The caller serialises concurrent
// migrators (PostgreSQL: an advisory lock; SQLite: one writer connection).
func MigrateSchema(ctx context.Context, db *sql.DB, dialect string) (version int64, applied int, err error) {
	d, err := gooseDialect(dialect)
	if err != nil {
		return 0, 0, err
	}
	fsys, err := migrations.FS(dialect)
	if err != nil {
		return 0, 0, err
	}
	p, err := goose.NewProvider(d, db, fsys)
	if err != nil {
		return 0, 0, fmt.Errorf("goose provider: %w", err)
	}
	res, err := p.Up(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("apply schema migrations: %w", err)
	}
	version, err = p.GetDBVersion(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("read schema version: %w", err)
	}
	return version, len(res), nil
}

// CheckSchema returns nil when every migration of dialect is recorded as
// applied in goose's version table, and otherwise an error that names the
// first missing version. It only reads.
func CheckSchema(ctx context.Context, tx Tx, dialect string) error {
	want, err := migrations.Versions(dialect)
	if err != nil {
		return err
	}
	rows, err := tx.Query(ctx, `SELECT version_id, is_applied FROM goose_db_version ORDER BY id`)
	if err != nil {
		return fmt.Errorf("schema not migrated (run \"polylane migrate\"): %w", err)
	}
	defer rows.Close()
	applied := map[int64]bool{}
	for rows.Next() {
		var v int64
		var ok bool
		if err := rows.Scan(&v, &ok); err != nil {
			return fmt.Errorf("read schema versions: %w", err)
		}
		applied[v] = ok
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read schema versions: %w", err)
	}
	for _, v := range want {
		if !applied[v] {
			return fmt.Errorf("schema migration %d not applied (run \"polylane migrate\")", v)
		}
	}
	return nil
}

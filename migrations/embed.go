// Package migrations embeds Polylane's goose SQL migrations, one folder per
// backend (sqlite, postgres). Migrations are numbered and append-only: a later
// issue adds a new file and never edits an applied one.
package migrations

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

//go:embed sqlite/*.sql postgres/*.sql
var files embed.FS

// Dialects that have a migration folder.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// FS returns the migrations of one dialect (SQLite or Postgres) with the SQL
// files at its root, as goose expects them.
func FS(dialect string) (fs.FS, error) {
	switch dialect {
	case SQLite, Postgres:
		return fs.Sub(files, dialect)
	}
	return nil, fmt.Errorf("no migrations for dialect %q", dialect)
}

// Versions lists the version numbers of a dialect's migrations in ascending
// order, read from the numeric prefix of each file name.
func Versions(dialect string) ([]int64, error) {
	fsys, err := FS(dialect)
	if err != nil {
		return nil, err
	}
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, fmt.Errorf("list %s migrations: %w", dialect, err)
	}
	versions := make([]int64, 0, len(names))
	for _, name := range names {
		prefix, _, ok := strings.Cut(path.Base(name), "_")
		if !ok {
			return nil, fmt.Errorf("migration %s/%s: name must start with <version>_", dialect, name)
		}
		v, err := strconv.ParseInt(prefix, 10, 64)
		if err != nil || v < 1 {
			return nil, fmt.Errorf("migration %s/%s: bad version prefix %q", dialect, name, prefix)
		}
		versions = append(versions, v)
	}
	sort.Slice(versions, func(i, j int) bool { return versions[i] < versions[j] })
	return versions, nil
}

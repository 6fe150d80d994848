// Package sqlite implements store.Store on an embedded, pure-Go SQLite database
// (modernc.org/sqlite) in WAL mode; it is the default backend of a single binary.
package sqlite

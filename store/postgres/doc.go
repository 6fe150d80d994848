// Package postgres implements store.Store on PostgreSQL through pgx/v5; it is the
// backend for production and for more than one replica.
package postgres

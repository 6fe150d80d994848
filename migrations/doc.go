// Package migrations embeds Polylane's goose SQL migrations, one folder per
// backend (sqlite, postgres). Migrations are numbered and append-only.
package migrations

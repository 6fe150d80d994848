#!/usr/bin/env bash
# Applies (up), rolls back (down) or lists (status) the SQL migrations in
# db/migrations against $DATABASE_URL. goose runs at a pinned version through
# `go run`, so nothing has to be installed first.
set -euo pipefail

: "${DATABASE_URL:?DATABASE_URL must point at the tally database}"
GOOSE_VERSION="v3.23.0"
command="${1:-up}"

case "$command" in
  up|down|status|version) ;;
  *) echo "usage: $0 up|down|status|version" >&2; exit 2 ;;
esac

echo "migrate: goose ${command} on ${DATABASE_URL#*@}"
go run "github.com/pressly/goose/v3/cmd/goose@${GOOSE_VERSION}" -dir db/migrations postgres "$DATABASE_URL" "$command"

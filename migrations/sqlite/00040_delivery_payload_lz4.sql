-- Webhook payloads (SQLite): nothing to do. PostgreSQL's migration 00040
-- compresses payloads with lz4; the version stays the same in both dialects.

-- +goose Up
SELECT 1;

-- +goose Down
SELECT 1;

-- Polylane schema, version 2 (PostgreSQL): the history cache of the GitHub
-- App loop. Runs, occurrences and classes keep the full document the
-- pipeline works with (JSON text, empty when not known), and github_cache
-- keeps conditional-request validators, trees by commit and blobs by object
-- name.

-- +goose Up
ALTER TABLE workflow_runs ADD COLUMN detail TEXT NOT NULL DEFAULT '';
ALTER TABLE failure_occurrences ADD COLUMN detail TEXT NOT NULL DEFAULT '';
ALTER TABLE failure_classes ADD COLUMN detail TEXT NOT NULL DEFAULT '';

CREATE TABLE github_cache (
    key        TEXT        PRIMARY KEY,
    etag       TEXT        NOT NULL DEFAULT '',
    body       BYTEA       NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX github_cache_updated ON github_cache (updated_at);

CREATE INDEX workflow_runs_branch ON workflow_runs (repository_id, workflow_id, branch, created_at DESC);

-- +goose Down
DROP INDEX workflow_runs_branch;
DROP TABLE github_cache;
ALTER TABLE failure_classes DROP COLUMN detail;
ALTER TABLE failure_occurrences DROP COLUMN detail;
ALTER TABLE workflow_runs DROP COLUMN detail;

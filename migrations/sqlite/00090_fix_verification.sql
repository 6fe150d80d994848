-- Fix verification (SQLite): the runs of the repository's own workflows on
-- a fix pull request's branch, one row per run attempt, and per fix the
-- reruns Polylane asked for. A redelivered workflow_run rewrites its row.

-- +goose Up
CREATE TABLE fix_verification_runs (
    repository_id INTEGER NOT NULL,
    class_id      TEXT    NOT NULL,
    run_id        INTEGER NOT NULL,
    attempt       INTEGER NOT NULL CHECK (attempt >= 1),
    workflow_id   INTEGER NOT NULL,
    workflow_name TEXT    NOT NULL DEFAULT '',
    head_sha      TEXT    NOT NULL DEFAULT '',
    conclusion    TEXT    NOT NULL,
    failed_job    TEXT    NOT NULL DEFAULT '',
    cause         TEXT    NOT NULL DEFAULT '',
    failure_class TEXT    NOT NULL DEFAULT '',
    in_class      INTEGER NOT NULL DEFAULT 0 CHECK (in_class IN (0, 1)),
    completed_at  INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    PRIMARY KEY (repository_id, run_id, attempt),
    FOREIGN KEY (repository_id, class_id) REFERENCES fix_pull_requests (repository_id, class_id)
) STRICT;
CREATE INDEX fix_verification_runs_class ON fix_verification_runs (repository_id, class_id, run_id);

CREATE TABLE fix_verifications (
    repository_id INTEGER NOT NULL,
    class_id      TEXT    NOT NULL,
    reruns        INTEGER NOT NULL DEFAULT 0 CHECK (reruns >= 0),
    refused       TEXT    NOT NULL DEFAULT '',
    last_rerun_at INTEGER,
    updated_at    INTEGER NOT NULL,
    PRIMARY KEY (repository_id, class_id),
    FOREIGN KEY (repository_id, class_id) REFERENCES fix_pull_requests (repository_id, class_id)
) STRICT;

-- +goose Down
DROP TABLE fix_verifications;
DROP TABLE fix_verification_runs;

-- Polylane schema, version 1 (SQLite). Times are INTEGER microseconds since the
-- Unix epoch (UTC); booleans are INTEGER 0/1; JSON documents are TEXT.

-- +goose Up
CREATE TABLE installations (
    id            INTEGER PRIMARY KEY,
    account_login TEXT    NOT NULL,
    account_type  TEXT    NOT NULL DEFAULT '',
    suspended     INTEGER NOT NULL DEFAULT 0 CHECK (suspended IN (0, 1)),
    deleted       INTEGER NOT NULL DEFAULT 0 CHECK (deleted IN (0, 1)),
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
) STRICT;

CREATE TABLE repositories (
    id              INTEGER PRIMARY KEY,
    installation_id INTEGER NOT NULL,
    full_name       TEXT    NOT NULL,
    default_branch  TEXT    NOT NULL DEFAULT '',
    private         INTEGER NOT NULL DEFAULT 0 CHECK (private IN (0, 1)),
    removed         INTEGER NOT NULL DEFAULT 0 CHECK (removed IN (0, 1)),
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
) STRICT;
CREATE INDEX repositories_full_name ON repositories (lower(full_name));
CREATE INDEX repositories_installation ON repositories (installation_id);

CREATE TABLE webhook_deliveries (
    guid            TEXT    PRIMARY KEY,
    event           TEXT    NOT NULL,
    action          TEXT    NOT NULL DEFAULT '',
    installation_id INTEGER NOT NULL DEFAULT 0,
    repository_id   INTEGER NOT NULL DEFAULT 0,
    received_at     INTEGER NOT NULL,
    payload         BLOB    NOT NULL,
    state           TEXT    NOT NULL CHECK (state IN ('queued', 'processing', 'done', 'failed', 'ignored')),
    error           TEXT    NOT NULL DEFAULT '',
    updated_at      INTEGER NOT NULL
) STRICT;
CREATE INDEX webhook_deliveries_received ON webhook_deliveries (received_at);

CREATE TABLE workflow_runs (
    repository_id INTEGER NOT NULL REFERENCES repositories (id),
    run_id        INTEGER NOT NULL,
    attempt       INTEGER NOT NULL,
    workflow_id   INTEGER NOT NULL DEFAULT 0,
    workflow_path TEXT    NOT NULL DEFAULT '',
    workflow_name TEXT    NOT NULL DEFAULT '',
    run_number    INTEGER NOT NULL DEFAULT 0,
    head_sha      TEXT    NOT NULL DEFAULT '',
    branch        TEXT    NOT NULL DEFAULT '',
    event         TEXT    NOT NULL DEFAULT '',
    status        TEXT    NOT NULL DEFAULT '',
    conclusion    TEXT    NOT NULL DEFAULT '',
    created_at    INTEGER NOT NULL,
    html_url      TEXT    NOT NULL DEFAULT '',
    updated_at    INTEGER NOT NULL,
    PRIMARY KEY (repository_id, run_id, attempt)
) STRICT;
CREATE INDEX workflow_runs_history ON workflow_runs (repository_id, created_at DESC, run_id DESC, attempt DESC);
CREATE INDEX workflow_runs_workflow ON workflow_runs (repository_id, workflow_id, created_at DESC);
CREATE INDEX workflow_runs_recent ON workflow_runs (created_at DESC, run_id DESC, attempt DESC);

CREATE TABLE workflow_jobs (
    id            INTEGER PRIMARY KEY,
    repository_id INTEGER NOT NULL,
    run_id        INTEGER NOT NULL,
    attempt       INTEGER NOT NULL,
    name          TEXT    NOT NULL,
    status        TEXT    NOT NULL DEFAULT '',
    conclusion    TEXT    NOT NULL DEFAULT '',
    started_at    INTEGER,
    completed_at  INTEGER,
    html_url      TEXT    NOT NULL DEFAULT '',
    FOREIGN KEY (repository_id, run_id, attempt)
        REFERENCES workflow_runs (repository_id, run_id, attempt) ON DELETE CASCADE
) STRICT;
CREATE INDEX workflow_jobs_run ON workflow_jobs (repository_id, run_id, attempt);

CREATE TABLE job_steps (
    job_id       INTEGER NOT NULL REFERENCES workflow_jobs (id) ON DELETE CASCADE,
    number       INTEGER NOT NULL,
    name         TEXT    NOT NULL,
    status       TEXT    NOT NULL DEFAULT '',
    conclusion   TEXT    NOT NULL DEFAULT '',
    started_at   INTEGER,
    completed_at INTEGER,
    PRIMARY KEY (job_id, number)
) STRICT;

CREATE TABLE failure_classes (
    repository_id INTEGER NOT NULL REFERENCES repositories (id),
    id            TEXT    NOT NULL,
    workflow_id   INTEGER NOT NULL DEFAULT 0,
    workflow_path TEXT    NOT NULL DEFAULT '',
    step          TEXT    NOT NULL DEFAULT '',
    signature     TEXT    NOT NULL DEFAULT '',
    first_seen    INTEGER NOT NULL,
    last_seen     INTEGER NOT NULL,
    count         INTEGER NOT NULL DEFAULT 0,
    pattern       TEXT    NOT NULL DEFAULT '',
    verdict       TEXT    NOT NULL DEFAULT '',
    muted         INTEGER NOT NULL DEFAULT 0 CHECK (muted IN (0, 1)),
    mute_reason   TEXT    NOT NULL DEFAULT '',
    updated_at    INTEGER NOT NULL,
    PRIMARY KEY (repository_id, id)
) STRICT;
CREATE INDEX failure_classes_recent ON failure_classes (repository_id, last_seen DESC);

CREATE TABLE failure_occurrences (
    repository_id INTEGER NOT NULL,
    run_id        INTEGER NOT NULL,
    attempt       INTEGER NOT NULL,
    job_id        INTEGER NOT NULL,
    job_name      TEXT    NOT NULL DEFAULT '',
    step_number   INTEGER NOT NULL,
    step_name     TEXT    NOT NULL DEFAULT '',
    signature     TEXT    NOT NULL DEFAULT '',
    signature_id  TEXT    NOT NULL DEFAULT '',
    cause_lines   TEXT    NOT NULL DEFAULT '[]',
    exit_code     INTEGER,
    unknown       INTEGER NOT NULL DEFAULT 0 CHECK (unknown IN (0, 1)),
    class_id      TEXT    NOT NULL DEFAULT '',
    occurred_at   INTEGER NOT NULL,
    PRIMARY KEY (repository_id, run_id, attempt, job_id, step_number),
    FOREIGN KEY (repository_id, run_id, attempt)
        REFERENCES workflow_runs (repository_id, run_id, attempt) ON DELETE CASCADE
) STRICT;
CREATE INDEX failure_occurrences_class ON failure_occurrences (repository_id, class_id, occurred_at DESC);
CREATE INDEX failure_occurrences_recent ON failure_occurrences (repository_id, occurred_at DESC);

CREATE TABLE diagnoses (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    repository_id INTEGER NOT NULL,
    run_id        INTEGER NOT NULL,
    attempt       INTEGER NOT NULL,
    document      TEXT    NOT NULL,
    verdict       TEXT    NOT NULL DEFAULT '',
    class_id      TEXT    NOT NULL DEFAULT '',
    created_at    INTEGER NOT NULL,
    stale         INTEGER NOT NULL DEFAULT 0 CHECK (stale IN (0, 1)),
    UNIQUE (repository_id, run_id, attempt),
    FOREIGN KEY (repository_id, run_id, attempt)
        REFERENCES workflow_runs (repository_id, run_id, attempt) ON DELETE CASCADE
) STRICT;
CREATE INDEX diagnoses_class ON diagnoses (repository_id, class_id);

CREATE TABLE published_comments (
    repository_id INTEGER NOT NULL REFERENCES repositories (id),
    number        INTEGER NOT NULL,
    kind          TEXT    NOT NULL,
    comment_id    INTEGER NOT NULL,
    diagnosis_id  INTEGER REFERENCES diagnoses (id) ON DELETE SET NULL,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    PRIMARY KEY (repository_id, number, kind)
) STRICT;

CREATE TABLE fix_pull_requests (
    repository_id INTEGER NOT NULL,
    class_id      TEXT    NOT NULL,
    number        INTEGER NOT NULL,
    branch        TEXT    NOT NULL,
    state         TEXT    NOT NULL CHECK (state IN ('open', 'closed', 'merged')),
    head_sha      TEXT    NOT NULL DEFAULT '',
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    closed_at     INTEGER,
    PRIMARY KEY (repository_id, class_id),
    FOREIGN KEY (repository_id, class_id) REFERENCES failure_classes (repository_id, id)
) STRICT;
CREATE INDEX fix_pull_requests_number ON fix_pull_requests (repository_id, number);

-- +goose Down
DROP TABLE fix_pull_requests;
DROP TABLE published_comments;
DROP TABLE diagnoses;
DROP TABLE failure_occurrences;
DROP TABLE failure_classes;
DROP TABLE job_steps;
DROP TABLE workflow_jobs;
DROP TABLE workflow_runs;
DROP TABLE webhook_deliveries;
DROP TABLE repositories;
DROP TABLE installations;

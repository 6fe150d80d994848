-- Polylane schema, version 1 (PostgreSQL).

-- +goose Up
CREATE TABLE installations (
    id            BIGINT  PRIMARY KEY,
    account_login TEXT    NOT NULL,
    account_type  TEXT    NOT NULL DEFAULT '',
    suspended     BOOLEAN NOT NULL DEFAULT false,
    deleted       BOOLEAN NOT NULL DEFAULT false,
    created_at    TIMESTAMPTZ NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL
);

CREATE TABLE repositories (
    id              BIGINT  PRIMARY KEY,
    installation_id BIGINT  NOT NULL,
    full_name       TEXT    NOT NULL,
    default_branch  TEXT    NOT NULL DEFAULT '',
    private         BOOLEAN NOT NULL DEFAULT false,
    removed         BOOLEAN NOT NULL DEFAULT false,
    created_at      TIMESTAMPTZ NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL
);
CREATE INDEX repositories_full_name ON repositories (lower(full_name));
CREATE INDEX repositories_installation ON repositories (installation_id);

CREATE TABLE webhook_deliveries (
    guid            TEXT    PRIMARY KEY,
    event           TEXT    NOT NULL,
    action          TEXT    NOT NULL DEFAULT '',
    installation_id BIGINT  NOT NULL DEFAULT 0,
    repository_id   BIGINT  NOT NULL DEFAULT 0,
    received_at     TIMESTAMPTZ NOT NULL,
    payload         BYTEA   NOT NULL,
    state           TEXT    NOT NULL CHECK (state IN ('queued', 'processing', 'done', 'failed', 'ignored')),
    error           TEXT    NOT NULL DEFAULT '',
    updated_at      TIMESTAMPTZ NOT NULL
);
CREATE INDEX webhook_deliveries_received ON webhook_deliveries (received_at);

CREATE TABLE workflow_runs (
    repository_id BIGINT  NOT NULL REFERENCES repositories (id),
    run_id        BIGINT  NOT NULL,
    attempt       BIGINT  NOT NULL,
    workflow_id   BIGINT  NOT NULL DEFAULT 0,
    workflow_path TEXT    NOT NULL DEFAULT '',
    workflow_name TEXT    NOT NULL DEFAULT '',
    run_number    BIGINT  NOT NULL DEFAULT 0,
    head_sha      TEXT    NOT NULL DEFAULT '',
    branch        TEXT    NOT NULL DEFAULT '',
    event         TEXT    NOT NULL DEFAULT '',
    status        TEXT    NOT NULL DEFAULT '',
    conclusion    TEXT    NOT NULL DEFAULT '',
    created_at    TIMESTAMPTZ NOT NULL,
    html_url      TEXT    NOT NULL DEFAULT '',
    updated_at    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (repository_id, run_id, attempt)
);
CREATE INDEX workflow_runs_history ON workflow_runs (repository_id, created_at DESC, run_id DESC, attempt DESC);
CREATE INDEX workflow_runs_workflow ON workflow_runs (repository_id, workflow_id, created_at DESC);
CREATE INDEX workflow_runs_recent ON workflow_runs (created_at DESC, run_id DESC, attempt DESC);

CREATE TABLE workflow_jobs (
    id            BIGINT  PRIMARY KEY,
    repository_id BIGINT  NOT NULL,
    run_id        BIGINT  NOT NULL,
    attempt       BIGINT  NOT NULL,
    name          TEXT    NOT NULL,
    status        TEXT    NOT NULL DEFAULT '',
    conclusion    TEXT    NOT NULL DEFAULT '',
    started_at    TIMESTAMPTZ,
    completed_at  TIMESTAMPTZ,
    html_url      TEXT    NOT NULL DEFAULT '',
    FOREIGN KEY (repository_id, run_id, attempt)
        REFERENCES workflow_runs (repository_id, run_id, attempt) ON DELETE CASCADE
);
CREATE INDEX workflow_jobs_run ON workflow_jobs (repository_id, run_id, attempt);

CREATE TABLE job_steps (
    job_id       BIGINT  NOT NULL REFERENCES workflow_jobs (id) ON DELETE CASCADE,
    number       BIGINT  NOT NULL,
    name         TEXT    NOT NULL,
    status       TEXT    NOT NULL DEFAULT '',
    conclusion   TEXT    NOT NULL DEFAULT '',
    started_at   TIMESTAMPTZ,
    completed_at TIMESTAMPTZ,
    PRIMARY KEY (job_id, number)
);

CREATE TABLE failure_classes (
    repository_id BIGINT  NOT NULL REFERENCES repositories (id),
    id            TEXT    NOT NULL,
    workflow_id   BIGINT  NOT NULL DEFAULT 0,
    workflow_path TEXT    NOT NULL DEFAULT '',
    step          TEXT    NOT NULL DEFAULT '',
    signature     TEXT    NOT NULL DEFAULT '',
    first_seen    TIMESTAMPTZ NOT NULL,
    last_seen     TIMESTAMPTZ NOT NULL,
    count         BIGINT  NOT NULL DEFAULT 0,
    pattern       TEXT    NOT NULL DEFAULT '',
    verdict       TEXT    NOT NULL DEFAULT '',
    muted         BOOLEAN NOT NULL DEFAULT false,
    mute_reason   TEXT    NOT NULL DEFAULT '',
    updated_at    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (repository_id, id)
);
CREATE INDEX failure_classes_recent ON failure_classes (repository_id, last_seen DESC);

CREATE TABLE failure_occurrences (
    repository_id BIGINT  NOT NULL,
    run_id        BIGINT  NOT NULL,
    attempt       BIGINT  NOT NULL,
    job_id        BIGINT  NOT NULL,
    job_name      TEXT    NOT NULL DEFAULT '',
    step_number   BIGINT  NOT NULL,
    step_name     TEXT    NOT NULL DEFAULT '',
    signature     TEXT    NOT NULL DEFAULT '',
    signature_id  TEXT    NOT NULL DEFAULT '',
    cause_lines   JSONB   NOT NULL DEFAULT '[]',
    exit_code     BIGINT ,
    unknown       BOOLEAN NOT NULL DEFAULT false,
    class_id      TEXT    NOT NULL DEFAULT '',
    occurred_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (repository_id, run_id, attempt, job_id, step_number),
    FOREIGN KEY (repository_id, run_id, attempt)
        REFERENCES workflow_runs (repository_id, run_id, attempt) ON DELETE CASCADE
);
CREATE INDEX failure_occurrences_class ON failure_occurrences (repository_id, class_id, occurred_at DESC);
CREATE INDEX failure_occurrences_recent ON failure_occurrences (repository_id, occurred_at DESC);

CREATE TABLE diagnoses (
    id            BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    repository_id BIGINT  NOT NULL,
    run_id        BIGINT  NOT NULL,
    attempt       BIGINT  NOT NULL,
    document      JSONB   NOT NULL,
    verdict       TEXT    NOT NULL DEFAULT '',
    class_id      TEXT    NOT NULL DEFAULT '',
    created_at    TIMESTAMPTZ NOT NULL,
    stale         BOOLEAN NOT NULL DEFAULT false,
    UNIQUE (repository_id, run_id, attempt),
    FOREIGN KEY (repository_id, run_id, attempt)
        REFERENCES workflow_runs (repository_id, run_id, attempt) ON DELETE CASCADE
);
CREATE INDEX diagnoses_class ON diagnoses (repository_id, class_id);

CREATE TABLE published_comments (
    repository_id BIGINT  NOT NULL REFERENCES repositories (id),
    number        BIGINT  NOT NULL,
    kind          TEXT    NOT NULL,
    comment_id    BIGINT  NOT NULL,
    diagnosis_id  BIGINT  REFERENCES diagnoses (id) ON DELETE SET NULL,
    created_at    TIMESTAMPTZ NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (repository_id, number, kind)
);

CREATE TABLE fix_pull_requests (
    repository_id BIGINT  NOT NULL,
    class_id      TEXT    NOT NULL,
    number        BIGINT  NOT NULL,
    branch        TEXT    NOT NULL,
    state         TEXT    NOT NULL CHECK (state IN ('open', 'closed', 'merged')),
    head_sha      TEXT    NOT NULL DEFAULT '',
    created_at    TIMESTAMPTZ NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL,
    closed_at     TIMESTAMPTZ,
    PRIMARY KEY (repository_id, class_id),
    FOREIGN KEY (repository_id, class_id) REFERENCES failure_classes (repository_id, id)
);
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

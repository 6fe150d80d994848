-- Dashboard sign-ins the server knows of (PostgreSQL). The session cookie
-- is signed and encrypted, but signing out used to only clear it in the
-- browser: a copy kept working until it expired. A session is valid only
-- while its row exists; signing out deletes the row, for every replica at
-- once. id is the SHA-256 of the cookie's random session id, never the id.

-- +goose Up
CREATE TABLE dashboard_sessions (
    id         BYTEA       PRIMARY KEY,
    user_id    BIGINT      NOT NULL,
    login      TEXT        NOT NULL DEFAULT '',
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX dashboard_sessions_expires ON dashboard_sessions (expires_at);

-- +goose Down
DROP TABLE dashboard_sessions;

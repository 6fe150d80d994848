-- Conversation features (SQLite): the commands people give Polylane in
-- comments, one row per (repository, comment, command), with what was done.

-- +goose Up
CREATE TABLE mentions (
    repository_id INTEGER NOT NULL,
    comment_id    INTEGER NOT NULL,
    command       TEXT    NOT NULL,
    number        INTEGER NOT NULL DEFAULT 0,
    author        TEXT    NOT NULL DEFAULT '',
    state         TEXT    NOT NULL CHECK (state IN ('acting', 'done')),
    reply_id      INTEGER NOT NULL DEFAULT 0,
    outcome       TEXT    NOT NULL DEFAULT '',
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    PRIMARY KEY (repository_id, comment_id, command)
) STRICT;

-- +goose Down
DROP TABLE mentions;

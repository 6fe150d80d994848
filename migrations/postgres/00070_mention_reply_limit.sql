-- Reply limit (PostgreSQL): a command's record says whether its author had
-- no write access when Polylane answered, so that the replies to such an
-- author in a repository can be counted over the last hour.

-- +goose Up
ALTER TABLE mentions ADD COLUMN unprivileged BOOLEAN NOT NULL DEFAULT false;
CREATE INDEX mentions_author_updated ON mentions (repository_id, author, updated_at);

-- +goose Down
DROP INDEX mentions_author_updated;
ALTER TABLE mentions DROP COLUMN unprivileged;

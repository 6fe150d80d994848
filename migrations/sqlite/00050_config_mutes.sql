-- Classes muted in a repository's .github/polylane.yml (SQLite), kept apart
-- from those muted with "@polylane mute": the worker sets them from the
-- configuration in effect each time it publishes a diagnosis of the
-- repository, and clears those the file no longer names, so the dashboard
-- shows what the publisher honours.

-- +goose Up
ALTER TABLE failure_classes ADD COLUMN muted_in_config INTEGER NOT NULL DEFAULT 0 CHECK (muted_in_config IN (0, 1));
ALTER TABLE failure_classes ADD COLUMN config_mute_reason TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE failure_classes DROP COLUMN config_mute_reason;
ALTER TABLE failure_classes DROP COLUMN muted_in_config;

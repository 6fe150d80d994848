-- Deliveries Polylane could not finish are listed on their repository's
-- dashboard page, newest first: a partial index keeps that read small.

-- +goose Up
CREATE INDEX webhook_deliveries_failed ON webhook_deliveries (repository_id, updated_at) WHERE state = 'failed';

-- +goose Down
DROP INDEX webhook_deliveries_failed;

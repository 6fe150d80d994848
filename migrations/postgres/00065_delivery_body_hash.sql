-- Webhook deliveries are known by their signed body as well as by their
-- GUID (PostgreSQL): X-GitHub-Delivery is not signed, so a captured delivery
-- resent under a new GUID must be found by its body. body_hash holds the
-- body's verified HMAC-SHA256; deliveries recorded before this migration
-- have none, and the partial index leaves them out.

-- +goose Up
ALTER TABLE webhook_deliveries ADD COLUMN body_hash BYTEA;
CREATE UNIQUE INDEX webhook_deliveries_body_hash ON webhook_deliveries (body_hash) WHERE body_hash IS NOT NULL;

-- +goose Down
DROP INDEX webhook_deliveries_body_hash;
ALTER TABLE webhook_deliveries DROP COLUMN body_hash;

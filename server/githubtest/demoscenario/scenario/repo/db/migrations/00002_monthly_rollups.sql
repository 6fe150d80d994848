-- +goose Up
CREATE TABLE monthly_rollups (
    customer_id text   NOT NULL,
    meter       text   NOT NULL,
    month       date   NOT NULL,
    quantity    bigint NOT NULL,
    PRIMARY KEY (customer_id, meter, month)
);
ALTER TABLE usage_events ADD COLUMN customer_tz text NOT NULL DEFAULT 'UTC';

-- +goose Down
ALTER TABLE usage_events DROP COLUMN customer_tz;
DROP TABLE monthly_rollups;

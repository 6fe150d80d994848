-- +goose Up
CREATE TABLE usage_events (
    id          bigserial PRIMARY KEY,
    customer_id text        NOT NULL,
    meter       text        NOT NULL,
    quantity    bigint      NOT NULL CHECK (quantity >= 0),
    occurred_at timestamptz NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(),
    idempotency_key text    NOT NULL UNIQUE
);
CREATE INDEX usage_events_customer_meter ON usage_events (customer_id, meter, occurred_at);

-- +goose Down
DROP TABLE usage_events;

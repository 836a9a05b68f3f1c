-- Orders, their lines and idempotency keys. order-service owns this schema (Flyway); the outbox table comes from the
-- outbox library's migration (db/outbox/V1_1__outbox.sql), which outbox-relay reads and updates.

CREATE TABLE orders (
    id          uuid        PRIMARY KEY,
    customer_id text        NOT NULL,
    currency    char(3)     NOT NULL,
    channel     text,
    status      text        NOT NULL CHECK (status IN ('CREATED', 'PAID', 'SHIPPED', 'CANCELLED')),
    total       numeric     NOT NULL CHECK (total >= 0),
    -- The aggregate version: 1 when created, +1 per state change; each version has exactly one outbox row.
    version     bigint      NOT NULL CHECK (version >= 1),
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
);

CREATE INDEX orders_status ON orders (status);

CREATE TABLE order_lines (
    order_id   uuid    NOT NULL REFERENCES orders (id),
    line_no    integer NOT NULL CHECK (line_no >= 1),
    sku        text    NOT NULL,
    quantity   integer NOT NULL CHECK (quantity >= 1),
    unit_price numeric NOT NULL CHECK (unit_price >= 0),
    PRIMARY KEY (order_id, line_no)
);

-- A POST /orders retried with the same Idempotency-Key returns the order it created. request_hash is a digest of
-- the canonical request body, so the same key with another body can be told apart (422).
CREATE TABLE idempotency_keys (
    idempotency_key text        PRIMARY KEY,
    request_hash    text        NOT NULL,
    order_id        uuid        NOT NULL REFERENCES orders (id),
    created_at      timestamptz NOT NULL
);

-- inventory-service's own tables. The outbox (db/outbox, 1.1) and the processed-events table (db/consumer, 1.2) are
-- the shared libraries' migrations, applied by the same Flyway.

-- Stock per SKU. available = on_hand - reserved; the checks make an oversell impossible whatever the code does.
CREATE TABLE stock (
    sku        text        PRIMARY KEY,
    on_hand    integer     NOT NULL CHECK (on_hand >= 0),
    reserved   integer     NOT NULL DEFAULT 0 CHECK (reserved >= 0),
    updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    CHECK (reserved <= on_hand)
);

-- What inventory knows of each order, whatever order its events arrived in (docs/consumers.md, "Order per order"):
--   RESERVED   every line held;             REJECTED  nothing held (reason, short_skus);
--   RELEASED   cancelled after reserving;   DEDUCTED  shipped: the held units left the warehouse;
--   CANCELLED_FIRST / SHIPPED_FIRST  the cancellation or shipment arrived before the order's OrderCreated.
CREATE TABLE reservations (
    order_id   text        PRIMARY KEY,
    status     text        NOT NULL CHECK (status IN ('RESERVED', 'REJECTED', 'RELEASED', 'DEDUCTED',
                                                      'CANCELLED_FIRST', 'SHIPPED_FIRST')),
    reason     text,
    short_skus text[]      NOT NULL DEFAULT '{}',
    updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE TABLE reservation_lines (
    order_id text    NOT NULL REFERENCES reservations (order_id),
    sku      text    NOT NULL REFERENCES stock (sku),
    quantity integer NOT NULL CHECK (quantity > 0),
    PRIMARY KEY (order_id, sku)
);

-- A starting assortment, so that the platform takes orders out of the box: sku-1 .. sku-1000, 1,000,000 units each.
-- PUT /inventory/{sku} sets what is on hand.
INSERT INTO stock (sku, on_hand) SELECT 'sku-' || n, 1000000 FROM generate_series(1, 1000) AS n;

-- The saga (docs/saga.md): an order is CREATED until inventory's answer reaches it, then CONFIRMED (its stock is
-- reserved; it may be paid) or REJECTED (final), with inventory's reason and the SKUs it found unknown or short.
ALTER TABLE orders DROP CONSTRAINT orders_status_check;
ALTER TABLE orders ADD CONSTRAINT orders_status_check
    CHECK (status IN ('CREATED', 'CONFIRMED', 'REJECTED', 'PAID', 'SHIPPED', 'CANCELLED'));

ALTER TABLE orders
    ADD COLUMN rejection_reason text,
    ADD COLUMN short_skus       text[];

-- Orders still waiting for inventory's answer, oldest first: what the awaiting-inventory gauges count at each scrape.
CREATE INDEX orders_awaiting_inventory ON orders (created_at) WHERE status = 'CREATED';

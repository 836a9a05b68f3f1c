-- What the transitions' request bodies carry, kept on the order so that GET /orders/{id} can show it (the events
-- carry it too). All optional: null until the transition that sets it. The outbox table is unchanged.

ALTER TABLE orders
    ADD COLUMN payment_reference   text,
    ADD COLUMN carrier             text,
    ADD COLUMN tracking_number     text,
    ADD COLUMN cancellation_reason text;

-- The transactional outbox (the outbox library's schema). A service's Flyway applies it with its own migrations
-- (quarkus.flyway.locations=db/migration,db/outbox); as version 1.1 it runs right after a service's V1, and it needs
-- nothing of any service's tables. The outbox protocol (who writes what, in which order, and why the relay can
-- publish without reordering an aggregate's events) is in docs/outbox.md.

CREATE TABLE outbox (
    -- Insertion order within a transaction. Not commit order: the relay orders by (tx_id, id), see docs/outbox.md.
    id                bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- The writing transaction's id. Writers take the order's advisory lock before their first write, so two
    -- transactions that change the same order get tx_ids in the order they changed it.
    tx_id             xid8        NOT NULL DEFAULT pg_current_xact_id(),
    event_id          uuid        NOT NULL UNIQUE,
    aggregate_id      text        NOT NULL,
    aggregate_version bigint      NOT NULL,
    event_type        text        NOT NULL,
    event_version     text        NOT NULL,
    -- The event envelope as JSON text (event-contracts' EventCodec), byte for byte what the relay publishes.
    payload           text        NOT NULL,
    traceparent       text,
    occurred_at       timestamptz NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
    published_at      timestamptz,
    quarantined_at    timestamptz,
    quarantine_reason text,
    UNIQUE (aggregate_id, aggregate_version),
    CHECK (published_at IS NULL OR quarantined_at IS NULL)
);

-- The relay's work queue: unpublished, not quarantined, in publishing order.
CREATE INDEX outbox_pending ON outbox (tx_id, id) WHERE published_at IS NULL AND quarantined_at IS NULL;
-- Retention: published rows are deleted once older than the relay's retention.
CREATE INDEX outbox_published ON outbox (published_at) WHERE published_at IS NOT NULL;
-- Quarantined rows, for the relay's metrics and for holding back the later events of their orders.
CREATE INDEX outbox_quarantined ON outbox (aggregate_id) WHERE quarantined_at IS NOT NULL;

-- Wakes a listening relay when a transaction that wrote outbox rows commits (NOTIFY is delivered on commit only,
-- and one per transaction however many rows it wrote). The relay also polls, so a lost wake-up only costs latency.
CREATE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('outbox', '');
    RETURN NULL;
END
$$;

CREATE TRIGGER outbox_notify AFTER INSERT ON outbox FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify();

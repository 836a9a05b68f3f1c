-- The processed-events table (the event-consumer library's schema). A consuming service's Flyway applies it with its
-- own migrations (quarkus.flyway.locations=db/migration,db/consumer); as version 1.2 it runs after a service's V1 and
-- the outbox's 1.1, and needs nothing of them. docs/consumers.md has the protocol.

-- One row per event whose effect this service has committed: written in the same transaction as the effect, so a
-- redelivered event (a retry, a replay, a crash before the offset commit) finds its id here and is skipped.
CREATE TABLE processed_events (
    event_id     uuid        PRIMARY KEY,
    event_type   text        NOT NULL,
    processed_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

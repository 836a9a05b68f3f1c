-- analytics-service's own tables. The processed-events table (db/consumer, 1.2) is the consumer library's.

-- Per-minute event-time windows: the minute is the event's occurredAt truncated to the minute (UTC). A window is never
-- closed: an event that arrives late (after a retry, a replay, a slow producer) adds to its own minute whenever it
-- arrives, and the processed-events claim makes every event count once.
CREATE TABLE minute_events (
    minute     timestamptz NOT NULL,
    event_type text        NOT NULL,
    events     bigint      NOT NULL,
    PRIMARY KEY (minute, event_type)
);

-- Revenue is what OrderPaid says was paid, per currency, in the minute of the payment.
CREATE TABLE minute_revenue (
    minute   timestamptz    NOT NULL,
    currency text           NOT NULL,
    amount   numeric(30, 4) NOT NULL,
    PRIMARY KEY (minute, currency)
);

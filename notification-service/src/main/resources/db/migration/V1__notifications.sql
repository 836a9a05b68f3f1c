-- notification-service's own tables. The processed-events table (db/consumer, 1.2) is the consumer library's.

-- Who placed each order, from its OrderCreated: the recipient of its later mails.
CREATE TABLE order_customers (
    order_id    text        PRIMARY KEY,
    customer_id text        NOT NULL
);

-- One mail per order event, written in the batch's transaction (so once per event id) and sent afterwards by the
-- mail sender: PENDING until the SMTP server accepted it, then SENT. A mail whose order's customer is not known yet
-- (its OrderCreated waits in a retry topic) waits too.
CREATE TABLE notifications (
    event_id   uuid        PRIMARY KEY,
    order_id   text        NOT NULL,
    event_type text        NOT NULL,
    subject    text        NOT NULL,
    body       text        NOT NULL,
    status     text        NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'SENT')),
    recipient  text,
    attempts   integer     NOT NULL DEFAULT 0,
    last_error text,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    sent_at    timestamptz
);

CREATE INDEX notifications_pending ON notifications (created_at) WHERE status = 'PENDING';
CREATE INDEX notifications_by_order ON notifications (order_id);

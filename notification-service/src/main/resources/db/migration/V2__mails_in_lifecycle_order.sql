-- An order's mails go out in the order of its lifecycle, not in the order its events arrived: a retry can take an
-- OrderCreated out of its order's sequence, and its confirmation must still reach the customer before the shipment or
-- the cancellation (NotificationLedger, MailSender). lifecycle_step is LifecycleStep's number of the mail's event:
-- 1 OrderCreated, 2 OrderPaid (which sends no mail today), 3 OrderShipped, 4 OrderCancelled. Numbers are stored, so
-- they are never reassigned.
ALTER TABLE notifications ADD COLUMN lifecycle_step smallint;

UPDATE notifications SET lifecycle_step = CASE event_type
    WHEN 'OrderCreated' THEN 1
    WHEN 'OrderPaid' THEN 2
    WHEN 'OrderShipped' THEN 3
    WHEN 'OrderCancelled' THEN 4
END;

ALTER TABLE notifications ALTER COLUMN lifecycle_step SET NOT NULL;

-- From now on the sender reads a mail's address from order_customers when it sends it, and recipient records the
-- address the SMTP server accepted it for (NULL while pending). Rows written before keep the address they were given;
-- the sender overwrites it with the same address when it sends them.

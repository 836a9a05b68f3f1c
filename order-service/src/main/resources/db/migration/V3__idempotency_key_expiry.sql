-- Idempotency keys expire (order-service.idempotency.retention): the purge deletes the oldest rows by created_at.
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);

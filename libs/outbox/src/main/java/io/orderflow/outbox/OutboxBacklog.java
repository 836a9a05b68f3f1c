package io.orderflow.outbox;

import java.time.Duration;

/** The outbox's state for metrics: rows waiting, the age of the oldest, and rows set aside as unpublishable. */
public record OutboxBacklog(long pendingRows, Duration oldestPendingAge, long quarantinedRows) {

    public static final OutboxBacklog EMPTY = new OutboxBacklog(0, Duration.ZERO, 0);
}

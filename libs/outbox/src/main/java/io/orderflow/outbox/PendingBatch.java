package io.orderflow.outbox;

import java.util.List;

/**
 * What one read of the outbox found: rows that may be published now, in publishing order, and whether committed
 * rows exist behind the horizon (written by transactions that are not yet older than every running one) that a
 * later read will return.
 */
public record PendingBatch(List<OutboxRow> ready, boolean heldBehindHorizon) {

    public PendingBatch {
        ready = List.copyOf(ready);
    }

    public boolean isEmpty() {
        return ready.isEmpty();
    }
}

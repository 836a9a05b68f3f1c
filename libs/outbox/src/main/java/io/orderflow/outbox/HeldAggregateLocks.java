package io.orderflow.outbox;

import java.util.Objects;
import java.util.Set;

/**
 * Proof that a transaction holds the advisory locks of some aggregates: {@link AggregateLocks#acquire} makes one, and
 * {@link OutboxInsert#bind} demands one that covers the row's aggregate, from the same transaction.
 *
 * @param transactionKey the transaction the locks were taken in (they are released when it ends): a JTA transaction
 *     key, or the {@link java.sql.Connection} of a writer that manages its own JDBC transaction
 */
public record HeldAggregateLocks(Set<String> aggregateIds, Object transactionKey) {
    public HeldAggregateLocks {
        aggregateIds = Set.copyOf(aggregateIds);
        Objects.requireNonNull(transactionKey, "transactionKey");
    }

    public boolean covers(String aggregateId) {
        return aggregateIds.contains(aggregateId);
    }
}

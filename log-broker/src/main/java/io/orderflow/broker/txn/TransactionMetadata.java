package io.orderflow.broker.txn;

import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;

/**
 * One transactional id's state as the transaction log records it: the producer id and epoch it holds, its
 * transaction timeout, where its current transaction stands and which partitions that transaction wrote to (the
 * group offsets it committed count as partition 0 of {@code __consumer_offsets}). Immutable: each change writes a new
 * record to the log before it takes effect.
 *
 * @param txnStartMs when the current transaction began (its first partition was added); -1 when none has
 * @param lastUpdateMs when this record was made
 */
public record TransactionMetadata(
        String transactionalId,
        long producerId,
        short producerEpoch,
        int timeoutMs,
        TransactionState state,
        Set<TopicPartition> partitions,
        long txnStartMs,
        long lastUpdateMs) {

    public TransactionMetadata {
        TreeSet<TopicPartition> sorted = new TreeSet<>(
                java.util.Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
        sorted.addAll(partitions);
        partitions = java.util.Collections.unmodifiableSet(sorted);
    }

    TransactionMetadata with(TransactionState newState, long nowMs) {
        return new TransactionMetadata(
                transactionalId, producerId, producerEpoch, timeoutMs, newState, partitions, txnStartMs, nowMs);
    }

    TransactionMetadata withPartitions(Set<TopicPartition> added, long nowMs) {
        Set<TopicPartition> all = new java.util.HashSet<>(partitions);
        all.addAll(added);
        long start = state == TransactionState.ONGOING ? txnStartMs : nowMs;
        return new TransactionMetadata(
                transactionalId, producerId, producerEpoch, timeoutMs, TransactionState.ONGOING, all, start, nowMs);
    }

    /** The metadata once its transaction is complete: no partitions. */
    TransactionMetadata completed(TransactionState completeState, long nowMs) {
        return new TransactionMetadata(
                transactionalId, producerId, producerEpoch, timeoutMs, completeState, Set.of(), -1, nowMs);
    }

    TransactionMetadata withProducer(long newProducerId, short newEpoch, int newTimeoutMs, long nowMs) {
        return new TransactionMetadata(
                transactionalId, newProducerId, newEpoch, newTimeoutMs, state, partitions, txnStartMs, nowMs);
    }
}

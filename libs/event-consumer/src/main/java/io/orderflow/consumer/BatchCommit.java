package io.orderflow.consumer;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * What a service does after a batch's effects are committed to its database and before the batch counts as done: for
 * inventory-service in {@code kafka-transactions} mode, one Kafka transaction that publishes what the batch decided and
 * commits the batch's offsets ({@code sendOffsetsToTransaction}). A service without such a bean keeps the channel's own
 * offset commits. Called on the channel's worker thread, one batch at a time per channel; the two channels of a
 * service may call at the same time, so an implementation serialises what must not overlap.
 */
public interface BatchCommit {

    /**
     * After a batch of the source topic was applied: {@code offsets} are the next offsets to read of every partition
     * the batch held, {@code group} the consumer's group metadata for fencing. Throwing stops the channel.
     */
    void sourceBatchApplied(Map<TopicPartition, OffsetAndMetadata> offsets, ConsumerGroupMetadata group)
            throws Exception;

    /** After a batch of the retry topics was applied; their offsets stay with the channel's own commits. */
    void retryBatchApplied() throws Exception;

    /** The next offsets to read after {@code records}: the last offset of each partition, plus one. */
    static Map<TopicPartition, OffsetAndMetadata> nextOffsets(Iterable<ConsumerRecord<String, byte[]>> records) {
        Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
        for (var record : records) {
            next.merge(
                    new TopicPartition(record.topic(), record.partition()),
                    new OffsetAndMetadata(record.offset() + 1),
                    (a, b) -> a.offset() >= b.offset() ? a : b);
        }
        return next;
    }
}

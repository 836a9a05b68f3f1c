package io.orderflow.broker.log;

import java.nio.ByteBuffer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The control batch that ends a producer's transaction in one partition: Kafka's format (a transactional control
 * batch of one record whose key holds the type, COMMIT or ABORT, and whose value holds the coordinator's epoch), so
 * every client reads it as it reads Apache Kafka's.
 */
public final class TransactionMarker {
    private TransactionMarker() {}

    /** The marker batch, at offset 0 until the log assigns its offset. */
    static ByteBuffer batch(long producerId, short epoch, boolean commit, int coordinatorEpoch, long timestamp) {
        return MemoryRecords.withEndTransactionMarker(
                        0L,
                        timestamp,
                        RecordBatch.NO_PARTITION_LEADER_EPOCH,
                        producerId,
                        epoch,
                        new EndTransactionMarker(
                                commit ? ControlRecordType.COMMIT : ControlRecordType.ABORT, coordinatorEpoch))
                .buffer();
    }

    /**
     * The type of the control batch {@code batch}: COMMIT, ABORT, or another control type (which ends no
     * transaction); UNKNOWN when its record cannot be read.
     */
    static ControlRecordType typeOf(ByteBuffer batch) {
        try {
            for (RecordBatch b :
                    MemoryRecords.readableRecords(batch.duplicate()).batches()) {
                for (Record r : b) {
                    return r.hasKey() ? ControlRecordType.parse(r.key()) : ControlRecordType.UNKNOWN;
                }
            }
        } catch (KafkaException | IllegalArgumentException e) {
            return ControlRecordType.UNKNOWN;
        }
        return ControlRecordType.UNKNOWN;
    }
}

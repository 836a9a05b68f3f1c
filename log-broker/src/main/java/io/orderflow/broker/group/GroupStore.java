package io.orderflow.broker.group;

import io.orderflow.broker.log.InvalidProducerEpochException;
import io.orderflow.broker.log.LogConfig;
import io.orderflow.broker.log.LogException;
import io.orderflow.broker.log.LogFiles;
import io.orderflow.broker.log.LogStorageException;
import io.orderflow.broker.log.PartitionLog;
import io.orderflow.broker.log.RecordBatchTooLargeException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's records in the internal topic {@code __consumer_offsets}: one partition, compacted, so the
 * log keeps the latest committed offset per (group, topic, partition) and the latest metadata per group, and
 * tombstones delete them. Encoding: {@link GroupRecordCodec}.
 *
 * <p><b>Writes.</b> The records of one coordinator operation go in one batch (one append, so all or none of
 * them survive a crash). {@link #append} only writes; {@link #awaitDurable} completes once the flush policy
 * is satisfied (by default: fsynced), and the coordinator answers no request before that.
 *
 * <p><b>Failures</b> are typed here, naming the groups, the partition and the offset: the file system failing
 * ({@link GroupStorageException}), a batch over {@code max.message.bytes} ({@link GroupRecordsTooLargeException}),
 * a write after {@link #close} ({@link GroupStoreClosedException}). The handlers' {@code ErrorTable} gives each its
 * code. The log refusing the coordinator's own batch for anything else (a corrupt batch, a record without a key)
 * is a bug in {@link GroupRecordCodec} and fails with an {@link IllegalStateException}, which the broker answers as
 * UNKNOWN_SERVER_ERROR and records as a fault; so does any other exception, which passes through untouched.
 *
 * <p><b>Start-up.</b> {@link #replay} reads the partition from its start to its end and hands every record,
 * oldest first, to the coordinator, which keeps the last value of each key: the same state whether or not the
 * log was compacted in between. A record this code cannot read is skipped with a warning rather than failing
 * the broker.
 *
 * <p>The {@link PartitionLog} belongs to whoever wires the broker: it ticks it, compacts it with a {@code
 * LogCleaner} and closes it. Thread-safety: appends are serialised by the coordinator's lock; the log itself
 * is thread-safe.
 */
public final class GroupStore {
    private static final Logger log = LoggerFactory.getLogger(GroupStore.class);

    /** The internal topic's name, as in Kafka; its one partition lives in {@code <data>/__consumer_offsets-0}. */
    public static final String TOPIC = "__consumer_offsets";
    /** Kafka's {@code offsets.topic.segment.bytes}: small segments, so the cleaner (sealed segments only) runs. */
    public static final int SEGMENT_BYTES = 100 * 1024 * 1024;

    private final PartitionLog partition;
    private final Clock clock;
    private boolean closed;

    GroupStore(PartitionLog partition, Clock clock) {
        this.partition = partition;
        this.clock = clock;
    }

    /**
     * Opens (recovering if needed) or creates the offsets topic's partition under {@code dataDir}: {@code
     * cleanup.policy=compact}, 100 MiB segments, the broker's other defaults (fsync before acknowledging).
     */
    public static PartitionLog openLog(Path dataDir, Clock clock, LogFiles files, Executor flusher) {
        LogConfig config = LogConfig.defaults()
                .with(Map.of(
                        LogConfig.CLEANUP_POLICY, "compact", LogConfig.SEGMENT_BYTES, Integer.toString(SEGMENT_BYTES)));
        String name = TOPIC + "-0";
        return PartitionLog.open(name, dataDir.resolve(name), config, clock, files, flusher);
    }

    PartitionLog partition() {
        return partition;
    }

    /**
     * Writes {@code records} as one batch.
     *
     * @return the log end offset after them, for {@link #awaitDurable}
     * @throws LogException when nothing was written: a {@link GroupStorageException}, {@link
     *     GroupRecordsTooLargeException} or {@link GroupStoreClosedException}; any other exception is a bug
     */
    long append(List<GroupRecord> records) {
        return append(records, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH);
    }

    /**
     * Writes the offsets a transactional producer committed through TxnOffsetCommit, as one transactional batch of
     * that producer: they count only once a COMMIT marker of the producer follows ({@link #appendMarker}).
     *
     * @throws io.orderflow.broker.log.InvalidProducerEpochException when the producer was fenced here
     */
    long appendTransactional(List<GroupRecord> records, long producerId, short producerEpoch) {
        return append(records, producerId, producerEpoch);
    }

    /** Writes the marker that ends the producer's transaction in the offsets topic; returns the log end after it. */
    long appendMarker(long producerId, short producerEpoch, boolean commit) {
        if (closed) {
            throw new GroupStoreClosedException(List.of(), partition.name());
        }
        long offset = partition.logEndOffset();
        try {
            return partition.appendMarker(producerId, producerEpoch, commit, 0) + 1;
        } catch (LogStorageException e) {
            throw GroupStorageException.writing(List.of(), partition.name(), offset, 1, e);
        }
    }

    private long append(List<GroupRecord> records, long producerId, short producerEpoch) {
        List<String> groupIds = groupIds(records);
        if (closed) {
            throw new GroupStoreClosedException(groupIds, partition.name());
        }
        long now = clock.millis();
        SimpleRecord[] simple = new SimpleRecord[records.size()];
        for (int i = 0; i < simple.length; i++) {
            GroupRecord r = records.get(i);
            simple[i] = new SimpleRecord(now, GroupRecordCodec.key(r), GroupRecordCodec.value(r));
        }
        boolean transactional = producerId != RecordBatch.NO_PRODUCER_ID;
        // Sequence 0: the codec refuses none (-1), and a coordinator's write is not sequence-checked
        // (appendAsCoordinator).
        ByteBuffer batch = transactional
                ? MemoryRecords.withTransactionalRecords(Compression.NONE, producerId, producerEpoch, 0, simple)
                        .buffer()
                : MemoryRecords.withRecords(Compression.NONE, simple).buffer();
        long offset = partition.logEndOffset(); // appends are serialised by the coordinator's lock
        try {
            return (transactional ? partition.appendAsCoordinator(batch) : partition.append(batch)).endOffset();
        } catch (LogStorageException e) {
            throw GroupStorageException.writing(groupIds, partition.name(), offset, records.size(), e);
        } catch (RecordBatchTooLargeException e) {
            throw new GroupRecordsTooLargeException(groupIds, partition.name(), records.size(), e);
        } catch (InvalidProducerEpochException e) {
            throw e;
        } catch (LogException e) {
            throw new IllegalStateException(
                    "The offsets log refused the coordinator's own batch of " + records.size()
                            + " record(s) of group(s) " + groupIds + " at offset " + offset + ": " + e.getMessage(),
                    e);
        }
    }

    /** Refuses every later {@link #append}; the coordinator calls it when it closes, before the log is closed. */
    void close() {
        closed = true;
    }

    private static List<String> groupIds(List<GroupRecord> records) {
        return records.stream().map(GroupRecord::groupId).distinct().toList();
    }

    CompletableFuture<Void> awaitDurable(long endOffset) {
        return partition.awaitDurable(endOffset);
    }

    /**
     * Completes when everything appended so far is durable: what a response to {@code groupIds} must wait for. A
     * failed fsync fails it with a {@link GroupStorageException}.
     */
    CompletableFuture<Void> awaitAllDurable(List<String> groupIds) {
        long endOffset = partition.logEndOffset();
        return partition.awaitDurable(endOffset).exceptionallyCompose(failure -> {
            Throwable cause =
                    failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
            return CompletableFuture.failedFuture(
                    cause instanceof LogStorageException storage
                            ? GroupStorageException.syncing(groupIds, partition.name(), endOffset, storage)
                            : cause);
        });
    }

    /** What {@link #replay} hands the coordinator, in log order. */
    interface ReplaySink {
        /**
         * A record; {@code producerId} is -1 unless it belongs to a producer's transaction; {@code writtenAt} is the end
         * offset of its batch, where in the log it was written.
         */
        void record(GroupRecord record, long producerId, long writtenAt);

        /** The end of a producer's transaction: its records count when {@code commit}, else are dropped. */
        void marker(long producerId, boolean commit);
    }

    /** Hands every record from the log start to the log end to {@code sink}, oldest first. */
    void replay(ReplaySink sink) {
        long start = partition.logStartOffset();
        long[] count = {0};
        partition.forEachBatch(batch -> {
            if (batch.isControlBatch()) {
                if (batch.hasProducerId()) {
                    for (Record record : batch) {
                        ControlRecordType type = ControlRecordType.parse(record.key());
                        if (type == ControlRecordType.COMMIT || type == ControlRecordType.ABORT) {
                            sink.marker(batch.producerId(), type == ControlRecordType.COMMIT);
                        }
                    }
                }
                return;
            }
            long producerId = batch.isTransactional() ? batch.producerId() : RecordBatch.NO_PRODUCER_ID;
            for (Record record : batch) {
                if (record.offset() < start || !record.hasKey()) {
                    continue;
                }
                try {
                    sink.record(GroupRecordCodec.decode(record.key(), record.value()), producerId, batch.nextOffset());
                    count[0]++;
                } catch (IllegalArgumentException e) {
                    log.atWarn()
                            .addKeyValue("topic", TOPIC)
                            .addKeyValue("offset", record.offset())
                            .addKeyValue("problem", e.getMessage())
                            .log("Skipping an unreadable group record");
                }
            }
        });
        log.atInfo()
                .addKeyValue("topic", TOPIC)
                .addKeyValue("records", count[0])
                .addKeyValue("endOffset", partition.logEndOffset())
                .log("Replayed the group records");
    }
}

package io.orderflow.broker.txn;

import io.orderflow.broker.log.LogConfig;
import io.orderflow.broker.log.LogFiles;
import io.orderflow.broker.log.PartitionLog;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transaction coordinator's records in the internal topic {@code __transaction_state}: one partition, compacted,
 * keyed by transactional id, so the log keeps each id's latest {@link TransactionMetadata}. Encoding:
 * {@link TransactionRecordCodec}.
 *
 * <p>Every state change is one record, appended before the change takes effect and fsynced (under the broker's
 * default flush policy) before anything depends on it: a transaction is committed once its PREPARE_COMMIT record is
 * durable, whatever happens to the markers after. {@link #replay} reads the partition from start to end and keeps the
 * last record of each id, the same state whether or not the log was compacted in between.
 *
 * <p>The {@link PartitionLog} belongs to whoever wires the broker: it ticks it, compacts it and closes it.
 */
public final class TransactionLog {
    private static final Logger log = LoggerFactory.getLogger(TransactionLog.class);

    /** The internal topic's name, as in Kafka; its one partition lives in {@code <data>/__transaction_state-0}. */
    public static final String TOPIC = "__transaction_state";

    private final PartitionLog partition;
    private final Clock clock;

    public TransactionLog(PartitionLog partition, Clock clock) {
        this.partition = partition;
        this.clock = clock;
    }

    /** Opens (recovering if needed) or creates the partition under {@code dataDir}: compacted, fsync before answering. */
    public static PartitionLog openLog(Path dataDir, Clock clock, LogFiles files, Executor flusher) {
        LogConfig config = LogConfig.defaults()
                .with(Map.of(
                        LogConfig.CLEANUP_POLICY,
                        "compact",
                        LogConfig.SEGMENT_BYTES,
                        Integer.toString(100 * 1024 * 1024)));
        String name = TOPIC + "-0";
        return PartitionLog.open(name, dataDir.resolve(name), config, clock, files, flusher);
    }

    /** Appends the record; the future completes once it is durable. */
    CompletableFuture<Void> write(TransactionMetadata metadata) {
        SimpleRecord record = new SimpleRecord(
                clock.millis(),
                TransactionRecordCodec.key(metadata.transactionalId()),
                TransactionRecordCodec.value(metadata));
        ByteBuffer batch = MemoryRecords.withRecords(Compression.NONE, record).buffer();
        long end = partition.append(batch).endOffset();
        return partition.awaitDurable(end);
    }

    /** Every transactional id's latest metadata, in the order first seen. */
    Map<String, TransactionMetadata> replay() {
        Map<String, TransactionMetadata> latest = new LinkedHashMap<>();
        long start = partition.logStartOffset();
        partition.forEachBatch(batch -> {
            for (Record record : batch) {
                if (record.offset() < start || !record.hasKey()) {
                    continue;
                }
                try {
                    String id = TransactionRecordCodec.decodeKey(record.key());
                    if (record.hasValue()) {
                        latest.put(id, TransactionRecordCodec.decodeValue(id, record.value()));
                    } else {
                        latest.remove(id);
                    }
                } catch (IllegalArgumentException e) {
                    log.atWarn()
                            .addKeyValue("topic", TOPIC)
                            .addKeyValue("offset", record.offset())
                            .addKeyValue("problem", e.getMessage())
                            .log("Skipping an unreadable transaction record");
                }
            }
        });
        log.atInfo()
                .addKeyValue("topic", TOPIC)
                .addKeyValue("transactionalIds", latest.size())
                .addKeyValue("endOffset", partition.logEndOffset())
                .log("Replayed the transaction log");
        return latest;
    }
}

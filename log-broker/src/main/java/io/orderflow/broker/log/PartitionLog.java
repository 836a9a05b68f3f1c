package io.orderflow.broker.log;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.CloseableIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log of one topic-partition: a directory of {@link LogSegment}s, the producer state of its idempotent
 * producers, and the offsets that bound it.
 *
 * <p><b>Layout.</b> {@code <dir>/<20-digit base offset>.log|.index|.timeindex} per segment,
 * {@code <offset>.snapshot} producer-state snapshots, {@code log-start-offset} (advanced by retention and
 * DeleteRecords), and {@code clean-shutdown}, present only between a clean {@link #close()} and the next open.
 *
 * <p><b>Offsets.</b> {@code logStartOffset <= highWatermark <= logEndOffset}. The high watermark is what
 * consumers may read: under a flush policy that syncs every append it is the end of what is on disk, so no
 * consumer ever sees a record that a crash could take back; under relaxed policies it is the log end.
 *
 * <p><b>Durability.</b> {@link #append} writes to the file; {@link #awaitDurable} completes when the policy
 * is satisfied (group commit, see {@link GroupCommit}). Segments are fsynced when rolled, before the next one
 * is created, so after any crash only the last segment needs validating (see {@link LogLoader}).
 *
 * <p><b>Thread-safety.</b> Appends, rolls, retention and segment swaps take the append lock; reads take no
 * lock and see a consistent prefix. Removed segments are renamed {@code .deleted} and closed only after
 * {@code file.delete.delay.ms}, so a read that raced with retention still has an open file.
 */
public final class PartitionLog implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(PartitionLog.class);
    private static final String DELETED_SUFFIX = ".deleted";
    /** Kafka's {@code producer.id.expiration.ms} default: a producer silent this long is forgotten. */
    static final long PRODUCER_ID_EXPIRATION_MS = 24L * 60 * 60 * 1000;
    /** How much {@link #forEachBatch} reads at a time. */
    private static final int REPLAY_READ_BYTES = 1024 * 1024;

    private final String name;
    /** {@link #name} split for log events: {@code orders-3} is topic {@code orders}, partition 3. */
    private final String topic;

    private final int partition;
    private final Path dir;
    private final LogFiles files;
    private final Clock clock;
    private final ReentrantLock lock = new ReentrantLock();
    private final ConcurrentSkipListMap<Long, LogSegment> segments = new ConcurrentSkipListMap<>();
    private final ProducerStateTable producers;
    private final GroupCommit groupCommit;
    private final HighWatermarkWaiters waiters;
    private final List<PendingDelete> pendingDeletes = new ArrayList<>();
    private final boolean recoveredCleanly;

    private volatile LogConfig config;
    private volatile long logStartOffset;
    private volatile long logEndOffset;
    /** The first offset of the oldest open transaction, -1 when none is open; see {@link #lastStableOffset()}. */
    private volatile long firstUnstableOffset;
    /** True once any segment holds an aborted transaction: until then a read_committed read skips the search. */
    private volatile boolean anyAborted;

    private final java.util.concurrent.atomic.AtomicLong flushCount = new java.util.concurrent.atomic.AtomicLong();
    private long unflushedMessages;
    private long lastFlushMs;
    private boolean closed;

    private record PendingDelete(LogSegment segment, long dueMs) {}

    private PartitionLog(String name, Path dir, LogConfig config, Clock clock, LogFiles files, CommitRounds rounds) {
        this.name = name;
        int dash = name.lastIndexOf('-');
        boolean numbered = dash > 0
                && dash < name.length() - 1
                && name.substring(dash + 1).chars().allMatch(Character::isDigit);
        this.topic = numbered ? name.substring(0, dash) : name;
        this.partition = numbered ? Integer.parseInt(name.substring(dash + 1)) : -1;
        this.dir = dir;
        this.config = config;
        this.clock = clock;
        this.files = files;
        this.producers = new ProducerStateTable(name);
        LogLoader.Loaded loaded = LogLoader.load(dir, files, config, producers);
        this.segments.putAll(loaded.segments());
        this.logStartOffset = loaded.logStartOffset();
        this.logEndOffset = segments.lastEntry().getValue().nextOffset();
        this.recoveredCleanly = loaded.wasClean();
        this.firstUnstableOffset = producers.firstUnstableOffset();
        this.anyAborted = segments.values().stream().anyMatch(s -> !s.txnIndex().isEmpty());
        this.lastFlushMs = clock.millis();
        this.waiters = new HighWatermarkWaiters(logEndOffset);
        this.groupCommit = new GroupCommit(
                this::flushActiveSegment, durable -> waiters.advanceTo(highWatermark()), rounds, logEndOffset);
    }

    /**
     * Opens (recovering if needed) or creates the log in {@code dir}.
     *
     * @param name the partition's name for messages, e.g. {@code orders-3}
     * @param flusher runs fsyncs for group commit; must not be the caller's thread pool of network threads
     */
    public static PartitionLog open(
            String name, Path dir, LogConfig config, Clock clock, LogFiles files, Executor flusher) {
        return new PartitionLog(name, dir, config, clock, files, new CommitRounds(flusher));
    }

    /** As {@link #open(String, Path, LogConfig, Clock, LogFiles, Executor)}, committing in {@code rounds}. */
    static PartitionLog open(
            String name, Path dir, LogConfig config, Clock clock, LogFiles files, CommitRounds rounds) {
        return new PartitionLog(name, dir, config, clock, files, rounds);
    }

    public String name() {
        return name;
    }

    /** The topic part of the name, for log events; the whole name if it does not end in a partition number. */
    String topic() {
        return topic;
    }

    /** The partition number in the name, for log events; -1 if there is none. */
    int partition() {
        return partition;
    }

    public Path dir() {
        return dir;
    }

    public LogConfig config() {
        return config;
    }

    public void updateConfig(LogConfig newConfig) {
        this.config = newConfig;
    }

    /** True when the last open found a clean-shutdown marker and skipped validation. */
    public boolean recoveredCleanly() {
        return recoveredCleanly;
    }

    /**
     * Checks and stores the batches in {@code records} (one or more v2 batches, as a producer sent them). The
     * buffer's base offset fields are overwritten with the offsets assigned. Not yet durable: see
     * {@link #awaitDurable}.
     *
     * <p>Every batch is checked before any is written, so a rejected append stores nothing: its structure and CRC
     * ({@link CorruptBatchException}), {@code max.message.bytes} ({@link RecordBatchTooLargeException}), no
     * transactional or control batches and a consistent record count ({@link InvalidRecordBatchException}), a
     * key on every record when the topic is compacted ({@link RecordWithoutKeyException}), then the idempotent
     * producer's epoch and sequence. This is the one place that validates what producers send; the Produce
     * handler adds only the request-level rules of Kafka's protocol.
     *
     * <p>Under a policy that syncs every append, the fsync starts at once, whether or not anyone waits for it
     * (acks=0/1 do not): nothing becomes visible to consumers before it is on disk.
     */
    public AppendResult append(ByteBuffer records) {
        return append(records, true, false);
    }

    /**
     * A coordinator's own write on behalf of producers (the group coordinator's transactional offsets): checked as
     * {@link #append(ByteBuffer)} checks, except that a batch's producer sequence is not (Kafka's coordinator writes
     * carry none); its epoch is, and a transactional batch opens the producer's transaction here.
     */
    public AppendResult appendAsCoordinator(ByteBuffer records) {
        return append(records, true, true);
    }

    /**
     * As {@link #append(ByteBuffer)}, but leaves starting the fsync to the caller, who appends the other partitions
     * of the same request and then passes them all to {@link #awaitDurable(Map)}: started here, the first
     * partition's fsync would make it readable a round before the others.
     */
    public AppendResult appendOfRequest(ByteBuffer records) {
        return append(records, false, false);
    }

    private AppendResult append(ByteBuffer records, boolean startSync, boolean coordinator) {
        ByteBuffer buf = records.slice();
        List<BatchHeader> headers = checkedHeaders(buf);
        lock.lock();
        try {
            ensureOpen();
            long next = logEndOffset;
            ProducerAppend producerAppend = coordinator ? producers.prepareCoordinatorWrite() : producers.prepare();
            List<BatchHeader> assigned = new ArrayList<>(headers.size());
            int position = 0;
            long recordCount = 0;
            for (BatchHeader h : headers) {
                BatchHeader withOffset = h.withBaseOffset(next);
                BatchMetadata duplicate = producerAppend.check(withOffset);
                if (duplicate != null) {
                    if (headers.size() > 1) {
                        // Kafka's clients send one batch per partition; a retry mixed with new batches would
                        // have the new ones acknowledged unwritten, so refuse the whole append.
                        throw new InvalidRecordBatchException(
                                name, "a retried batch may not share an append with other batches");
                    }
                    return new AppendResult(duplicate.firstOffset(), duplicate.lastOffset(), logStartOffset, true);
                }
                buf.putLong(position, next);
                assigned.add(withOffset);
                next = withOffset.nextOffset();
                recordCount += h.recordCount();
                position += h.sizeInBytes();
            }
            maybeRoll(buf.remaining(), next);
            segments.lastEntry().getValue().append(buf, assigned);
            producerAppend.commit();
            firstUnstableOffset = producers.firstUnstableOffset();
            long firstOffset = logEndOffset;
            advanceLogEnd(next, recordCount, startSync);
            return new AppendResult(firstOffset, next - 1, logStartOffset, false);
        } finally {
            lock.unlock();
        }
    }

    /** Publishes an append that ends at {@code next} and starts its fsync as the policy says. Caller holds the lock. */
    private void advanceLogEnd(long next, long recordCount, boolean startSync) {
        logEndOffset = next;
        unflushedMessages += recordCount;
        FlushPolicy policy = config.flushPolicy();
        if (!policy.syncsEveryAppend()) {
            waiters.advanceTo(next);
        }
        if (policy.syncsEveryAppend() ? startSync : policy.messages() <= unflushedMessages) {
            groupCommit.awaitDurable(next);
        }
    }

    /**
     * Writes the marker that ends producer {@code producerId}'s transaction here (COMMIT or ABORT), as the transaction
     * coordinator does for every partition of a transaction. An abort that closes an open transaction is recorded
     * in the active segment's {@link TransactionIndex}; either marker moves the last stable offset past the
     * transaction. A marker for a producer with nothing open is written all the same (a coordinator completing a
     * transaction again after a restart): consumers ignore it. Not yet durable: see {@link #awaitDurable}.
     *
     * @return the marker's offset
     * @throws InvalidProducerEpochException when {@code epoch} is older than the producer's epoch here
     */
    public long appendMarker(long producerId, short epoch, boolean commit, int coordinatorEpoch) {
        lock.lock();
        try {
            ensureOpen();
            long offset = logEndOffset;
            producers.checkMarker(producerId, epoch, offset);
            long now = clock.millis();
            ByteBuffer buf = TransactionMarker.batch(producerId, epoch, commit, coordinatorEpoch, now);
            buf.putLong(0, offset);
            BatchHeader header = BatchHeader.read(buf, 0);
            maybeRoll(buf.remaining(), header.nextOffset());
            LogSegment active = segments.lastEntry().getValue();
            long first = producers.openTransactionStart(producerId);
            boolean indexed = !commit && first >= 0;
            if (indexed) {
                // The entry is durable before the marker exists: no marker on disk is ever without its entry.
                active.txnIndex().append(new AbortedTxn(producerId, first, offset));
                anyAborted = true;
            }
            try {
                active.append(buf, List.of(header));
            } catch (RuntimeException e) {
                if (indexed) {
                    active.txnIndex().truncateFrom(offset);
                }
                throw e;
            }
            producers.replayMarker(producerId, epoch, now);
            firstUnstableOffset = producers.firstUnstableOffset();
            advanceLogEnd(header.nextOffset(), 1, true);
            return offset;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The end of what a {@code read_committed} consumer may read: the first offset of the oldest transaction still
     * open here, or the high watermark when none is (never below the log start).
     */
    public long lastStableOffset() {
        long hw = highWatermark();
        long unstable = firstUnstableOffset;
        return unstable < 0 ? hw : Math.max(logStartOffset, Math.min(unstable, hw));
    }

    /**
     * The aborted transactions a consumer reading from {@code from} up to {@code upTo} must know of: those whose
     * marker is at or after {@code from} and whose first record is before {@code upTo}, in marker order.
     */
    public List<AbortedTxn> abortedTransactions(long from, long upTo) {
        if (!anyAborted) {
            return List.of();
        }
        List<AbortedTxn> out = new ArrayList<>();
        Long startKey = segments.floorKey(from);
        for (LogSegment segment : (startKey == null ? segments : segments.tailMap(startKey, true)).values()) {
            out.addAll(segment.txnIndex().overlapping(from, upTo));
        }
        return out;
    }

    private List<BatchHeader> checkedHeaders(ByteBuffer buf) {
        List<BatchHeader> headers = new ArrayList<>();
        int position = 0;
        int limit = buf.remaining();
        while (position < limit) {
            String problem = BatchCheck.problem(buf, position, limit);
            if (problem != null) {
                throw new CorruptBatchException(null, position, problem + " (partition " + name + ")");
            }
            BatchHeader h = BatchHeader.read(buf, position);
            if (h.sizeInBytes() > config.maxMessageBytes()) {
                throw new RecordBatchTooLargeException(name, h.sizeInBytes(), config.maxMessageBytes());
            }
            if (h.isControl()) {
                throw new InvalidRecordBatchException(
                        name, "a control batch is written by the transaction coordinator, not by producers");
            }
            if (h.compressionId() > BatchHeader.MAX_COMPRESSION_ID) {
                // The CRC holds, so the client built it so; a consumer could not decompress it.
                throw new InvalidRecordBatchException(
                        name,
                        "compression type id " + h.compressionId() + " names no codec (0 to 4: none, gzip,"
                                + " snappy, lz4, zstd)");
            }
            if (h.recordCount() != h.lastOffsetDelta() + 1) {
                throw new InvalidRecordBatchException(
                        name,
                        "record count " + h.recordCount() + " does not match lastOffsetDelta " + h.lastOffsetDelta());
            }
            if (config.cleanupPolicy().compacts()) {
                requireKeys(buf.slice(position, h.sizeInBytes()), headers.size());
            }
            headers.add(h);
            position += h.sizeInBytes();
        }
        if (headers.isEmpty()) {
            throw new InvalidRecordBatchException(name, "the append holds no record batch");
        }
        return headers;
    }

    /**
     * A compacted topic keeps the latest record of each key, so every record of an append to one needs a key
     * (Kafka's {@code LogValidator} rule). Reads only the records' headers: keys and values are skipped, but a
     * compressed batch is decompressed, which is why this runs only after the batch's CRC was checked.
     */
    private void requireKeys(ByteBuffer batch, int batchIndex) {
        for (MutableRecordBatch b : MemoryRecords.readableRecords(batch).batches()) {
            try (CloseableIterator<Record> records = b.skipKeyValueIterator(BufferSupplier.NO_CACHING)) {
                for (int index = 0; records.hasNext(); index++) {
                    if (!records.next().hasKey()) {
                        throw new RecordWithoutKeyException(name, batchIndex, index);
                    }
                }
            } catch (KafkaException e) {
                throw new InvalidRecordBatchException(name, "its records cannot be read: " + e.getMessage());
            }
        }
    }

    /** Completes when the records below {@code endOffset} are as durable as the flush policy asks. */
    public CompletableFuture<Void> awaitDurable(long endOffset) {
        if (!config.flushPolicy().syncsEveryAppend()) {
            return CompletableFuture.completedFuture(null);
        }
        return groupCommit.awaitDurable(endOffset);
    }

    /**
     * As {@link #awaitDurable(long)} for each log up to its end offset, asked together: partitions that share commit
     * rounds (those of one {@link LogDirectory}) are fsynced in the same round and become readable at the same moment,
     * so a consumer of all of them receives one request's records in one fetch. Call it once every append of the
     * request is done ({@link #appendOfRequest}), whatever the request's acks: under the default policy it is what
     * starts the fsyncs.
     *
     * @return each log's future, in the map's order
     */
    public static Map<PartitionLog, CompletableFuture<Void>> awaitDurable(Map<PartitionLog, Long> endOffsets) {
        Map<PartitionLog, CompletableFuture<Void>> futures = new LinkedHashMap<>();
        Map<CommitRounds, List<GroupCommit>> toSchedule = new LinkedHashMap<>();
        endOffsets.forEach((log, endOffset) -> {
            CompletableFuture<Void> future = log.config.flushPolicy().syncsEveryAppend()
                    ? log.groupCommit.enlist(endOffset)
                    : CompletableFuture.completedFuture(null);
            if (!future.isDone()) {
                toSchedule
                        .computeIfAbsent(log.groupCommit.rounds(), r -> new ArrayList<>())
                        .add(log.groupCommit);
            }
            futures.put(log, future);
        });
        toSchedule.forEach(CommitRounds::schedule);
        return futures;
    }

    private void maybeRoll(int incomingBytes, long nextOffsetAfterAppend) {
        LogSegment active = segments.lastEntry().getValue();
        long now = clock.millis();
        boolean full = (long) active.size() + incomingBytes > config.segmentBytes();
        boolean old = active.firstBatchTimestamp() >= 0 && now - active.firstBatchTimestamp() >= config.segmentMs();
        boolean offsetsExhausted = nextOffsetAfterAppend - active.baseOffset() > Integer.MAX_VALUE;
        if (active.size() > 0 && (full || old || offsetsExhausted)) {
            roll();
        }
    }

    /** Seals the active segment (fsynced) and starts a new one at the log end. Caller holds the lock. */
    private void roll() {
        LogSegment active = segments.lastEntry().getValue();
        active.flush();
        flushCount.incrementAndGet();
        groupCommit.flushed(logEndOffset);
        producers.writeSnapshot(files, dir, logEndOffset);
        LogSegment next = LogSegment.create(files, dir, logEndOffset, config.indexIntervalBytes(), "");
        syncDirectory();
        segments.put(next.baseOffset(), next);
        log.atDebug()
                .addKeyValue("topic", topic)
                .addKeyValue("partition", partition)
                .addKeyValue("offset", logEndOffset)
                .log("Rolled a new segment");
    }

    /** Rolls now if the active segment holds anything; for tests and tools. */
    public void forceRoll() {
        lock.lock();
        try {
            if (segments.lastEntry().getValue().size() > 0) {
                roll();
            }
        } finally {
            lock.unlock();
        }
    }

    /** fsyncs the active segment; returns the log end offset now durable. Runs on the flusher thread. */
    private long flushActiveSegment() {
        LogSegment active;
        long end;
        lock.lock();
        try {
            active = segments.lastEntry().getValue();
            end = logEndOffset;
            unflushedMessages = 0;
            lastFlushMs = clock.millis();
        } finally {
            lock.unlock();
        }
        active.flushData();
        flushCount.incrementAndGet();
        return end;
    }

    /** How many times the active segment was fsynced: each group commit, roll and explicit flush counts once. */
    public long flushCount() {
        return flushCount.get();
    }

    /** fsyncs everything appended so far. */
    public void flush() {
        groupCommit.flushed(flushActiveSegment());
    }

    /**
     * Whole batches from the one holding {@code offset}, about {@code maxBytes} (at least one batch), no
     * further than the high watermark (or the log end when {@code uptoLogEnd}).
     */
    public LogReadResult read(long offset, int maxBytes, boolean uptoLogEnd) {
        return read(offset, maxBytes, uptoLogEnd, false);
    }

    /**
     * As {@link #read(long, int, boolean)} for a {@code read_committed} consumer: no further than the last stable
     * offset, with the aborted transactions the batches returned may belong to.
     */
    public LogReadResult readCommitted(long offset, int maxBytes) {
        return read(offset, maxBytes, false, true);
    }

    private LogReadResult read(long offset, int maxBytes, boolean uptoLogEnd, boolean committed) {
        long start = logStartOffset;
        long end = logEndOffset;
        long hw = highWatermark();
        long lso = lastStableOffset();
        if (offset < start || offset > end) {
            throw new OffsetOutOfRangeException(name, offset, start, end);
        }
        long limit = uptoLogEnd ? end : committed ? lso : hw;
        FileRegion region = FileRegion.EMPTY;
        if (offset < limit) {
            Map.Entry<Long, LogSegment> entry = segments.floorEntry(offset);
            while (entry != null && region.isEmpty()) {
                region = entry.getValue().read(offset, maxBytes, limit);
                entry = segments.higherEntry(entry.getKey());
            }
        }
        List<AbortedTxn> aborted = committed && !region.isEmpty() ? abortedTransactions(offset, limit) : List.of();
        return new LogReadResult(region, hw, lso, start, end, aborted);
    }

    /**
     * Hands every batch from the log start to the log end to {@code action}, oldest first, each once, reading up to the
     * log end (not only the high watermark): how a coordinator replays its internal topic at start-up. The first batch
     * may hold records before the log start (after DeleteRecords); the caller skips those.
     *
     * @throws IllegalStateException when a read makes no progress (a damaged log the reads cannot get past)
     */
    public void forEachBatch(java.util.function.Consumer<org.apache.kafka.common.record.internal.RecordBatch> action) {
        long next = logStartOffset;
        long end = logEndOffset;
        while (next < end) {
            LogReadResult result = read(next, REPLAY_READ_BYTES, true);
            if (result.records().isEmpty()) {
                return;
            }
            long before = next;
            for (org.apache.kafka.common.record.internal.RecordBatch batch :
                    MemoryRecords.readableRecords(result.records().read()).batches()) {
                if (batch.nextOffset() > next) {
                    action.accept(batch);
                    next = batch.nextOffset();
                }
            }
            if (next == before) {
                throw new IllegalStateException("Reading " + name + " from its start made no progress at " + next);
            }
        }
    }

    public long logStartOffset() {
        return logStartOffset;
    }

    public long logEndOffset() {
        return logEndOffset;
    }

    /** The end of what consumers may read; see the class comment. */
    public long highWatermark() {
        return config.flushPolicy().syncsEveryAppend()
                ? Math.max(logStartOffset, Math.min(groupCommit.durableOffset(), logEndOffset))
                : logEndOffset;
    }

    /**
     * Completes when the high watermark passes {@code offset}, i.e. when a fetch at {@code offset} would
     * return data; for Kafka's long poll. Pair with {@link #forgetWait} when the fetch gives up.
     */
    public CompletableFuture<Void> awaitData(long offset) {
        return waiters.await(offset);
    }

    public void forgetWait(CompletableFuture<Void> wait) {
        waiters.forget(wait);
    }

    /** The first record with a timestamp at or after {@code timestamp}, or null when there is none. */
    public TimestampOffset offsetForTimestamp(long timestamp) {
        long start = logStartOffset;
        long hw = highWatermark();
        for (LogSegment segment : segments.values()) {
            if (segment.nextOffset() <= start) {
                continue;
            }
            TimestampOffset found = segment.firstAtOrAfter(timestamp, start);
            if (found != null) {
                return found.offset() < hw ? found : null;
            }
        }
        return null;
    }

    /** The largest record timestamp in the log, or -1 when it is empty. */
    public long maxTimestamp() {
        long max = -1;
        for (LogSegment s : segments.values()) {
            if (s.nextOffset() > logStartOffset) {
                max = Math.max(max, s.maxTimestamp());
            }
        }
        return max;
    }

    /** Bytes in all segments. */
    public long sizeInBytes() {
        long total = 0;
        for (LogSegment s : segments.values()) {
            total += s.size();
        }
        return total;
    }

    public int segmentCount() {
        return segments.size();
    }

    /** Every producer with state in this partition, by producer id. */
    public List<ProducerState> producerStates() {
        lock.lock();
        try {
            return producers.entries().stream()
                    .map(e -> new ProducerState(
                            e.producerId(), e.epoch(), e.lastSequence(), e.lastTimestamp(), e.txnFirstOffset()))
                    .toList();
        } finally {
            lock.unlock();
        }
    }

    /** Number of producers with state in this partition. */
    public int producerCount() {
        lock.lock();
        try {
            return producers.producerCount();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Applies {@code retention.ms} and {@code retention.bytes} (when the cleanup policy deletes): removes
     * whole segments from the oldest, never the active one, and advances the log start offset.
     *
     * @return the number of segments removed
     */
    public int deleteRetainedSegments() {
        lock.lock();
        try {
            if (!config.cleanupPolicy().deletes()) {
                return 0;
            }
            long now = clock.millis();
            int removed = 0;
            long total = sizeInBytes();
            while (segments.size() > 1) {
                LogSegment oldest = segments.firstEntry().getValue();
                boolean expired = config.retentionMs() >= 0 && oldest.maxTimestamp() < now - config.retentionMs();
                boolean oversize = config.retentionBytes() >= 0 && total - oldest.size() >= config.retentionBytes();
                if (!expired && !oversize) {
                    break;
                }
                total -= oldest.size();
                removeOldestSegment(now, expired ? "retention.ms" : "retention.bytes");
                removed++;
            }
            if (removed > 0) {
                setLogStartOffset(Math.max(logStartOffset, segments.firstKey()));
            }
            return removed;
        } finally {
            lock.unlock();
        }
    }

    /**
     * DeleteRecords: makes {@code offset} the new log start offset (never moving it backwards) and removes
     * segments that lie wholly below it.
     *
     * @return the log start offset afterwards
     */
    public long advanceLogStartOffset(long offset) {
        lock.lock();
        try {
            long hw = highWatermark();
            if (offset < 0 || offset > hw) {
                throw new OffsetOutOfRangeException(name, offset, logStartOffset, hw);
            }
            if (offset <= logStartOffset) {
                return logStartOffset;
            }
            setLogStartOffset(offset);
            long now = clock.millis();
            while (segments.size() > 1 && segments.higherKey(segments.firstKey()) <= offset) {
                removeOldestSegment(now, "log start offset");
            }
            return logStartOffset;
        } finally {
            lock.unlock();
        }
    }

    private void setLogStartOffset(long offset) {
        try {
            LogLoader.writeLogStartOffset(dir, files, offset);
        } catch (IOException e) {
            throw new LogStorageException("Cannot write the log start offset of " + name, e);
        }
        logStartOffset = offset;
        producers.deleteSnapshotsBelow(files, dir, offset);
    }

    private void removeOldestSegment(long now, String reason) {
        LogSegment oldest = segments.pollFirstEntry().getValue();
        oldest.changeSuffix(DELETED_SUFFIX);
        pendingDeletes.add(new PendingDelete(oldest, now + config.fileDeleteDelayMs()));
        log.atInfo()
                .addKeyValue("topic", topic)
                .addKeyValue("partition", partition)
                .addKeyValue("baseOffset", oldest.baseOffset())
                .addKeyValue("nextOffset", oldest.nextOffset())
                .addKeyValue("bytes", oldest.size())
                .addKeyValue("reason", reason)
                .log("Removed a segment");
    }

    /**
     * The sealed segments, oldest first, that lie wholly below the first open transaction: what the cleaner may
     * compact (whether an open transaction's records stay is not known until its marker).
     */
    List<LogSegment> sealedSegments() {
        List<LogSegment> sealed = new ArrayList<>(segments.values());
        sealed.removeLast();
        long unstable = firstUnstableOffset;
        if (unstable >= 0) {
            sealed.removeIf(s -> s.nextOffset() > unstable);
        }
        return sealed;
    }

    /** A new empty compaction output file for the segment at {@code baseOffset}. */
    LogSegment createCleanedSegment(long baseOffset) {
        return LogSegment.create(files, dir, baseOffset, config.indexIntervalBytes(), ".cleaned");
    }

    /**
     * Atomically replaces a sealed segment with its compacted copy (same base offset). Crash-safe: the
     * {@code .swap} rename is the commit point that {@link LogLoader} completes after a crash.
     */
    void swapIn(LogSegment cleaned) {
        cleaned.flush();
        lock.lock();
        try {
            LogSegment old = segments.get(cleaned.baseOffset());
            if (old == null || old == segments.lastEntry().getValue()) {
                cleaned.deleteFiles();
                return;
            }
            cleaned.changeSuffix(".swap");
            syncDirectory();
            old.changeSuffix(DELETED_SUFFIX);
            cleaned.changeSuffix("");
            syncDirectory();
            segments.put(cleaned.baseOffset(), cleaned);
            pendingDeletes.add(new PendingDelete(old, clock.millis() + config.fileDeleteDelayMs()));
        } finally {
            lock.unlock();
        }
    }

    /**
     * Periodic housekeeping, called by the broker's scheduler: time-based flushing ({@code flush.ms}),
     * closing segments whose delete delay has passed, and forgetting producers silent for longer than
     * {@code producer.id.expiration.ms}.
     */
    public void tick() {
        long now = clock.millis();
        List<LogSegment> due = new ArrayList<>();
        boolean flushDue;
        lock.lock();
        try {
            for (Iterator<PendingDelete> it = pendingDeletes.iterator(); it.hasNext(); ) {
                PendingDelete p = it.next();
                if (p.dueMs() <= now || closed) {
                    due.add(p.segment());
                    it.remove();
                }
            }
            flushDue = !closed && config.flushPolicy().flushDue(unflushedMessages, now - lastFlushMs);
            if (!closed) {
                producers.removeExpired(now, PRODUCER_ID_EXPIRATION_MS);
            }
        } finally {
            lock.unlock();
        }
        due.forEach(LogSegment::deleteFiles);
        if (flushDue) {
            flush();
        }
    }

    /** Flushes everything, snapshots producer state and leaves the clean-shutdown marker. Idempotent. */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            for (LogSegment s : segments.values()) {
                s.flush();
            }
            groupCommit.flushed(logEndOffset);
            producers.writeSnapshot(files, dir, logEndOffset);
            for (PendingDelete p : pendingDeletes) {
                p.segment().deleteFiles();
            }
            pendingDeletes.clear();
            segments.values().forEach(LogSegment::close);
            LogLoader.writeCleanShutdownMarker(dir, files);
            closed = true;
        } catch (IOException e) {
            throw new LogStorageException("Cannot close " + name + " cleanly", e);
        } finally {
            lock.unlock();
        }
    }

    /** Closes without flushing or marking, as a crash would leave it; for tests. */
    void closeUncleanly() {
        lock.lock();
        try {
            closed = true;
            segments.values().forEach(LogSegment::close);
        } finally {
            lock.unlock();
        }
    }

    /** Removes the partition's directory; the log must be closed. For topic deletion. */
    public void deleteDirectory() {
        if (!closed) {
            throw new IllegalStateException(name + " must be closed before its directory is deleted");
        }
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new LogStorageException("Cannot delete " + dir, e);
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException(name + " is closed");
        }
    }

    private void syncDirectory() {
        try {
            files.syncDirectory(dir);
        } catch (IOException e) {
            throw new LogStorageException("Cannot fsync directory " + dir, e);
        }
    }

    @Override
    public String toString() {
        return "PartitionLog(" + name + ", [" + logStartOffset + ", " + logEndOffset + "), " + segments.size()
                + " segments)";
    }
}

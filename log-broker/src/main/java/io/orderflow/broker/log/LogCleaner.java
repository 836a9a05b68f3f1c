package io.orderflow.broker.log;

import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecords.RecordFilter.BatchRetention;
import org.apache.kafka.common.record.internal.MemoryRecords.RecordFilter.BatchRetentionResult;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.CloseableIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Log compaction for {@code cleanup.policy=compact} and {@code compact,delete}: in the sealed segments, keeps
 * only the latest record of each key, with its offset unchanged. The broker's scheduler calls
 * {@link #clean(PartitionLog)} for each log now and then; logs whose policy does not compact are left alone.
 *
 * <p><b>What is cleaned.</b> Only sealed segments. The active segment, where appends go, is never read or
 * written, and its records do not count: a key's newer value in the active segment removes the older sealed
 * ones only once that segment is sealed (Kafka, too, never cleans the active segment).
 *
 * <p><b>Two passes.</b> Pass 1 reads the sealed segments, oldest first, and builds a {@link KeyOffsetMap} of
 * key → latest offset. Pass 2 copies each sealed segment, oldest first, into a {@code .cleaned} segment with
 * the same base offset through Kafka's batch codec ({@link MemoryRecords#filterTo}), which rewrites a batch
 * only when it loses records, keeps its compression codec, base offset and last offset (so offsets and the
 * producer's last sequence are unchanged, and gaps appear that consumers skip as Kafka consumers do), and
 * recomputes its CRC. Each copy is checked batch by batch and {@link PartitionLog#swapIn swapped in} at once;
 * a copy identical to its segment is dropped, so cleaning a clean log only reads. Segments are read in chunks
 * of whole batches of about {@value #CHUNK_BYTES} bytes, never whole.
 *
 * <p><b>Which records stay.</b>
 * <ul>
 *   <li>A keyed record stays if it is the latest for its key in the sealed segments.
 *   <li>A tombstone (null value) that is the latest for its key stays until its batch's delete horizon has
 *       passed. As in Kafka (KIP-534), the first cleaning that keeps a tombstone stamps its batch with the
 *       horizon {@code now + delete.retention.ms} ({@code filterTo} does this), and a later cleaning drops it.
 *       We do not use the record or batch timestamp instead: that is the producer's create time, possibly
 *       long past, so the tombstone could disappear in the same cleaning that removed the values it deletes,
 *       and a consumer halfway through the log would keep a deleted value. The horizon gives every reader
 *       {@code delete.retention.ms} from the moment the older values were removed. The cost: a tombstone
 *       needs two cleanings, at least {@code delete.retention.ms} apart, to go.
 *   <li>Records without a key stay. As in Kafka, an append to a compacted topic refuses them
 *       ({@link RecordWithoutKeyException}), but a topic whose policy was changed to compact keeps the keyless
 *       records it accepted before; Kafka's cleaner discards those, ours keeps them, so that changing a topic's
 *       policy never loses accepted data silently.
 *   <li>A batch left with no records is removed, except the last batch of each idempotent producer in the
 *       sealed segments, kept as an empty batch (Kafka's {@code RETAIN_EMPTY}) so that its sequence numbers
 *       survive for producer-state recovery even without a snapshot. It costs a 61-byte header per producer id
 *       until that producer writes again; they are never expired (Kafka expires them with the producer's
 *       state, which our producer-state table does not expose to the cleaner).
 *   <li>A segment left with no batches is swapped in as an empty segment rather than removed, so that every
 *       segment keeps its base offset, the log start offset never moves, and the swap protocol stays
 *       one-for-one. Small segments are not merged.
 * </ul>
 *
 * <p><b>Memory.</b> The key map holds at most {@code maxKeys} keys at 32 to 64 bytes each whatever their size
 * (the default, {@value #DEFAULT_MAX_KEYS} keys, is at most 48 MiB), plus about 80 bytes per idempotent
 * producer id in the sealed segments, two chunk buffers and the decompression buffers. When the sealed
 * segments hold more distinct keys than fit, pass 1 stops at the first key that does not fit: records before
 * it are deduplicated, records from it on are kept as they are, and {@link CleanResult#unmappedFrom()} says
 * where that was. The map is rebuilt from the oldest sealed segment each time (there is no cleaner
 * checkpoint), so a log with more distinct keys than {@code maxKeys} is never fully compacted: raise it.
 *
 * <p><b>Crash behaviour.</b> At every point a crash leaves a valid log. Output goes to {@code .cleaned} files,
 * which {@link LogLoader} deletes; the rename to {@code .swap} in {@link PartitionLog#swapIn} is the commit
 * point, which the loader completes. Segments are swapped one at a time, oldest first, so after a crash each
 * segment is either its original or its compacted copy: both hold the latest record of every key, and an
 * older value is never left behind a tombstone that has been dropped (the tombstone goes only in a pass that
 * also removed the older values, from segments processed before it). If cleaning fails in the process (an I/O
 * error, a damaged batch, a record over {@code maxRecordBodyBytes}), the unfinished copy is deleted, the
 * failure is logged with the log's name and rethrown, and segments already swapped stay swapped.
 *
 * <p><b>Thread-safety.</b> One cleaning per log at a time: this instance refuses a second concurrent
 * {@link #clean} of the same log, so the broker should use one cleaner. Different logs may be cleaned in
 * parallel. Appends, reads, rolls and retention on the log being cleaned go on meanwhile: sealed segments do
 * not change, swaps take the log's append lock, and a segment that retention removed mid-cleaning is simply
 * not swapped ({@code swapIn} discards the copy; if the segment's file was already closed, the cleaning
 * fails and the next one starts over).
 *
 * <p><b>Transactions.</b> Only segments wholly below the first open transaction are cleaned ({@link
 * PartitionLog#sealedSegments}). Records of aborted transactions are not mapped (an aborted value never replaces a
 * committed one) and are removed; transaction markers are never mapped nor removed, so a consumer reading an old
 * segment still sees each transaction end. A compacted copy keeps its original's {@link TransactionIndex}.
 *
 * <p>Not done (Kafka does): a dirty-ratio threshold and checkpoint to skip already-clean segments, merging
 * small segments, I/O throttling, removing markers once the data they end is gone.
 */
public final class LogCleaner {
    private static final Logger log = LoggerFactory.getLogger(LogCleaner.class);

    /** The most distinct keys one pass deduplicates, unless the constructor says otherwise. */
    public static final int DEFAULT_MAX_KEYS = 1 << 20;
    /**
     * The largest decompressed record body the cleaner reads, unless the constructor says otherwise. Bounds the
     * allocation a crafted compressed batch can cause; a legitimate record this large needs a producer with a
     * {@code max.request.size} of 64 MiB.
     */
    public static final int DEFAULT_MAX_RECORD_BODY_BYTES = 64 * 1024 * 1024;

    static final int CHUNK_BYTES = 1024 * 1024;

    private final Clock clock;
    private final int maxKeys;
    private final int maxRecordBodyBytes;
    private final Set<PartitionLog> cleaning = ConcurrentHashMap.newKeySet();

    /** What one {@link #clean} did. */
    public record CleanResult(
            int segmentsRewritten,
            long recordsRead,
            long recordsRetained,
            long bytesRead,
            long bytesRetained,
            int distinctKeys,
            long unmappedFrom) {

        /** Nothing cleaned: the policy does not compact, or there is no sealed segment. */
        public static final CleanResult NOTHING = new CleanResult(0, 0, 0, 0, 0, 0, -1);

        /** True when every keyed record of the sealed segments was deduplicated ({@code unmappedFrom} is -1). */
        public boolean complete() {
            return unmappedFrom < 0;
        }
    }

    public LogCleaner(Clock clock) {
        this(clock, DEFAULT_MAX_KEYS, DEFAULT_MAX_RECORD_BODY_BYTES);
    }

    /**
     * @param maxKeys the most distinct keys one pass deduplicates; bounds the key map's memory (see above)
     * @param maxRecordBodyBytes the largest decompressed record body read; larger ones fail the cleaning
     */
    public LogCleaner(Clock clock, int maxKeys, int maxRecordBodyBytes) {
        if (maxKeys < 1) {
            throw new IllegalArgumentException("maxKeys must be at least 1, got " + maxKeys);
        }
        if (maxRecordBodyBytes < 1) {
            throw new IllegalArgumentException("maxRecordBodyBytes must be at least 1, got " + maxRecordBodyBytes);
        }
        this.clock = clock;
        this.maxKeys = maxKeys;
        this.maxRecordBodyBytes = maxRecordBodyBytes;
    }

    /**
     * Compacts the sealed segments of {@code partition} if its cleanup policy compacts; otherwise does nothing.
     *
     * @throws IllegalStateException if this cleaner is already cleaning the log
     * @throws LogException if a segment cannot be read or written; segments already swapped stay swapped
     */
    public CleanResult clean(PartitionLog partition) {
        return clean(partition, partition::swapIn);
    }

    /** As {@link #clean(PartitionLog)}, with the swap step given; tests use it to stop at any point of a swap. */
    CleanResult clean(PartitionLog partition, Consumer<LogSegment> swapIn) {
        LogConfig config = partition.config();
        if (!config.cleanupPolicy().compacts()) {
            return CleanResult.NOTHING;
        }
        if (!cleaning.add(partition)) {
            throw new IllegalStateException(partition.name() + " is already being cleaned");
        }
        try (BufferSupplier buffers = BufferSupplier.create()) {
            return compact(partition, config, swapIn, buffers);
        } catch (RuntimeException e) {
            log.atError()
                    .setCause(e)
                    .addKeyValue("topic", partition.topic())
                    .addKeyValue("partition", partition.partition())
                    .log("Compaction failed; segments swapped so far stay compacted");
            throw e;
        } finally {
            cleaning.remove(partition);
        }
    }

    private CleanResult compact(
            PartitionLog partition, LogConfig config, Consumer<LogSegment> swapIn, BufferSupplier buffers) {
        List<LogSegment> sealed = partition.sealedSegments();
        if (sealed.isEmpty()) {
            return CleanResult.NOTHING;
        }
        long now = clock.millis();
        Mapping mapping = map(sealed, buffers, abortedRanges(partition, sealed));
        if (mapping.unmappedFrom() < Long.MAX_VALUE) {
            log.atWarn()
                    .addKeyValue("topic", partition.topic())
                    .addKeyValue("partition", partition.partition())
                    .addKeyValue("maxKeys", maxKeys)
                    .addKeyValue("unmappedFrom", mapping.unmappedFrom())
                    .log("More distinct keys in the sealed segments than the cleaner maps; records from offset"
                            + " unmappedFrom on are not deduplicated in this pass");
        }
        CompactionFilter filter = new CompactionFilter(now, config.deleteRetentionMs(), mapping);
        Copy totals = new Copy();
        int rewritten = 0;
        for (LogSegment segment : sealed.subList(0, mapping.segments())) {
            LogSegment cleaned = cleanedCopy(partition, segment, filter, buffers, totals);
            if (cleaned != null) {
                swapIn.accept(cleaned);
                rewritten++;
            }
        }
        CleanResult result = new CleanResult(
                rewritten,
                totals.recordsRead,
                totals.recordsRetained,
                totals.bytesRead,
                totals.bytesRetained,
                mapping.keys().size(),
                mapping.unmappedFrom() == Long.MAX_VALUE ? -1 : mapping.unmappedFrom());
        if (rewritten > 0) {
            log.atInfo()
                    .addKeyValue("topic", partition.topic())
                    .addKeyValue("partition", partition.partition())
                    .addKeyValue("segmentsRewritten", rewritten)
                    .addKeyValue("sealedSegments", sealed.size())
                    .addKeyValue("bytesBefore", totals.bytesRead)
                    .addKeyValue("bytesAfter", totals.bytesRetained)
                    .addKeyValue("recordsBefore", totals.recordsRead)
                    .addKeyValue("recordsAfter", totals.recordsRetained)
                    .log("Compacted a partition");
        }
        return result;
    }

    /**
     * Pass 1's output: the keys' latest offsets, the last batch of each producer, how many segments (from the
     * oldest) were reached, and the first offset whose key did not fit (or {@code Long.MAX_VALUE}).
     */
    private record Mapping(
            KeyOffsetMap keys,
            Map<Long, Long> lastBatchOfProducer,
            int segments,
            long unmappedFrom,
            Map<Long, List<AbortedTxn>> aborted) {

        /** True for a transactional data batch of an aborted transaction. */
        boolean isAborted(RecordBatch batch) {
            if (!batch.isTransactional() || batch.isControlBatch()) {
                return false;
            }
            for (AbortedTxn t : aborted.getOrDefault(batch.producerId(), List.of())) {
                if (batch.baseOffset() >= t.firstOffset() && batch.baseOffset() < t.lastOffset()) {
                    return true;
                }
            }
            return false;
        }
    }

    /** The aborted transactions that may have data in the sealed segments, by producer. */
    private static Map<Long, List<AbortedTxn>> abortedRanges(PartitionLog partition, List<LogSegment> sealed) {
        Map<Long, List<AbortedTxn>> byProducer = new HashMap<>();
        for (AbortedTxn t : partition.abortedTransactions(
                sealed.getFirst().baseOffset(), sealed.getLast().nextOffset())) {
            byProducer.computeIfAbsent(t.producerId(), p -> new ArrayList<>()).add(t);
        }
        return byProducer;
    }

    private Mapping map(List<LogSegment> sealed, BufferSupplier buffers, Map<Long, List<AbortedTxn>> aborted) {
        KeyOffsetMap keys = new KeyOffsetMap(maxKeys);
        Map<Long, Long> lastBatchOfProducer = new HashMap<>();
        int reached = 0;
        for (LogSegment segment : sealed) {
            reached++;
            long next = segment.baseOffset();
            FileRegion region;
            while (!(region = segment.read(next, CHUNK_BYTES, Long.MAX_VALUE)).isEmpty()) {
                for (MutableRecordBatch batch :
                        MemoryRecords.readableRecords(region.read()).batches()) {
                    if (batch.hasProducerId()) {
                        lastBatchOfProducer.put(batch.producerId(), batch.lastOffset());
                    }
                    if (batch.isControlBatch() || isAborted(batch, aborted)) {
                        // A marker's key is its type, not data; an aborted record never was a value of its key.
                        next = batch.nextOffset();
                        continue;
                    }
                    long unmapped = mapBatch(batch, keys, buffers);
                    if (unmapped >= 0) {
                        return new Mapping(keys, lastBatchOfProducer, reached, unmapped, aborted);
                    }
                    next = batch.nextOffset();
                }
            }
        }
        return new Mapping(keys, lastBatchOfProducer, reached, Long.MAX_VALUE, aborted);
    }

    private static boolean isAborted(RecordBatch batch, Map<Long, List<AbortedTxn>> aborted) {
        return new Mapping(null, Map.of(), 0, 0, aborted).isAborted(batch);
    }

    /** Puts the batch's keys in the map; returns the offset of the first key that did not fit, or -1. */
    private long mapBatch(RecordBatch batch, KeyOffsetMap keys, BufferSupplier buffers) {
        try (CloseableIterator<Record> records = batch.streamingIterator(buffers, maxRecordBodyBytes)) {
            while (records.hasNext()) {
                Record r = records.next();
                if (r.hasKey() && !keys.put(r.key(), r.offset())) {
                    return r.offset();
                }
            }
        }
        return -1;
    }

    /** Pass 2's output buffer, reused for every chunk, and its running totals. */
    private static final class Copy {
        final ByteBuffer out = ByteBuffer.allocate(CHUNK_BYTES);
        long recordsRead;
        long recordsRetained;
        long bytesRead;
        long bytesRetained;
    }

    /**
     * Writes the compacted copy of {@code segment}. Returns it, flushed by the swap, or null (and no files)
     * when it would be identical to the segment.
     */
    private LogSegment cleanedCopy(
            PartitionLog partition, LogSegment segment, CompactionFilter filter, BufferSupplier buffers, Copy totals) {
        LogSegment cleaned = partition.createCleanedSegment(segment.baseOffset());
        try {
            boolean changed = false;
            long next = segment.baseOffset();
            FileRegion region;
            while (!(region = segment.read(next, CHUNK_BYTES, Long.MAX_VALUE)).isEmpty()) {
                ByteBuffer chunk = region.read();
                int position = 0;
                // filterTo returns early when a rewritten batch outgrows the output buffer: go on from there.
                while (position < chunk.limit()) {
                    ByteBuffer input = chunk.slice(position, chunk.limit() - position);
                    MemoryRecords.FilterResult result = MemoryRecords.readableRecords(input)
                            .filterTo(filter, totals.out.clear(), buffers, maxRecordBodyBytes);
                    if (result.bytesRead() <= 0) {
                        throw new IllegalStateException("Compaction of " + segment.logPath() + " made no progress at"
                                + " position " + (region.position() + position));
                    }
                    ByteBuffer written = result.outputBuffer().flip();
                    changed |= !written.equals(input.slice(0, result.bytesRead()));
                    totals.recordsRead += result.messagesRead();
                    totals.recordsRetained += result.messagesRetained();
                    totals.bytesRead += result.bytesRead();
                    totals.bytesRetained += written.remaining();
                    appendChecked(cleaned, written);
                    position += result.bytesRead();
                }
                next = nextOffsetAfter(chunk);
            }
            if (!changed) {
                cleaned.deleteFiles();
                return null;
            }
            cleaned.txnIndex().copyFrom(segment.txnIndex());
            return cleaned;
        } catch (RuntimeException e) {
            try {
                cleaned.deleteFiles();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** Appends whole batches to the cleaned segment after checking each one as an append would. */
    private static void appendChecked(LogSegment cleaned, ByteBuffer batches) {
        List<BatchHeader> headers = new ArrayList<>();
        int position = 0;
        while (position < batches.limit()) {
            String problem = BatchCheck.problem(batches, position, batches.limit());
            if (problem != null) {
                throw new IllegalStateException("Compaction wrote an invalid batch for " + cleaned.logPath() + " at "
                        + position + ": " + problem);
            }
            BatchHeader h = BatchHeader.read(batches, position);
            headers.add(h);
            position += h.sizeInBytes();
        }
        if (!headers.isEmpty()) {
            cleaned.append(batches, headers);
        }
    }

    /** The offset after the last batch in a buffer of whole batches. */
    private static long nextOffsetAfter(ByteBuffer batches) {
        int position = 0;
        long next = -1;
        while (position < batches.limit()) {
            BatchHeader h = BatchHeader.read(batches, position);
            next = h.nextOffset();
            position += h.sizeInBytes();
        }
        return next;
    }

    /** Decides, for {@link MemoryRecords#filterTo}, which records and batches stay; see the class comment. */
    private static final class CompactionFilter extends MemoryRecords.RecordFilter {
        private static final BatchRetentionResult KEEP_IF_EMPTY =
                new BatchRetentionResult(BatchRetention.RETAIN_EMPTY, false);
        private static final BatchRetentionResult DROP_IF_EMPTY =
                new BatchRetentionResult(BatchRetention.DELETE_EMPTY, false);

        private final Mapping mapping;

        CompactionFilter(long now, long deleteRetentionMs, Mapping mapping) {
            super(now, deleteRetentionMs);
            this.mapping = mapping;
        }

        @Override
        protected BatchRetentionResult checkBatchRetention(RecordBatch batch) {
            if (batch.isControlBatch()) {
                return KEEP_IF_EMPTY; // markers stay: consumers reading past them rely on them
            }
            boolean producersLast = batch.hasProducerId()
                    && mapping.lastBatchOfProducer().getOrDefault(batch.producerId(), -1L) == batch.lastOffset();
            return producersLast ? KEEP_IF_EMPTY : DROP_IF_EMPTY;
        }

        @Override
        protected boolean shouldRetainRecord(RecordBatch batch, Record record) {
            if (batch.isControlBatch()) {
                return true;
            }
            if (mapping.isAborted(batch)) {
                return false; // no consumer of committed data reads it, and its keys' values are elsewhere
            }
            if (!record.hasKey() || record.offset() >= mapping.unmappedFrom()) {
                return true;
            }
            if (record.offset() < mapping.keys().get(record.key())) {
                return false;
            }
            if (record.hasValue()) {
                return true;
            }
            OptionalLong horizon = batch.deleteHorizonMs();
            return horizon.isEmpty() || currentTime < horizon.getAsLong();
        }
    }
}

package io.orderflow.broker.log;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.function.Consumer;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One file of a partition's log and its two indexes, named by the offset of its first batch:
 * {@code 00000000000000001234.log}, {@code .index}, {@code .timeindex}.
 *
 * <p><b>Format.</b> The {@code .log} file is a plain concatenation of Kafka v2 record batches exactly as
 * producers sent them, except that the broker wrote the base offset (which the CRC does not cover).
 * Compressed batches stay compressed. Offsets increase strictly; after compaction they may have gaps.
 *
 * <p><b>Crash behaviour.</b> Appends go to the end of the file. After an unclean stop the tail may hold a torn
 * or unflushed batch; {@link #recover()} scans the whole file, validates each batch (length, magic, CRC,
 * offsets), truncates at the first bad one and rebuilds both indexes. A batch that fails its CRC but is
 * followed by valid batches is media damage, not a torn write: it is kept out of reads and reported, and the
 * valid data after it is not thrown away.
 *
 * <p><b>Reads never serve unchecked bytes.</b> Every batch is CRC-checked once per process before a read may
 * return it: at append, in recovery, or lazily on the first read that reaches it.
 *
 * <p><b>Thread-safety.</b> One writer (the partition's append lock) and many concurrent readers. {@code size}
 * is published after the bytes are written, so readers never see a partial batch.
 */
final class LogSegment implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(LogSegment.class);

    static final String LOG_SUFFIX = ".log";
    static final String INDEX_SUFFIX = ".index";
    static final String TIME_INDEX_SUFFIX = ".timeindex";

    private final LogFiles files;
    private final Path dir;
    private final long baseOffset;
    private final int indexIntervalBytes;
    private final FileChannel channel;
    private final OffsetIndex offsetIndex;
    private final TimeIndex timeIndex;
    private final TransactionIndex txnIndex;
    private Path logPath;

    private volatile int size;
    private volatile long nextOffset;
    private volatile long maxTimestamp = RecordBatch.NO_TIMESTAMP;
    private long firstBatchTimestamp = RecordBatch.NO_TIMESTAMP;
    private int bytesSinceIndexEntry;
    /** Serialises fsyncs of the data file: a flush that finds nothing new to force must wait for one under way. */
    private final Object flushLock = new Object();

    private volatile boolean dataDirty;

    /** Bytes from the start of the file that have passed the CRC check in this process. */
    private int verifiedUpTo;
    /** Position of the first batch found damaged, or -1. */
    private int corruptAt = -1;

    private LogSegment(LogFiles files, Path dir, long baseOffset, int indexIntervalBytes, String suffix) {
        this.files = files;
        this.dir = dir;
        this.baseOffset = baseOffset;
        this.indexIntervalBytes = indexIntervalBytes;
        this.logPath = dir.resolve(fileName(baseOffset, LOG_SUFFIX) + suffix);
        try {
            this.channel =
                    files.open(logPath, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            this.size = Math.toIntExact(channel.size());
        } catch (IOException e) {
            throw new LogStorageException("Cannot open segment " + logPath, e);
        }
        this.offsetIndex = new OffsetIndex(files, dir.resolve(fileName(baseOffset, INDEX_SUFFIX) + suffix), baseOffset);
        this.timeIndex =
                new TimeIndex(files, dir.resolve(fileName(baseOffset, TIME_INDEX_SUFFIX) + suffix), baseOffset);
        this.txnIndex =
                TransactionIndex.open(files, dir.resolve(fileName(baseOffset, TransactionIndex.SUFFIX) + suffix));
        this.nextOffset = baseOffset;
    }

    static String fileName(long baseOffset, String suffix) {
        return String.format("%020d%s", baseOffset, suffix);
    }

    /** A new, empty segment; {@code suffix} is "" for a live segment, ".cleaned" for compaction output. */
    static LogSegment create(LogFiles files, Path dir, long baseOffset, int indexIntervalBytes, String suffix) {
        LogSegment segment = new LogSegment(files, dir, baseOffset, indexIntervalBytes, suffix);
        if (segment.size != 0) {
            segment.close();
            throw new IllegalStateException("Segment " + segment.logPath + " already exists");
        }
        return segment;
    }

    /** An existing segment the caller will {@link #recover()} before using. */
    static LogSegment openToRecover(LogFiles files, Path dir, long baseOffset, int indexIntervalBytes) {
        return new LogSegment(files, dir, baseOffset, indexIntervalBytes, "");
    }

    /**
     * An existing segment whose indexes are trusted (clean shutdown, or a segment fsynced at roll). If the
     * indexes point past the data, they are rebuilt.
     */
    static LogSegment open(LogFiles files, Path dir, long baseOffset, int indexIntervalBytes) {
        LogSegment segment = new LogSegment(files, dir, baseOffset, indexIntervalBytes, "");
        if (!segment.offsetIndex.fitsWithin(segment.size)) {
            log.atWarn()
                    .addKeyValue("segment", segment.logPath)
                    .addKeyValue("bytes", segment.size)
                    .log("Segment index points past the data; rebuilding it");
            segment.recover();
            return segment;
        }
        segment.maxTimestamp = segment.timeIndex.lastTimestamp();
        segment.firstBatchTimestamp = RecordBatch.NO_TIMESTAMP;
        int position = segment.offsetIndex.lastPosition();
        ByteBuffer header = ByteBuffer.allocate(BatchHeader.SIZE);
        if (segment.size > 0) {
            BatchHeader h = segment.readHeader(0, header);
            segment.firstBatchTimestamp = h == null ? RecordBatch.NO_TIMESTAMP : h.maxTimestamp();
        }
        while (position < segment.size) {
            BatchHeader h = segment.readHeader(position, header);
            if (h == null || position + (long) h.sizeInBytes() > segment.size) {
                log.atWarn()
                        .addKeyValue("segment", segment.logPath)
                        .addKeyValue("position", position)
                        .log("Segment has a partial batch; recovering it");
                segment.recover();
                return segment;
            }
            segment.bytesSinceIndexEntry += h.sizeInBytes();
            segment.maxTimestamp = Math.max(segment.maxTimestamp, h.maxTimestamp());
            segment.nextOffset = h.nextOffset();
            position += h.sizeInBytes();
        }
        return segment;
    }

    long baseOffset() {
        return baseOffset;
    }

    /** The offset the next appended batch gets; equals {@link #baseOffset()} while empty. */
    long nextOffset() {
        return nextOffset;
    }

    int size() {
        return size;
    }

    long maxTimestamp() {
        return maxTimestamp;
    }

    /** The max timestamp of the first batch, from which {@code segment.ms} counts; -1 while empty. */
    long firstBatchTimestamp() {
        return firstBatchTimestamp;
    }

    Path logPath() {
        return logPath;
    }

    /**
     * Writes {@code batches} (whole batches with offsets already assigned) at the end of the file and indexes
     * them. The caller checked each batch; {@code headers} describe them in order.
     */
    void append(ByteBuffer batches, List<BatchHeader> headers) {
        int start = size;
        int position = start;
        for (BatchHeader h : headers) {
            if (bytesSinceIndexEntry >= indexIntervalBytes && position > 0) {
                offsetIndex.append(h.baseOffset(), position);
                timeIndex.maybeAppend(Math.max(maxTimestamp, h.maxTimestamp()), h.baseOffset());
                bytesSinceIndexEntry = 0;
            }
            bytesSinceIndexEntry += h.sizeInBytes();
            position += h.sizeInBytes();
        }
        try {
            long at = start;
            ByteBuffer src = batches.duplicate();
            while (src.hasRemaining()) {
                at += channel.write(src, at);
            }
        } catch (IOException e) {
            throw new LogStorageException("Cannot append to " + logPath, e);
        }
        for (BatchHeader h : headers) {
            maxTimestamp = Math.max(maxTimestamp, h.maxTimestamp());
            if (firstBatchTimestamp == RecordBatch.NO_TIMESTAMP) {
                firstBatchTimestamp = h.maxTimestamp();
            }
        }
        synchronized (this) {
            if (verifiedUpTo == start) {
                verifiedUpTo = position;
            }
        }
        dataDirty = true;
        nextOffset = headers.getLast().nextOffset();
        size = position;
    }

    /**
     * Whole batches from the one containing {@code startOffset}, up to about {@code maxBytes} (at least one
     * batch when there is one) and stopping before {@code maxOffsetExclusive}. Empty when nothing qualifies.
     */
    FileRegion read(long startOffset, int maxBytes, long maxOffsetExclusive) {
        int end = size;
        ByteBuffer header = ByteBuffer.allocate(BatchHeader.SIZE);
        int position = offsetIndex.lookup(startOffset);
        BatchHeader h = null;
        while (position < end) {
            h = readHeader(position, header);
            if (h == null || h.lastOffset() >= startOffset) {
                break;
            }
            position += h.sizeInBytes();
        }
        if (h == null || position >= end || h.baseOffset() >= maxOffsetExclusive) {
            return FileRegion.EMPTY;
        }
        int start = position;
        while (position < end) {
            h = readHeader(position, header);
            if (h == null || h.baseOffset() >= maxOffsetExclusive) {
                break;
            }
            if (position > start && position - start + h.sizeInBytes() > maxBytes) {
                break;
            }
            position += h.sizeInBytes();
        }
        int verifiedEnd = ensureVerified(start, position);
        if (verifiedEnd <= start) {
            throw new CorruptBatchException(logPath, start, "the batch failed its CRC check");
        }
        return new FileRegion(channel, start, verifiedEnd - start);
    }

    /**
     * CRC-checks the batches of {@code [start, end)} ({@code start} is a batch boundary); returns how far from
     * {@code start} the data is good (at most {@code end}).
     */
    private synchronized int ensureVerified(int start, int end) {
        if (corruptAt < 0) {
            verifyPrefix(end);
        }
        if (corruptAt < 0 || corruptAt >= end) {
            return end;
        }
        if (corruptAt >= start) {
            return corruptAt;
        }
        // The region lies after a damaged batch, where the verified prefix stops: check it on its own.
        return firstInvalidBatch(start, end);
    }

    /** Extends the verified prefix up to {@code end}, stopping at the first damaged batch. */
    private void verifyPrefix(int end) {
        ByteBuffer buf = ByteBuffer.allocate(0);
        while (verifiedUpTo < end) {
            BatchHeader h = readHeader(verifiedUpTo, ByteBuffer.allocate(BatchHeader.SIZE));
            if (h == null || h.batchLength() < BatchHeader.MIN_BATCH_LENGTH) {
                corruptAt = verifiedUpTo;
                break;
            }
            if (buf.capacity() < h.sizeInBytes()) {
                buf = ByteBuffer.allocate(h.sizeInBytes());
            }
            buf.clear().limit(h.sizeInBytes());
            readFully(buf, verifiedUpTo);
            String problem = BatchCheck.problem(buf, 0, h.sizeInBytes());
            if (problem != null) {
                log.atError()
                        .addKeyValue("segment", logPath)
                        .addKeyValue("position", verifiedUpTo)
                        .addKeyValue("offset", h.baseOffset())
                        .addKeyValue("problem", problem)
                        .log("Segment is damaged");
                corruptAt = verifiedUpTo;
                break;
            }
            verifiedUpTo += h.sizeInBytes();
        }
    }

    /** Where the first batch of {@code [from, end)} that fails its checks starts, or {@code end}. */
    private int firstInvalidBatch(int from, int end) {
        int position = from;
        while (position < end) {
            BatchHeader h = readHeader(position, ByteBuffer.allocate(BatchHeader.SIZE));
            if (h == null || h.batchLength() < BatchHeader.MIN_BATCH_LENGTH || !validBatchAt(position, end)) {
                return position;
            }
            position += h.sizeInBytes();
        }
        return end;
    }

    /** The first record at or after {@code timestamp} in this segment, or null when every record is older. */
    TimestampOffset firstAtOrAfter(long timestamp, long fromOffset) {
        if (maxTimestamp < timestamp) {
            return null;
        }
        long scanFrom = Math.max(timeIndex.scanStartFor(timestamp), fromOffset);
        int position = offsetIndex.lookup(scanFrom);
        int end = size;
        ByteBuffer header = ByteBuffer.allocate(BatchHeader.SIZE);
        while (position < end) {
            BatchHeader h = readHeader(position, header);
            if (h == null) {
                return null;
            }
            if (h.maxTimestamp() >= timestamp && h.lastOffset() >= fromOffset) {
                ByteBuffer batch = ByteBuffer.allocate(h.sizeInBytes());
                readFully(batch, position);
                batch.flip();
                for (RecordBatch b : MemoryRecords.readableRecords(batch).batches()) {
                    for (Record r : b) {
                        if (r.timestamp() >= timestamp && r.offset() >= fromOffset) {
                            return new TimestampOffset(r.timestamp(), r.offset());
                        }
                    }
                }
            }
            position += h.sizeInBytes();
        }
        return null;
    }

    /** Calls {@code action} with the header of every batch, in order. */
    void forEachBatch(Consumer<BatchHeader> action) {
        forEachBatchAt((h, position) -> action.accept(h));
    }

    /** Calls {@code action} with the header and file position of every batch, in order. */
    void forEachBatchAt(java.util.function.ObjIntConsumer<BatchHeader> action) {
        int end = size;
        int position = 0;
        ByteBuffer header = ByteBuffer.allocate(BatchHeader.SIZE);
        while (position < end) {
            BatchHeader h = readHeader(position, header);
            if (h == null) {
                return;
            }
            action.accept(h, position);
            position += h.sizeInBytes();
        }
    }

    /** The whole batch at {@code position}, described by {@code header}; for reading a transaction marker. */
    ByteBuffer readBatch(int position, BatchHeader header) {
        ByteBuffer buf = ByteBuffer.allocate(header.sizeInBytes());
        readFully(buf, position);
        return buf.flip();
    }

    /** The aborted transactions whose marker is in this segment. */
    TransactionIndex txnIndex() {
        return txnIndex;
    }

    /**
     * Validates every batch, truncates a torn or corrupt tail and rebuilds both indexes. Idempotent: running
     * it on a valid segment changes nothing but the index files' contents (which come out the same).
     *
     * @return the number of bytes cut off the end
     */
    int recover() {
        offsetIndex.truncateEntries(0);
        timeIndex.truncateEntries(0);
        int end = size;
        int position = 0;
        long expectedAtLeast = baseOffset;
        long maxTs = RecordBatch.NO_TIMESTAMP;
        long firstTs = RecordBatch.NO_TIMESTAMP;
        int sinceIndex = 0;
        int firstCorrupt = -1;
        ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
        while (position < end) {
            BatchHeader h = readHeader(position, ByteBuffer.allocate(BatchHeader.SIZE));
            if (h == null
                    || h.batchLength() < BatchHeader.MIN_BATCH_LENGTH
                    || position + (long) h.sizeInBytes() > end
                    || h.baseOffset() < expectedAtLeast) {
                break;
            }
            if (buf.capacity() < h.sizeInBytes()) {
                buf = ByteBuffer.allocate(h.sizeInBytes());
            }
            buf.clear().limit(h.sizeInBytes());
            readFully(buf, position);
            String problem = BatchCheck.problem(buf, 0, h.sizeInBytes());
            if (problem != null) {
                if (!validBatchAt(position + h.sizeInBytes(), end)) {
                    break;
                }
                log.atError()
                        .addKeyValue("segment", logPath)
                        .addKeyValue("position", position)
                        .addKeyValue("offset", h.baseOffset())
                        .addKeyValue("problem", problem)
                        .log("Segment is damaged and valid batches follow, so this is media damage, not a torn"
                                + " write: the batch is kept out of reads");
                if (firstCorrupt < 0) {
                    firstCorrupt = position;
                }
            }
            boolean damaged = problem != null;
            if (!damaged && sinceIndex >= indexIntervalBytes && position > 0) {
                offsetIndex.append(h.baseOffset(), position);
                timeIndex.maybeAppend(Math.max(maxTs, h.maxTimestamp()), h.baseOffset());
                sinceIndex = 0;
            }
            sinceIndex += h.sizeInBytes();
            if (damaged) {
                // Only its length, which led to a valid batch, is usable: the CRC-covered fields (lastOffsetDelta,
                // timestamps) may be the damaged bytes, so they must not move the log end or the time index.
                expectedAtLeast = h.baseOffset() + 1;
            } else {
                maxTs = Math.max(maxTs, h.maxTimestamp());
                if (firstTs == RecordBatch.NO_TIMESTAMP) {
                    firstTs = h.maxTimestamp();
                }
                expectedAtLeast = h.nextOffset();
            }
            position += h.sizeInBytes();
        }
        int truncated = end - position;
        if (truncated > 0) {
            log.atWarn()
                    .addKeyValue("segment", logPath)
                    .addKeyValue("position", position)
                    .addKeyValue("bytes", truncated)
                    .log("Cutting a torn or invalid segment tail");
            try {
                channel.truncate(position);
            } catch (IOException e) {
                throw new LogStorageException("Cannot truncate " + logPath, e);
            }
        }
        synchronized (this) {
            verifiedUpTo = firstCorrupt >= 0 ? firstCorrupt : position;
            corruptAt = firstCorrupt;
        }
        size = position;
        nextOffset = expectedAtLeast;
        maxTimestamp = maxTs;
        firstBatchTimestamp = firstTs;
        bytesSinceIndexEntry = sinceIndex;
        dataDirty = true;
        flush();
        return truncated;
    }

    private boolean validBatchAt(int position, int end) {
        BatchHeader h = readHeader(position, ByteBuffer.allocate(BatchHeader.SIZE));
        if (h == null || h.batchLength() < BatchHeader.MIN_BATCH_LENGTH || position + (long) h.sizeInBytes() > end) {
            return false;
        }
        ByteBuffer buf = ByteBuffer.allocate(h.sizeInBytes());
        readFully(buf, position);
        return BatchCheck.problem(buf, 0, h.sizeInBytes()) == null;
    }

    /** Position of the first damaged batch found so far, or -1. */
    synchronized int corruptPosition() {
        return corruptAt;
    }

    private BatchHeader readHeader(int position, ByteBuffer header) {
        if (position + BatchHeader.SIZE > size && position + BatchHeader.SIZE > fileSize()) {
            return null;
        }
        header.clear();
        readFully(header, position);
        return header.position() < BatchHeader.SIZE ? null : BatchHeader.read(header, 0);
    }

    private long fileSize() {
        try {
            return channel.size();
        } catch (IOException e) {
            throw new LogStorageException("Cannot read the size of " + logPath, e);
        }
    }

    /** Reads until the buffer is full or the file ends. */
    private void readFully(ByteBuffer buf, long position) {
        try {
            while (buf.hasRemaining()) {
                if (channel.read(buf, position + buf.position()) < 0) {
                    return;
                }
            }
        } catch (IOException e) {
            throw new LogStorageException("Cannot read " + logPath + " at " + position, e);
        }
    }

    /** Forces data and indexes to disk: for a segment being sealed, closed or swapped in. */
    void flush() {
        flushData();
        offsetIndex.flush();
        timeIndex.flush();
        txnIndex.flush();
    }

    /**
     * Forces the data (fdatasync) but not the indexes: what group commit does for the active segment. Its
     * indexes need no fsync to be safe, because after an unclean stop recovery rebuilds the active segment's
     * indexes from its data; fsyncing them too would triple the fsyncs per commit for no durability.
     */
    void flushData() {
        synchronized (flushLock) {
            try {
                if (dataDirty) {
                    dataDirty = false;
                    channel.force(false);
                }
            } catch (IOException e) {
                dataDirty = true;
                throw new LogStorageException("Cannot fsync " + logPath, e);
            }
        }
    }

    /**
     * Renames all three files to carry {@code newSuffix} instead of the current one ("" for a live segment,
     * ".cleaned", ".swap", ".deleted"); the open channels stay usable by readers.
     */
    void changeSuffix(String newSuffix) {
        try {
            Path target = dir.resolve(fileName(baseOffset, LOG_SUFFIX) + newSuffix);
            Files.move(logPath, target, StandardCopyOption.ATOMIC_MOVE);
            logPath = target;
        } catch (IOException e) {
            throw new LogStorageException("Cannot rename " + logPath, e);
        }
        offsetIndex.renameTo(dir.resolve(fileName(baseOffset, INDEX_SUFFIX) + newSuffix));
        timeIndex.renameTo(dir.resolve(fileName(baseOffset, TIME_INDEX_SUFFIX) + newSuffix));
        txnIndex.renameTo(dir.resolve(fileName(baseOffset, TransactionIndex.SUFFIX) + newSuffix));
    }

    /** Closes and removes all three files. */
    void deleteFiles() {
        close();
        offsetIndex.deleteFile();
        timeIndex.deleteFile();
        txnIndex.deleteFile();
        try {
            Files.deleteIfExists(logPath);
        } catch (IOException e) {
            throw new LogStorageException("Cannot delete " + logPath, e);
        }
    }

    @Override
    public void close() {
        try {
            if (channel.isOpen()) {
                channel.close();
            }
        } catch (IOException e) {
            throw new LogStorageException("Cannot close " + logPath, e);
        } finally {
            offsetIndex.close();
            timeIndex.close();
            txnIndex.close();
        }
    }

    LogFiles files() {
        return files;
    }

    @Override
    public String toString() {
        return "LogSegment(" + logPath + ", size=" + size + ", next=" + nextOffset + ")";
    }
}

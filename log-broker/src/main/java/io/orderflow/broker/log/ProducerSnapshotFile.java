package io.orderflow.broker.log;

import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * The on-disk form of a {@link ProducerStateTable}: {@code <20-digit offset>.snapshot} in the partition
 * directory holds the state of every producer as of that log offset (the log end offset when it was
 * written), so recovery replays only the log after it.
 *
 * <pre>
 * version      int16   2 (1: without txnFirstOffset)
 * offset       int64   the offset in the file name, repeated so a renamed or copied file is caught
 * entryCount   int32
 * entryCount times:
 *   producerId     int64
 *   epoch          int16
 *   lastTimestamp  int64
 *   txnFirstOffset int64   the first offset of the producer's open transaction, -1 when none (version 2)
 *   batchCount     int8    0..5, oldest first:
 *     firstSequence int32 | lastSequence int32 | firstOffset int64 | lastOffset int64 | maxTimestamp int64
 * crc          uint32  CRC-32C of every byte before it
 * </pre>
 *
 * All integers are big-endian. Unlike Kafka's snapshot, which keeps only each producer's last batch, all
 * five retained batches are stored, so a retry of any of them is still recognised after a restart. The
 * whole-file trailer CRC makes a torn write (a file cut short or ending in garbage) or a flipped bit
 * detectable: such a file is reported as {@link CorruptSnapshotException} and the table falls back to an
 * older snapshot, or to replaying the whole log.
 *
 * <p><b>Crash behaviour.</b> A snapshot is written to {@code <name>.tmp}, fsynced, renamed over its final
 * name and the directory fsynced, so after a crash the final name holds either nothing or a complete file.
 * A leftover {@code .tmp} is deleted by {@link LogLoader}. Stateless and thread-safe.
 */
final class ProducerSnapshotFile {
    static final String SUFFIX = ".snapshot";
    static final short VERSION = 2;
    private static final short VERSION_WITHOUT_TRANSACTIONS = 1;

    private static final int HEADER_SIZE = 2 + 8 + 4;
    private static final int ENTRY_HEADER_SIZE = 8 + 2 + 8 + 8 + 1;
    private static final int BATCH_SIZE = 4 + 4 + 8 + 8 + 8;
    private static final int CRC_SIZE = 4;

    private ProducerSnapshotFile() {}

    /** A snapshot file's content is not a snapshot: torn, damaged, or of an unknown version. */
    static final class CorruptSnapshotException extends Exception {
        CorruptSnapshotException(String message) {
            super(message);
        }
    }

    static Path path(Path dir, long offset) {
        return dir.resolve(LogSegment.fileName(offset, SUFFIX));
    }

    /** The snapshot files in {@code dir} by offset; other files, including {@code .tmp} leftovers, are not listed. */
    static TreeMap<Long, Path> list(Path dir) throws IOException {
        TreeMap<Long, Path> snapshots = new TreeMap<>();
        if (!Files.isDirectory(dir)) {
            return snapshots;
        }
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
            for (Path p : stream) {
                String name = p.getFileName().toString();
                if (name.length() == 20 + SUFFIX.length() && isDigits(name, 20)) {
                    snapshots.put(Long.parseLong(name.substring(0, 20)), p);
                }
            }
        }
        return snapshots;
    }

    private static boolean isDigits(String s, int count) {
        for (int i = 0; i < count; i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    /** Atomically writes the snapshot of {@code entries} as of {@code offset}; see the class comment. */
    static void write(LogFiles files, Path dir, long offset, Collection<ProducerEntry> entries) throws IOException {
        files.replace(path(dir, offset), encode(offset, entries));
    }

    /**
     * Reads the snapshot at {@code file}, which must be named for {@code offset}.
     *
     * @throws CorruptSnapshotException when the content fails any check
     * @throws IOException when the file cannot be read at all
     */
    static List<ProducerEntry> read(LogFiles files, Path file, long offset)
            throws IOException, CorruptSnapshotException {
        try (FileChannel channel = files.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size > Integer.MAX_VALUE - 8) {
                throw new CorruptSnapshotException("file of " + size + " bytes is far larger than any snapshot");
            }
            ByteBuffer content = ByteBuffer.allocate((int) size);
            while (content.hasRemaining() && channel.read(content, content.position()) >= 0) {
                // read until full or end of file
            }
            return decode(content.flip(), offset);
        }
    }

    static ByteBuffer encode(long offset, Collection<ProducerEntry> entries) {
        int size = HEADER_SIZE + CRC_SIZE;
        for (ProducerEntry e : entries) {
            size += ENTRY_HEADER_SIZE + e.batches().size() * BATCH_SIZE;
        }
        ByteBuffer buf = ByteBuffer.allocate(size);
        buf.putShort(VERSION).putLong(offset).putInt(entries.size());
        for (ProducerEntry e : entries) {
            buf.putLong(e.producerId())
                    .putShort(e.epoch())
                    .putLong(e.lastTimestamp())
                    .putLong(e.txnFirstOffset());
            buf.put((byte) e.batches().size());
            for (BatchMetadata b : e.batches()) {
                buf.putInt(b.firstSequence())
                        .putInt(b.lastSequence())
                        .putLong(b.firstOffset())
                        .putLong(b.lastOffset())
                        .putLong(b.maxTimestamp());
            }
        }
        buf.putInt(crc(buf, buf.position()));
        return buf.flip();
    }

    /** The entries in {@code content} (position to limit), which must be the snapshot as of {@code offset}. */
    static List<ProducerEntry> decode(ByteBuffer content, long offset) throws CorruptSnapshotException {
        ByteBuffer buf = content.slice();
        int length = buf.remaining();
        if (length < HEADER_SIZE + CRC_SIZE) {
            throw new CorruptSnapshotException("only " + length + " bytes, shorter than an empty snapshot");
        }
        short version = buf.getShort(0);
        if (version != VERSION && version != VERSION_WITHOUT_TRANSACTIONS) {
            throw new CorruptSnapshotException("unknown version " + version + ", only " + VERSION_WITHOUT_TRANSACTIONS
                    + " and " + VERSION + " are read");
        }
        int stored = buf.getInt(length - CRC_SIZE);
        int computed = crc(buf, length - CRC_SIZE);
        if (stored != computed) {
            throw new CorruptSnapshotException("CRC mismatch: stored " + Integer.toUnsignedString(stored, 16)
                    + ", computed " + Integer.toUnsignedString(computed, 16));
        }
        buf.limit(length - CRC_SIZE);
        try {
            buf.getShort(); // the version, checked above
            long writtenAt = buf.getLong();
            if (writtenAt != offset) {
                throw new CorruptSnapshotException("holds the state at offset " + writtenAt + ", named for " + offset);
            }
            int count = buf.getInt();
            int entryHeaderSize = version == VERSION_WITHOUT_TRANSACTIONS ? ENTRY_HEADER_SIZE - 8 : ENTRY_HEADER_SIZE;
            if (count < 0 || (long) count * entryHeaderSize > buf.remaining()) {
                throw new CorruptSnapshotException("entry count " + count + " does not fit the file");
            }
            List<ProducerEntry> entries = new ArrayList<>(count);
            Set<Long> producerIds = new HashSet<>();
            for (int i = 0; i < count; i++) {
                ProducerEntry entry = decodeEntry(buf, version);
                if (!producerIds.add(entry.producerId())) {
                    throw new CorruptSnapshotException("producer " + entry.producerId() + " appears twice");
                }
                entries.add(entry);
            }
            if (buf.hasRemaining()) {
                throw new CorruptSnapshotException(buf.remaining() + " bytes after the last entry");
            }
            return entries;
        } catch (BufferUnderflowException e) {
            throw new CorruptSnapshotException("an entry runs past the end of the file");
        }
    }

    private static ProducerEntry decodeEntry(ByteBuffer buf, short version) throws CorruptSnapshotException {
        long producerId = buf.getLong();
        short epoch = buf.getShort();
        long lastTimestamp = buf.getLong();
        long txnFirstOffset = version == VERSION_WITHOUT_TRANSACTIONS ? ProducerEntry.NO_TRANSACTION : buf.getLong();
        int batchCount = buf.get();
        if (producerId < 0 || batchCount < 0 || batchCount > ProducerEntry.BATCHES_RETAINED) {
            throw new CorruptSnapshotException("producer " + producerId + " with " + batchCount + " batches");
        }
        List<BatchMetadata> batches = new ArrayList<>(batchCount);
        for (int j = 0; j < batchCount; j++) {
            batches.add(new BatchMetadata(buf.getInt(), buf.getInt(), buf.getLong(), buf.getLong(), buf.getLong()));
        }
        if (txnFirstOffset < ProducerEntry.NO_TRANSACTION) {
            throw new CorruptSnapshotException("producer " + producerId + " with transaction at " + txnFirstOffset);
        }
        return new ProducerEntry(producerId, epoch, lastTimestamp, batches, txnFirstOffset);
    }

    private static int crc(ByteBuffer buf, int end) {
        CRC32C crc = new CRC32C();
        crc.update(buf.duplicate().position(0).limit(end));
        return (int) crc.getValue();
    }
}

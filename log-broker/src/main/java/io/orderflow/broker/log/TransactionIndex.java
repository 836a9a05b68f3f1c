package io.orderflow.broker.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The aborted transactions whose abort marker lies in one segment: {@code <base offset>.txnindex}, Kafka's name.
 * What a {@code read_committed} fetch hands the consumer so that it can skip aborted data without the broker
 * rewriting it.
 *
 * <pre>
 * entry, 24 bytes, in marker order: producerId int64 | firstOffset int64 | lastOffset int64 (the marker)
 * </pre>
 *
 * <p><b>Crash behaviour.</b> The file is created with the segment's first abort marker and written with each; it is
 * fsynced with the segment's indexes (when the segment is sealed or closed). After an unclean stop the partition
 * replays the batches after its producer snapshot (never before the last segment) and rebuilds the entries from
 * their markers ({@link #truncateFrom}, then {@link #append} again), so a torn tail is never trusted. Reading an
 * entry that is impossible (offsets out of order) ends the entries read, with the rest rebuilt the same way.
 *
 * <p>Thread-safety: one writer (the partition's append lock), any number of readers of {@link #entries()}.
 */
final class TransactionIndex {
    static final String SUFFIX = ".txnindex";
    private static final int ENTRY_SIZE = 24;

    private final LogFiles files;
    private final List<AbortedTxn> entries = new CopyOnWriteArrayList<>();
    private Path path;
    private FileChannel channel;

    private TransactionIndex(LogFiles files, Path path) {
        this.files = files;
        this.path = path;
    }

    /** The index at {@code path}, with the entries its file holds (none when it does not exist). */
    static TransactionIndex open(LogFiles files, Path path) {
        TransactionIndex index = new TransactionIndex(files, path);
        if (Files.exists(path)) {
            try {
                ByteBuffer content = ByteBuffer.wrap(Files.readAllBytes(path));
                long lastMarker = -1;
                while (content.remaining() >= ENTRY_SIZE) {
                    long producerId = content.getLong();
                    long first = content.getLong();
                    long last = content.getLong();
                    if (producerId < 0 || first < 0 || last < first || last <= lastMarker) {
                        break;
                    }
                    index.entries.add(new AbortedTxn(producerId, first, last));
                    lastMarker = last;
                }
            } catch (IOException e) {
                throw new LogStorageException("Cannot read " + path, e);
            }
        }
        return index;
    }

    List<AbortedTxn> entries() {
        return entries;
    }

    boolean isEmpty() {
        return entries.isEmpty();
    }

    void append(AbortedTxn aborted) {
        entries.add(aborted);
        rewrite();
    }

    /** Forgets the entries whose marker is at or after {@code offset}: recovery replays them again. */
    void truncateFrom(long offset) {
        if (entries.removeIf(e -> e.lastOffset() >= offset)) {
            rewrite();
        }
    }

    /** Replaces the entries with {@code copy}'s: a compacted segment keeps the aborted transactions of its original. */
    void copyFrom(TransactionIndex copy) {
        entries.clear();
        entries.addAll(copy.entries);
        if (!entries.isEmpty()) {
            rewrite();
        }
    }

    private void rewrite() {
        ByteBuffer buf = ByteBuffer.allocate(entries.size() * ENTRY_SIZE);
        for (AbortedTxn e : entries) {
            buf.putLong(e.producerId()).putLong(e.firstOffset()).putLong(e.lastOffset());
        }
        buf.flip();
        try {
            if (channel == null) {
                channel =
                        files.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            }
            channel.truncate(0);
            long position = 0;
            while (buf.hasRemaining()) {
                position += channel.write(buf, position);
            }
        } catch (IOException e) {
            throw new LogStorageException("Cannot write " + path, e);
        }
    }

    void flush() {
        try {
            if (channel != null) {
                channel.force(true);
            }
        } catch (IOException e) {
            throw new LogStorageException("Cannot fsync " + path, e);
        }
    }

    void renameTo(Path target) {
        try {
            if (Files.exists(path)) {
                Files.move(path, target, StandardCopyOption.ATOMIC_MOVE);
            }
            path = target;
        } catch (IOException e) {
            throw new LogStorageException("Cannot rename " + path, e);
        }
    }

    void close() {
        try {
            if (channel != null) {
                channel.close();
            }
        } catch (IOException e) {
            throw new LogStorageException("Cannot close " + path, e);
        }
    }

    void deleteFile() {
        close();
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            throw new LogStorageException("Cannot delete " + path, e);
        }
    }

    /** The entries with a marker at or after {@code from} and a first offset before {@code upTo}, in marker order. */
    List<AbortedTxn> overlapping(long from, long upTo) {
        List<AbortedTxn> out = new ArrayList<>();
        for (AbortedTxn e : entries) {
            if (e.lastOffset() >= from && e.firstOffset() < upTo) {
                out.add(e);
            }
        }
        return out;
    }
}

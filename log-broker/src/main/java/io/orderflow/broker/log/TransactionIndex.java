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
 * <p><b>Crash behaviour.</b> Append-only: each entry is written at the end of the file and fsynced before its
 * abort marker is written to the segment, so every marker on disk has its entry (a crash between the two leaves an
 * entry without a marker, which recovery removes). After an unclean stop the partition replays the batches after its
 * producer snapshot and rebuilds the entries of the markers it replays ({@link #truncateFrom}, which only shortens the
 * file, then {@link #append} again); entries before the snapshot were fsynced with their markers. Reading stops at the
 * first impossible entry (a marker not after its transaction's first record, or not after the entry before it): a
 * zero-filled or torn tail.
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
                    if (producerId < 0 || first < 0 || last <= first || last <= lastMarker) {
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

    /** Adds the entry at the end of the file and fsyncs it; only then is it listed. */
    void append(AbortedTxn aborted) {
        write(List.of(aborted), (long) entries.size() * ENTRY_SIZE);
        entries.add(aborted);
    }

    /** Forgets the entries whose marker is at or after {@code offset}: recovery replays them again. */
    void truncateFrom(long offset) {
        int keep = 0;
        while (keep < entries.size() && entries.get(keep).lastOffset() < offset) {
            keep++;
        }
        if (keep < entries.size() || fileSize() > (long) keep * ENTRY_SIZE) {
            entries.subList(keep, entries.size()).clear();
            try {
                channel().truncate((long) keep * ENTRY_SIZE);
                channel.force(true);
            } catch (IOException e) {
                throw new LogStorageException("Cannot truncate " + path, e);
            }
        }
    }

    /** Gives a new (compaction output) index the entries of {@code copy}: a compacted segment keeps its aborts. */
    void copyFrom(TransactionIndex copy) {
        if (!copy.entries.isEmpty()) {
            write(copy.entries, (long) entries.size() * ENTRY_SIZE);
            entries.addAll(copy.entries);
        }
    }

    private void write(List<AbortedTxn> added, long position) {
        ByteBuffer buf = ByteBuffer.allocate(added.size() * ENTRY_SIZE);
        for (AbortedTxn e : added) {
            buf.putLong(e.producerId()).putLong(e.firstOffset()).putLong(e.lastOffset());
        }
        buf.flip();
        try {
            FileChannel ch = channel();
            long at = position;
            while (buf.hasRemaining()) {
                at += ch.write(buf, at);
            }
            ch.force(true);
        } catch (IOException e) {
            throw new LogStorageException("Cannot write " + path, e);
        }
    }

    private FileChannel channel() throws IOException {
        if (channel == null) {
            channel = files.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        }
        return channel;
    }

    private long fileSize() {
        try {
            return channel != null ? channel.size() : Files.exists(path) ? Files.size(path) : 0;
        } catch (IOException e) {
            throw new LogStorageException("Cannot read the size of " + path, e);
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

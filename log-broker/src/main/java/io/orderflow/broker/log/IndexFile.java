package io.orderflow.broker.log;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * An append-only file of fixed-size entries, mirrored in memory for lookups. The file holds only whole
 * entries; a torn trailing entry (from a crash) is cut off on open. Index files are derived data: recovery
 * rebuilds them from the segment whenever they might disagree with it, so they never need to be trusted
 * after an unclean stop.
 *
 * <p>Subclasses keep the in-memory copy. Thread-safety: appends come from the single writer of the
 * partition; lookups may run concurrently, so subclasses synchronise on {@code this}.
 */
abstract class IndexFile implements Closeable {
    private final LogFiles files;
    private final int entrySize;
    private Path path;
    private FileChannel channel;
    private int entries;
    private boolean dirty;

    IndexFile(LogFiles files, Path path, int entrySize) {
        this.files = files;
        this.path = path;
        this.entrySize = entrySize;
        try {
            this.channel =
                    files.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            long size = channel.size();
            int whole = (int) (size / entrySize);
            if (size % entrySize != 0) {
                channel.truncate((long) whole * entrySize);
            }
            this.entries = whole;
        } catch (IOException e) {
            throw new LogStorageException("Cannot open index file " + path, e);
        }
    }

    /** Reads every entry into memory; subclasses call it once their own fields exist. */
    protected final void loadEntries() {
        ByteBuffer all = ByteBuffer.allocate(entries * entrySize);
        try {
            while (all.hasRemaining() && channel.read(all, all.position()) >= 0) {
                // read until full
            }
        } catch (IOException e) {
            throw new LogStorageException("Cannot read index file " + path, e);
        }
        for (int i = 0; i < entries; i++) {
            load(i, all, i * entrySize);
        }
    }

    /** Copies entry {@code i}, stored at {@code buf[position]}, into memory. */
    protected abstract void load(int i, ByteBuffer buf, int position);

    protected final synchronized void appendEntry(ByteBuffer entry) {
        try {
            long at = (long) entries * entrySize;
            while (entry.hasRemaining()) {
                at += channel.write(entry, at);
            }
            entries++;
            dirty = true;
        } catch (IOException e) {
            throw new LogStorageException("Cannot append to index file " + path, e);
        }
    }

    public final synchronized int entries() {
        return entries;
    }

    /** Keeps the first {@code n} entries and drops the rest, on disk and in memory. */
    protected final synchronized void truncateEntries(int n) {
        if (n >= entries) {
            return;
        }
        try {
            channel.truncate((long) n * entrySize);
            entries = n;
            dirty = true;
        } catch (IOException e) {
            throw new LogStorageException("Cannot truncate index file " + path, e);
        }
    }

    public final synchronized void flush() {
        if (!dirty) {
            return;
        }
        try {
            channel.force(true);
            dirty = false;
        } catch (IOException e) {
            throw new LogStorageException("Cannot fsync index file " + path, e);
        }
    }

    public final synchronized Path path() {
        return path;
    }

    final synchronized void renameTo(Path target) {
        try {
            Files.move(path, target, StandardCopyOption.ATOMIC_MOVE);
            path = target;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    final synchronized void deleteFile() {
        close();
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            throw new LogStorageException("Cannot delete index file " + path, e);
        }
    }

    @Override
    public final synchronized void close() {
        try {
            if (channel.isOpen()) {
                channel.close();
            }
        } catch (IOException e) {
            throw new LogStorageException("Cannot close index file " + path, e);
        }
    }

    final LogFiles files() {
        return files;
    }
}

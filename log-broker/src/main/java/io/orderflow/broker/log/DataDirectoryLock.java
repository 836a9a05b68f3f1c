package io.orderflow.broker.log;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Exclusive use of a data directory by one broker: an OS file lock on {@code <data dir>/.lock}, as Apache Kafka
 * takes one on each log directory. Two brokers writing one directory would interleave appends, overwrite each
 * other's index and topic files and corrupt both; the second one now fails to start instead.
 *
 * <p>Crash behaviour: the lock belongs to the process, so the operating system releases it when the broker dies,
 * even by {@code kill -9}; the file itself stays and means nothing on its own. Within one JVM (tests that run two
 * brokers in process) the second acquisition fails as well. Thread-safe: acquired once, closed once.
 */
public final class DataDirectoryLock implements AutoCloseable {
    public static final String FILE_NAME = ".lock";

    private final FileChannel channel;
    private final FileLock lock;

    private DataDirectoryLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Locks {@code dataDir}, which must exist.
     *
     * @throws DataDirectoryInUseException when another broker (process or in this JVM) holds it
     * @throws LogStorageException when the lock file cannot be created or locked
     */
    public static DataDirectoryLock acquire(Path dataDir) {
        Path file = dataDir.resolve(FILE_NAME);
        FileChannel channel;
        try {
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new LogStorageException("Cannot create the lock file " + file, e);
        }
        try {
            FileLock lock = channel.tryLock();
            if (lock == null) {
                throw new DataDirectoryInUseException(dataDir);
            }
            return new DataDirectoryLock(channel, lock);
        } catch (OverlappingFileLockException e) {
            closeQuietly(channel);
            throw new DataDirectoryInUseException(dataDir);
        } catch (IOException e) {
            closeQuietly(channel);
            throw new LogStorageException("Cannot lock " + file, e);
        } catch (RuntimeException e) {
            closeQuietly(channel);
            throw e;
        }
    }

    /** Releases the lock; the file stays. */
    @Override
    public void close() {
        try {
            lock.release();
        } catch (IOException e) {
            // closing the channel below releases it as well
        }
        closeQuietly(channel);
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // nothing held any more that could leak
        }
    }
}

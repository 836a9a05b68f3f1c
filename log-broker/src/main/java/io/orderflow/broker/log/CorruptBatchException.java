package io.orderflow.broker.log;

import java.nio.file.Path;

/**
 * Bytes that should be a valid record batch are not: a producer sent a damaged batch, or a segment file was
 * damaged on disk. Never served as data. Maps to CORRUPT_MESSAGE for produce and KAFKA_STORAGE_ERROR for
 * reads.
 */
public final class CorruptBatchException extends LogException {
    private final Path file;
    private final long position;

    public CorruptBatchException(Path file, long position, String problem) {
        super("Corrupt record batch in " + (file == null ? "request" : file) + " at position " + position + ": "
                + problem);
        this.file = file;
        this.position = position;
    }

    /** The segment file, or null when the batch came from a request. */
    public Path file() {
        return file;
    }

    public long position() {
        return position;
    }
}

package io.orderflow.broker.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Hands out producer ids for InitProducerId, never the same one twice, across restarts and crashes. Ids are
 * reserved in blocks: the end of the current block is written durably before any id in it is handed out, and
 * a restart starts a fresh block, so a crash may skip ids but never repeats one.
 *
 * <p>Format: {@code <data>/producer-ids} holds the first id of the next unreserved block, in decimal ASCII,
 * replaced atomically. Thread-safe.
 */
public final class ProducerIds {
    static final int BLOCK = 1000;
    private static final String FILE = "producer-ids";

    private final Path file;
    private final LogFiles files;
    private long next;
    private long blockEnd;

    private ProducerIds(Path dir, LogFiles files, long start) {
        this.file = dir.resolve(FILE);
        this.files = files;
        this.next = start;
        this.blockEnd = start;
    }

    public static ProducerIds open(Path dataDir, LogFiles files) {
        Path file = dataDir.resolve(FILE);
        long start = 0;
        try {
            if (Files.exists(file)) {
                start = Long.parseLong(
                        Files.readString(file, StandardCharsets.US_ASCII).trim());
            }
        } catch (IOException | NumberFormatException e) {
            throw new IllegalStateException("Cannot read " + file + ": " + e.getMessage(), e);
        }
        return new ProducerIds(dataDir, files, start);
    }

    public synchronized long nextId() {
        if (next == blockEnd) {
            reserve(blockEnd + BLOCK);
        }
        return next++;
    }

    private void reserve(long end) {
        Path tmp = file.resolveSibling(FILE + ".tmp");
        try {
            try (FileChannel ch = files.open(
                    tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer buf = ByteBuffer.wrap(Long.toString(end).getBytes(StandardCharsets.US_ASCII));
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
                ch.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
            files.syncDirectory(file.getParent());
            blockEnd = end;
        } catch (IOException e) {
            throw new LogStorageException("Cannot reserve producer ids up to " + end, e);
        }
    }
}

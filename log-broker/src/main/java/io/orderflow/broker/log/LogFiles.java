package io.orderflow.broker.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * How the storage layer opens its files. Production uses the real file system; the power-loss test
 * substitutes channels that forget what was never fsynced.
 */
@FunctionalInterface
public interface LogFiles {
    FileChannel open(Path path, OpenOption... options) throws IOException;

    static LogFiles real() {
        return FileChannel::open;
    }

    /** Makes a directory's entries (new, renamed and deleted files) durable. */
    default void syncDirectory(Path dir) throws IOException {
        try (FileChannel channel = open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    /**
     * Replaces {@code target} with {@code content} so that after a crash or power loss the file holds either the
     * old content or the new, whole: written to a sibling {@code .tmp} file, fsynced, renamed over the target,
     * and the rename made durable.
     */
    default void replace(Path target, ByteBuffer content) throws IOException {
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        try (FileChannel channel =
                open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            long position = 0;
            while (content.hasRemaining()) {
                position += channel.write(content, position);
            }
            channel.force(true);
        }
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        syncDirectory(target.getParent());
    }
}

package io.orderflow.broker.log;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
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
}

package io.orderflow.broker.log;

import java.nio.file.Path;

/** Another broker holds the data directory's lock (see {@link DataDirectoryLock}). */
public final class DataDirectoryInUseException extends LogException {
    public DataDirectoryInUseException(Path dataDir) {
        super("The data directory " + dataDir.toAbsolutePath() + " is in use by another broker (it holds "
                + dataDir.toAbsolutePath().resolve(DataDirectoryLock.FILE_NAME) + "); stop it, or give this one"
                + " another data directory");
    }
}

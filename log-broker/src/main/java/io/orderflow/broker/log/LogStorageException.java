package io.orderflow.broker.log;

import java.io.IOException;

/** The file system failed us (I/O error, disk full). Maps to KAFKA_STORAGE_ERROR. */
public final class LogStorageException extends LogException {
    public LogStorageException(String message, IOException cause) {
        super(message + ": " + cause.getMessage(), cause);
    }
}

package io.orderflow.broker.group;

import io.orderflow.broker.log.LogException;
import io.orderflow.broker.log.LogStorageException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The file system failed the offsets topic's partition (an I/O error, a full disk) while it stored a coordinator
 * operation's records ({@link Step#WRITE}: nothing was written, and the coordinator applied nothing) or while it made
 * them durable ({@link Step#SYNC}: the change is in the coordinator's memory but was never acknowledged). Maps to
 * KAFKA_STORAGE_ERROR; {@code ErrorTable} says why not Kafka's NOT_COORDINATOR.
 */
public final class GroupStorageException extends LogException {
    /** Which half of storing failed. */
    public enum Step {
        WRITE,
        SYNC
    }

    private final Step step;
    private final List<String> groupIds;
    private final String partition;
    private final long offset;

    private GroupStorageException(
            Step step,
            List<String> groupIds,
            String partition,
            long offset,
            String message,
            LogStorageException cause) {
        super(message + ": " + cause.getMessage(), cause);
        this.step = step;
        this.groupIds =
                Collections.unmodifiableList(new ArrayList<>(groupIds)); // a malformed request may hold a null id
        this.partition = partition;
        this.offset = offset;
    }

    /** {@code records} records of {@code groupIds} could not be appended to {@code partition} at {@code offset}. */
    static GroupStorageException writing(
            List<String> groupIds, String partition, long offset, int records, LogStorageException cause) {
        return new GroupStorageException(
                Step.WRITE,
                groupIds,
                partition,
                offset,
                "Cannot write " + records + " record(s) of group(s) " + groupIds + " to " + partition + " at offset "
                        + offset,
                cause);
    }

    /** The records of {@code partition} below {@code endOffset}, which the answer to {@code groupIds} waited for. */
    static GroupStorageException syncing(
            List<String> groupIds, String partition, long endOffset, LogStorageException cause) {
        return new GroupStorageException(
                Step.SYNC,
                groupIds,
                partition,
                endOffset,
                "Cannot make " + partition + " durable up to offset " + endOffset + " for group(s) " + groupIds,
                cause);
    }

    public Step step() {
        return step;
    }

    /** The groups whose request failed. */
    public List<String> groupIds() {
        return groupIds;
    }

    /** The offsets topic's partition, e.g. {@code __consumer_offsets-0}. */
    public String partition() {
        return partition;
    }

    /** For {@link Step#WRITE} the offset the records were to start at; for {@link Step#SYNC} the end offset awaited. */
    public long offset() {
        return offset;
    }
}

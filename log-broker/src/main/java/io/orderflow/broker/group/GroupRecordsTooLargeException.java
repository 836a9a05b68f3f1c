package io.orderflow.broker.group;

import io.orderflow.broker.log.LogException;
import io.orderflow.broker.log.RecordBatchTooLargeException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A coordinator operation's records make a batch larger than the offsets topic's {@code max.message.bytes} (a group
 * whose members' subscriptions and assignments are huge, or an OffsetCommit of very many partitions). Nothing was
 * written or applied. Maps to UNKNOWN_SERVER_ERROR, as Kafka's group coordinator answers it.
 */
public final class GroupRecordsTooLargeException extends LogException {
    private final List<String> groupIds;
    private final String partition;
    private final int records;
    private final int size;
    private final int limit;

    GroupRecordsTooLargeException(
            List<String> groupIds, String partition, int records, RecordBatchTooLargeException cause) {
        super(
                "The " + records + " record(s) of group(s) " + groupIds + " make a batch of " + cause.size()
                        + " bytes, over max.message.bytes=" + cause.limit() + " of " + partition,
                cause);
        this.groupIds =
                Collections.unmodifiableList(new ArrayList<>(groupIds)); // a malformed request may hold a null id
        this.partition = partition;
        this.records = records;
        this.size = cause.size();
        this.limit = cause.limit();
    }

    public List<String> groupIds() {
        return groupIds;
    }

    public String partition() {
        return partition;
    }

    public int records() {
        return records;
    }

    /** The batch's size in bytes. */
    public int size() {
        return size;
    }

    /** The partition's {@code max.message.bytes}. */
    public int limit() {
        return limit;
    }
}

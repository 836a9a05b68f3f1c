package io.orderflow.broker.handler;

import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.log.PartitionLog;
import io.orderflow.broker.log.TimestampOffset;
import java.util.Optional;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;

/**
 * ListOffsets: earliest (-2) is the log start offset, latest (-1) the high watermark (the last stable offset for a
 * {@code read_committed} consumer, from v2), max timestamp (-3) the
 * first record carrying the log's largest timestamp, and a timestamp the first record at or after it (-1 and
 * no timestamp when there is none), as Kafka answers. From v4 each answer carries the leader epoch (always 0 here).
 * Needs DESCRIBE on each topic, checked before its existence; without it its partitions are answered
 * TOPIC_AUTHORIZATION_FAILED.
 */
public final class ListOffsetsHandler implements ApiHandler<ListOffsetsRequest> {
    /** Older answers have no leader epoch field: setting one would make them impossible to encode. */
    private static final short FIRST_VERSION_WITH_LEADER_EPOCH = 4;

    private final LogDirectory logs;
    private final Permissions permissions;

    public ListOffsetsHandler(LogDirectory logs, Permissions permissions) {
        this.logs = logs;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, ListOffsetsRequest request) {
        ListOffsetsResponseData response = new ListOffsetsResponseData();
        boolean committed = request.data().isolationLevel() == IsolationLevel.READ_COMMITTED.id();
        for (ListOffsetsRequestData.ListOffsetsTopic topic : request.data().topics()) {
            ListOffsetsResponseData.ListOffsetsTopicResponse topicResponse =
                    new ListOffsetsResponseData.ListOffsetsTopicResponse().setName(topic.name());
            boolean authorized = permissions.allowsTopic(client, AclOperation.DESCRIBE, topic.name());
            for (ListOffsetsRequestData.ListOffsetsPartition p : topic.partitions()) {
                topicResponse.partitions().add(answer(topic.name(), p, request.version(), authorized, committed));
            }
            response.topics().add(topicResponse);
        }
        return new ListOffsetsResponse(response);
    }

    private ListOffsetsResponseData.ListOffsetsPartitionResponse answer(
            String topic,
            ListOffsetsRequestData.ListOffsetsPartition p,
            short version,
            boolean authorized,
            boolean committed) {
        ListOffsetsResponseData.ListOffsetsPartitionResponse r =
                new ListOffsetsResponseData.ListOffsetsPartitionResponse()
                        .setPartitionIndex(p.partitionIndex())
                        .setTimestamp(-1)
                        .setOffset(-1);
        if (version >= FIRST_VERSION_WITH_LEADER_EPOCH) {
            r.setLeaderEpoch(0);
        }
        if (!authorized) {
            return r.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
        }
        Optional<PartitionLog> found = logs.partition(topic, p.partitionIndex());
        if (found.isEmpty()) {
            return r.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        }
        PartitionLog log = found.get();
        long ts = p.timestamp();
        if (ts == ListOffsetsRequest.EARLIEST_TIMESTAMP || ts == ListOffsetsRequest.EARLIEST_LOCAL_TIMESTAMP) {
            return r.setOffset(log.logStartOffset());
        }
        if (ts == ListOffsetsRequest.LATEST_TIMESTAMP) {
            return r.setOffset(committed ? log.lastStableOffset() : log.highWatermark());
        }
        // A read_committed consumer is never pointed into a transaction still open (at or past the last stable offset).
        long fetchable = committed ? log.lastStableOffset() : log.highWatermark();
        if (ts == ListOffsetsRequest.MAX_TIMESTAMP) {
            TimestampOffset max = log.offsetForTimestamp(log.maxTimestamp());
            return max == null || max.offset() >= fetchable
                    ? r
                    : r.setOffset(max.offset()).setTimestamp(max.timestamp());
        }
        if (ts < 0) {
            return r.setErrorCode(Errors.UNSUPPORTED_VERSION.code());
        }
        TimestampOffset found0 = log.offsetForTimestamp(ts);
        return found0 == null || found0.offset() >= fetchable
                ? r
                : r.setOffset(found0.offset()).setTimestamp(found0.timestamp());
    }
}

package io.orderflow.broker.handler;

import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.log.LogException;
import io.orderflow.broker.log.PartitionLog;
import java.util.Optional;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.DeleteRecordsResponse;

/**
 * DeleteRecords: moves each partition's log start offset up to the requested offset ({@code -1}: the high
 * watermark) and answers the new low watermark; records below it are no longer readable and segments wholly
 * below it are removed ({@link PartitionLog#advanceLogStartOffset}). An offset beyond the high watermark, or
 * negative, is {@code OFFSET_OUT_OF_RANGE}; one below the current start changes nothing. As in Kafka, a topic
 * whose cleanup policy does not delete ({@code compact} only) refuses with {@code POLICY_VIOLATION}. Failed
 * partitions answer a low watermark of -1. Needs DELETE on each topic, checked before its existence: else its
 * partitions are answered TOPIC_AUTHORIZATION_FAILED.
 */
public final class DeleteRecordsHandler implements ApiHandler<DeleteRecordsRequest> {
    private final LogDirectory logs;
    private final Permissions permissions;

    public DeleteRecordsHandler(LogDirectory logs, Permissions permissions) {
        this.logs = logs;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, DeleteRecordsRequest request) {
        DeleteRecordsResponseData response = new DeleteRecordsResponseData();
        for (DeleteRecordsRequestData.DeleteRecordsTopic topic : request.data().topics()) {
            DeleteRecordsResponseData.DeleteRecordsTopicResult topicResult =
                    new DeleteRecordsResponseData.DeleteRecordsTopicResult().setName(topic.name());
            boolean authorized = permissions.allowsTopic(client, AclOperation.DELETE, topic.name());
            for (DeleteRecordsRequestData.DeleteRecordsPartition p : topic.partitions()) {
                topicResult.partitions().add(delete(topic.name(), p, authorized));
            }
            response.topics().add(topicResult);
        }
        return new DeleteRecordsResponse(response);
    }

    private DeleteRecordsResponseData.DeleteRecordsPartitionResult delete(
            String topic, DeleteRecordsRequestData.DeleteRecordsPartition p, boolean authorized) {
        DeleteRecordsResponseData.DeleteRecordsPartitionResult result =
                new DeleteRecordsResponseData.DeleteRecordsPartitionResult()
                        .setPartitionIndex(p.partitionIndex())
                        .setLowWatermark(DeleteRecordsResponse.INVALID_LOW_WATERMARK)
                        .setErrorCode(Errors.NONE.code());
        if (!authorized) {
            return result.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
        }
        Optional<PartitionLog> found = logs.partition(topic, p.partitionIndex());
        if (found.isEmpty()) {
            return result.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        }
        PartitionLog log = found.get();
        try {
            if (!log.config().cleanupPolicy().deletes()) {
                throw new PolicyViolationException(
                        "Records of partition " + log.name() + " cannot be deleted: its cleanup.policy is "
                                + log.config().cleanupPolicy().kafkaName());
            }
            long offset = p.offset() == DeleteRecordsRequest.HIGH_WATERMARK ? log.highWatermark() : p.offset();
            return result.setLowWatermark(log.advanceLogStartOffset(offset));
        } catch (LogException | ApiException e) {
            return result.setErrorCode(ErrorTable.errorFor(e).code());
        }
    }
}

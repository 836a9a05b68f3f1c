package io.orderflow.broker.handler;

import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.log.PartitionLog;
import io.orderflow.broker.log.ProducerState;
import java.util.Optional;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.DescribeProducersResponseData.PartitionResponse;
import org.apache.kafka.common.message.DescribeProducersResponseData.TopicResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeProducersRequest;
import org.apache.kafka.common.requests.DescribeProducersResponse;

/**
 * DescribeProducers ({@code kafka-transactions.sh describe-producers} and {@code find-hanging}): each partition's
 * producers with their epoch, last sequence and timestamp, and the start offset of the transaction each has open
 * there. READ on the topic, else TOPIC_AUTHORIZATION_FAILED; a partition that does not exist is
 * UNKNOWN_TOPIC_OR_PARTITION. The coordinator epoch is always 0: there is one coordinator and it never moves.
 */
public final class DescribeProducersHandler implements ApiHandler<DescribeProducersRequest> {
    private final LogDirectory logs;
    private final Permissions permissions;

    public DescribeProducersHandler(LogDirectory logs, Permissions permissions) {
        this.logs = logs;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, DescribeProducersRequest request) {
        DescribeProducersResponseData response = new DescribeProducersResponseData();
        for (DescribeProducersRequestData.TopicRequest topic : request.data().topics()) {
            TopicResponse topicResponse = new TopicResponse().setName(topic.name());
            response.topics().add(topicResponse);
            boolean authorized = permissions.allowsTopic(client, AclOperation.READ, topic.name());
            for (int index : topic.partitionIndexes()) {
                PartitionResponse partition = new PartitionResponse().setPartitionIndex(index);
                topicResponse.partitions().add(partition);
                Optional<PartitionLog> log = authorized ? logs.partition(topic.name(), index) : Optional.empty();
                if (log.isEmpty()) {
                    partition.setErrorCode(
                            (authorized ? Errors.UNKNOWN_TOPIC_OR_PARTITION : Errors.TOPIC_AUTHORIZATION_FAILED)
                                    .code());
                    continue;
                }
                for (ProducerState p : log.get().producerStates()) {
                    partition
                            .activeProducers()
                            .add(new DescribeProducersResponseData.ProducerState()
                                    .setProducerId(p.producerId())
                                    .setProducerEpoch(p.epoch())
                                    .setLastSequence(p.lastSequence())
                                    .setLastTimestamp(p.lastTimestamp())
                                    .setCoordinatorEpoch(0)
                                    .setCurrentTxnStartOffset(p.currentTxnStartOffset()));
                }
            }
        }
        return new DescribeProducersResponse(response);
    }
}

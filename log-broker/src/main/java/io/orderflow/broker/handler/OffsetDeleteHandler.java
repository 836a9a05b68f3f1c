package io.orderflow.broker.handler;

import io.orderflow.broker.group.BoundedWait;
import io.orderflow.broker.group.GroupCoordinator;
import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.log.Topic;
import java.util.Optional;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestPartition;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopic;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.OffsetDeleteRequest;
import org.apache.kafka.common.requests.OffsetDeleteResponse;

/**
 * OffsetDelete: unknown topics and partitions are answered here, as Kafka does; the coordinator deletes the
 * rest unless the group's members consume the topic (GROUP_SUBSCRIBED_TO_TOPIC).
 */
public final class OffsetDeleteHandler implements ApiHandler<OffsetDeleteRequest> {
    private final GroupCoordinator coordinator;
    private final LogDirectory logs;

    public OffsetDeleteHandler(GroupCoordinator coordinator, LogDirectory logs) {
        this.coordinator = coordinator;
        this.logs = logs;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, OffsetDeleteRequest request) {
        OffsetDeleteResponse.Builder response = new OffsetDeleteResponse.Builder();
        OffsetDeleteRequestTopicCollection known = new OffsetDeleteRequestTopicCollection();
        for (OffsetDeleteRequestTopic topic : request.data().topics()) {
            Optional<Topic> found = logs.topic(topic.name());
            if (found.isEmpty()) {
                response.addPartitions(
                        topic.name(),
                        topic.partitions(),
                        OffsetDeleteRequestPartition::partitionIndex,
                        Errors.UNKNOWN_TOPIC_OR_PARTITION);
                continue;
            }
            OffsetDeleteRequestTopic valid = new OffsetDeleteRequestTopic().setName(topic.name());
            for (OffsetDeleteRequestPartition p : topic.partitions()) {
                if (p.partitionIndex() >= 0 && p.partitionIndex() < found.get().partitions()) {
                    valid.partitions().add(p.duplicate());
                } else {
                    response.addPartition(topic.name(), p.partitionIndex(), Errors.UNKNOWN_TOPIC_OR_PARTITION);
                }
            }
            if (!valid.partitions().isEmpty()) {
                known.add(valid);
            }
        }
        OffsetDeleteRequestData toDelete = new OffsetDeleteRequestData()
                .setGroupId(request.data().groupId())
                .setTopics(known);
        OffsetDeleteResponseData deleted = BoundedWait.await(
                        coordinator.deleteOffsets(toDelete),
                        coordinator.config().offsetCommitTimeoutMs())
                .orElseGet(() -> new OffsetDeleteResponseData().setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code()));
        return response.merge(deleted).build();
    }
}

package io.orderflow.broker.handler;

import io.orderflow.broker.group.BoundedWait;
import io.orderflow.broker.group.GroupCoordinator;
import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.log.Topic;
import java.util.Optional;
import org.apache.kafka.common.acl.AclOperation;
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
 *
 * <p>Authorisation, as Kafka's: DELETE on the group, else the top-level error GROUP_AUTHORIZATION_FAILED; then READ
 * on each topic, checked before its existence, else TOPIC_AUTHORIZATION_FAILED for its partitions.
 */
public final class OffsetDeleteHandler implements ApiHandler<OffsetDeleteRequest> {
    private final GroupCoordinator coordinator;
    private final LogDirectory logs;
    private final Permissions permissions;

    /** Everything allowed, for tests. */
    public OffsetDeleteHandler(GroupCoordinator coordinator, LogDirectory logs) {
        this(coordinator, logs, Permissions.allowAll());
    }

    public OffsetDeleteHandler(GroupCoordinator coordinator, LogDirectory logs, Permissions permissions) {
        this.coordinator = coordinator;
        this.logs = logs;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, OffsetDeleteRequest request) {
        if (!permissions.allowsGroup(client, AclOperation.DELETE, request.data().groupId())) {
            return request.getErrorResponse(Errors.GROUP_AUTHORIZATION_FAILED.exception());
        }
        OffsetDeleteResponse.Builder response = new OffsetDeleteResponse.Builder();
        OffsetDeleteRequestTopicCollection known = new OffsetDeleteRequestTopicCollection();
        for (OffsetDeleteRequestTopic topic : request.data().topics()) {
            if (!permissions.allowsTopic(client, AclOperation.READ, topic.name())) {
                response.addPartitions(
                        topic.name(),
                        topic.partitions(),
                        OffsetDeleteRequestPartition::partitionIndex,
                        Errors.TOPIC_AUTHORIZATION_FAILED);
                continue;
            }
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

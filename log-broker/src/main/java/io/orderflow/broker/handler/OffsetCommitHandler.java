package io.orderflow.broker.handler;

import io.orderflow.broker.group.BoundedWait;
import io.orderflow.broker.group.GroupCoordinator;
import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.log.Topic;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;

/**
 * OffsetCommit: partitions of unknown topics (by name, or by id from v10) are answered here, as Kafka does
 * before its coordinator sees them; the rest is committed by the coordinator, which answers once the offsets
 * are durable in {@code __consumer_offsets}.
 *
 * <p>Authorisation, as Kafka's: READ on the group, else GROUP_AUTHORIZATION_FAILED for every partition; then READ
 * on each topic, checked before its existence, else TOPIC_AUTHORIZATION_FAILED for its partitions. Only the
 * authorised topics' offsets are committed.
 */
public final class OffsetCommitHandler implements ApiHandler<OffsetCommitRequest> {
    private final GroupCoordinator coordinator;
    private final LogDirectory logs;
    private final Permissions permissions;

    /** Everything allowed, for tests. */
    public OffsetCommitHandler(GroupCoordinator coordinator, LogDirectory logs) {
        this(coordinator, logs, Permissions.allowAll());
    }

    public OffsetCommitHandler(GroupCoordinator coordinator, LogDirectory logs, Permissions permissions) {
        this.coordinator = coordinator;
        this.logs = logs;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, OffsetCommitRequest request) {
        OffsetCommitRequestData data = request.data();
        if (!permissions.allowsGroup(client, AclOperation.READ, data.groupId())) {
            return request.getErrorResponse(Errors.GROUP_AUTHORIZATION_FAILED.exception());
        }
        boolean useTopicIds = OffsetCommitResponse.useTopicIds(request.version());
        OffsetCommitResponse.Builder response = OffsetCommitResponse.newBuilder(useTopicIds);
        List<OffsetCommitRequestTopic> known = new ArrayList<>();
        for (OffsetCommitRequestTopic topic : data.topics()) {
            Optional<Topic> found = useTopicIds ? topicById(topic.topicId()) : logs.topic(topic.name());
            // A topic named by an id we do not know has no name to authorise; it stays unknown, as in Kafka.
            String name = useTopicIds ? found.map(Topic::name).orElse(null) : topic.name();
            if (name != null && !permissions.allowsTopic(client, AclOperation.READ, name)) {
                response.addPartitions(
                        topic.topicId(),
                        topic.name(),
                        topic.partitions(),
                        OffsetCommitRequestPartition::partitionIndex,
                        Errors.TOPIC_AUTHORIZATION_FAILED);
                continue;
            }
            if (found.isEmpty()) {
                Errors error = useTopicIds ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION;
                response.addPartitions(
                        topic.topicId(),
                        topic.name(),
                        topic.partitions(),
                        OffsetCommitRequestPartition::partitionIndex,
                        error);
                continue;
            }
            OffsetCommitRequestTopic valid =
                    new OffsetCommitRequestTopic().setName(found.get().name()).setTopicId(topic.topicId());
            for (OffsetCommitRequestPartition p : topic.partitions()) {
                if (p.partitionIndex() >= 0 && p.partitionIndex() < found.get().partitions()) {
                    valid.partitions().add(p.duplicate());
                } else {
                    response.addPartition(
                            topic.topicId(), topic.name(), p.partitionIndex(), Errors.UNKNOWN_TOPIC_OR_PARTITION);
                }
            }
            if (!valid.partitions().isEmpty()) {
                known.add(valid);
            }
        }
        if (known.isEmpty()) {
            return response.build();
        }
        OffsetCommitRequestData toCommit = new OffsetCommitRequestData()
                .setGroupId(data.groupId())
                .setGenerationIdOrMemberEpoch(data.generationIdOrMemberEpoch())
                .setMemberId(data.memberId())
                .setGroupInstanceId(data.groupInstanceId())
                .setRetentionTimeMs(data.retentionTimeMs())
                .setTopics(known);
        return response.merge(BoundedWait.await(
                                coordinator.commitOffsets(toCommit, request.version()),
                                coordinator.config().offsetCommitTimeoutMs())
                        .orElseGet(
                                () -> OffsetCommitRequest.getErrorResponse(toCommit, Errors.COORDINATOR_NOT_AVAILABLE)))
                .build();
    }

    private Optional<Topic> topicById(Uuid id) {
        return id == null || id.equals(Uuid.ZERO_UUID) ? Optional.empty() : logs.topic(BrokerNode.ourId(id));
    }
}

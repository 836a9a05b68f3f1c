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
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopics;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;

/**
 * OffsetFetch, in both shapes: one group with a top-level error (v1-v7) or a batch of groups with an error
 * each (v8+); the request and response codecs convert, the coordinator always sees one group at a time.
 * Null topics ask for every committed partition. From v10 topics are named by id: unknown ids get
 * UNKNOWN_TOPIC_ID, and offsets of topics that no longer exist are left out of "all partitions" answers.
 * Nothing is pending in a transaction here, so {@code require_stable} needs no special care.
 *
 * <p>Authorisation, as Kafka's: DESCRIBE on the group, else GROUP_AUTHORIZATION_FAILED for it; DESCRIBE on each
 * topic, else its named partitions are answered TOPIC_AUTHORIZATION_FAILED, and an "all partitions" answer leaves
 * the topic out.
 */
public final class OffsetFetchHandler implements ApiHandler<OffsetFetchRequest> {
    private final GroupCoordinator coordinator;
    private final LogDirectory logs;
    private final Permissions permissions;

    /** Everything allowed, for tests. */
    public OffsetFetchHandler(GroupCoordinator coordinator, LogDirectory logs) {
        this(coordinator, logs, Permissions.allowAll());
    }

    public OffsetFetchHandler(GroupCoordinator coordinator, LogDirectory logs, Permissions permissions) {
        this.coordinator = coordinator;
        this.logs = logs;
        this.permissions = permissions;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, OffsetFetchRequest request) {
        boolean useTopicIds = OffsetFetchRequest.useTopicIds(request.version());
        List<OffsetFetchResponseGroup> groups = new ArrayList<>();
        for (OffsetFetchRequestGroup group : request.groups()) {
            if (!permissions.allowsGroup(client, AclOperation.DESCRIBE, group.groupId())) {
                groups.add(OffsetFetchResponse.groupError(group, Errors.GROUP_AUTHORIZATION_FAILED, request.version()));
            } else if (useTopicIds) {
                groups.add(fetchByTopicIds(client, group, request));
            } else {
                groups.add(fetchByNames(client, group, request));
            }
        }
        return new OffsetFetchResponse.Builder(groups).build(request.version());
    }

    /** One group's answer; a group error goes on each partition for v1, which has no top-level error. */
    private OffsetFetchResponseGroup fetch(OffsetFetchRequestGroup group, OffsetFetchRequest request) {
        OffsetFetchResponseGroup answer = BoundedWait.await(
                        coordinator.fetchOffsets(group, request.requireStable()),
                        coordinator.config().offsetCommitTimeoutMs())
                .orElseGet(() -> new OffsetFetchResponseGroup().setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code()));
        return answer.errorCode() == Errors.NONE.code()
                ? answer
                : OffsetFetchResponse.groupError(group, Errors.forCode(answer.errorCode()), request.version());
    }

    private OffsetFetchResponseGroup fetchByNames(
            ClientInfo client, OffsetFetchRequestGroup group, OffsetFetchRequest request) {
        if (group.topics() == null) {
            OffsetFetchResponseGroup all = fetch(group, request);
            all.topics().removeIf(t -> !permissions.allowsTopic(client, AclOperation.DESCRIBE, t.name()));
            return all;
        }
        List<OffsetFetchRequestTopics> allowed = new ArrayList<>();
        List<OffsetFetchResponseTopics> refused = new ArrayList<>();
        for (OffsetFetchRequestTopics t : group.topics()) {
            if (permissions.allowsTopic(client, AclOperation.DESCRIBE, t.name())) {
                allowed.add(t);
            } else {
                refused.add(failed(
                        new OffsetFetchResponseTopics().setName(t.name()), t, Errors.TOPIC_AUTHORIZATION_FAILED));
            }
        }
        if (refused.isEmpty()) {
            return fetch(group, request);
        }
        OffsetFetchResponseGroup fetched = fetch(group.duplicate().setTopics(allowed), request);
        if (fetched.errorCode() == Errors.NONE.code()) {
            fetched.topics().addAll(refused);
        }
        return fetched;
    }

    private OffsetFetchResponseGroup fetchByTopicIds(
            ClientInfo client, OffsetFetchRequestGroup group, OffsetFetchRequest request) {
        if (group.topics() == null) {
            OffsetFetchResponseGroup all = fetch(group, request);
            List<OffsetFetchResponseTopics> known = new ArrayList<>();
            for (OffsetFetchResponseTopics t : all.topics()) {
                if (permissions.allowsTopic(client, AclOperation.DESCRIBE, t.name())) {
                    logs.topic(t.name()).ifPresent(topic -> known.add(t.setTopicId(BrokerNode.kafkaId(topic.id()))));
                }
            }
            return all.setTopics(known);
        }
        List<OffsetFetchRequestTopics> named = new ArrayList<>();
        List<OffsetFetchResponseTopics> refused = new ArrayList<>();
        for (OffsetFetchRequestTopics t : group.topics()) {
            Optional<Topic> topic = topicById(t.topicId());
            OffsetFetchResponseTopics answer = new OffsetFetchResponseTopics().setTopicId(t.topicId());
            if (topic.isEmpty()) {
                refused.add(failed(answer, t, Errors.UNKNOWN_TOPIC_ID));
            } else if (!permissions.allowsTopic(
                    client, AclOperation.DESCRIBE, topic.get().name())) {
                refused.add(failed(answer, t, Errors.TOPIC_AUTHORIZATION_FAILED));
            } else {
                named.add(t.duplicate().setName(topic.get().name()));
            }
        }
        OffsetFetchResponseGroup fetched = fetch(group.duplicate().setTopics(named), request);
        if (fetched.errorCode() == Errors.NONE.code()) {
            fetched.topics().addAll(refused);
        }
        return fetched;
    }

    /** {@code answer} with each partition {@code requested} names failed with {@code error}. */
    private static OffsetFetchResponseTopics failed(
            OffsetFetchResponseTopics answer, OffsetFetchRequestTopics requested, Errors error) {
        requested
                .partitionIndexes()
                .forEach(p -> answer.partitions()
                        .add(new OffsetFetchResponsePartitions()
                                .setPartitionIndex(p)
                                .setCommittedOffset(OffsetFetchResponse.INVALID_OFFSET)
                                .setCommittedLeaderEpoch(-1)
                                .setMetadata(OffsetFetchResponse.NO_METADATA)
                                .setErrorCode(error.code())));
        return answer;
    }

    private Optional<Topic> topicById(Uuid id) {
        return id == null || id.equals(Uuid.ZERO_UUID) ? Optional.empty() : logs.topic(BrokerNode.ourId(id));
    }
}

package io.orderflow.broker.handler;

import io.orderflow.broker.group.BoundedWait;
import io.orderflow.broker.group.GroupCoordinator;
import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.log.Topic;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
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
 */
public final class OffsetFetchHandler implements ApiHandler<OffsetFetchRequest> {
    private final GroupCoordinator coordinator;
    private final LogDirectory logs;

    public OffsetFetchHandler(GroupCoordinator coordinator, LogDirectory logs) {
        this.coordinator = coordinator;
        this.logs = logs;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, OffsetFetchRequest request) {
        boolean useTopicIds = OffsetFetchRequest.useTopicIds(request.version());
        List<OffsetFetchResponseGroup> groups = new ArrayList<>();
        for (OffsetFetchRequestGroup group : request.groups()) {
            groups.add(useTopicIds ? fetchByTopicIds(group, request.version()) : fetch(group, request.version()));
        }
        return new OffsetFetchResponse.Builder(groups).build(request.version());
    }

    /** One group's answer; a group error goes on each partition for v1, which has no top-level error. */
    private OffsetFetchResponseGroup fetch(OffsetFetchRequestGroup group, short version) {
        OffsetFetchResponseGroup answer = BoundedWait.await(
                        coordinator.fetchOffsets(group), coordinator.config().offsetCommitTimeoutMs())
                .orElseGet(() -> new OffsetFetchResponseGroup().setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code()));
        return answer.errorCode() == Errors.NONE.code()
                ? answer
                : OffsetFetchResponse.groupError(group, Errors.forCode(answer.errorCode()), version);
    }

    private OffsetFetchResponseGroup fetchByTopicIds(OffsetFetchRequestGroup group, short version) {
        if (group.topics() == null) {
            OffsetFetchResponseGroup all = fetch(group, version);
            List<OffsetFetchResponseTopics> known = new ArrayList<>();
            for (OffsetFetchResponseTopics t : all.topics()) {
                logs.topic(t.name()).ifPresent(topic -> known.add(t.setTopicId(BrokerNode.kafkaId(topic.id()))));
            }
            return all.setTopics(known);
        }
        List<OffsetFetchRequestTopics> named = new ArrayList<>();
        List<OffsetFetchResponseTopics> unknown = new ArrayList<>();
        for (OffsetFetchRequestTopics t : group.topics()) {
            Optional<Topic> topic = topicById(t.topicId());
            if (topic.isPresent()) {
                named.add(t.duplicate().setName(topic.get().name()));
            } else {
                OffsetFetchResponseTopics missing = new OffsetFetchResponseTopics().setTopicId(t.topicId());
                t.partitionIndexes()
                        .forEach(p -> missing.partitions()
                                .add(new OffsetFetchResponsePartitions()
                                        .setPartitionIndex(p)
                                        .setCommittedOffset(OffsetFetchResponse.INVALID_OFFSET)
                                        .setCommittedLeaderEpoch(-1)
                                        .setMetadata(OffsetFetchResponse.NO_METADATA)
                                        .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code())));
                unknown.add(missing);
            }
        }
        OffsetFetchResponseGroup fetched = fetch(group.duplicate().setTopics(named), version);
        if (fetched.errorCode() == Errors.NONE.code()) {
            fetched.topics().addAll(unknown);
        }
        return fetched;
    }

    private Optional<Topic> topicById(Uuid id) {
        return id == null || id.equals(Uuid.ZERO_UUID) ? Optional.empty() : logs.topic(BrokerNode.ourId(id));
    }
}

package io.orderflow.ops.replay;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Moves a consumer group's committed offsets back, with the Admin API only, so that it runs on any Kafka-protocol
 * broker (ours, Apache Kafka): what {@code kafka-consumer-groups --reset-offsets --execute} does, minus its trap.
 *
 * <p><b>The trap.</b> Offsets are only reset in a group without members: a live consumer would keep reading from
 * where it is and commit over the reset. {@code kafka-consumer-groups} prints "Assignments can only be reset if the
 * group is inactive" and still exits 0. Here the steps are separate and each fails loudly: {@link #awaitEmpty} waits
 * for the group to be Empty (DescribeGroups) and throws {@link GroupStillActiveException}, naming the members, if it
 * is not in time; {@link #plan} reads committed offsets (OffsetFetch), log start and end offsets and, for a time,
 * the first offset at or after it (ListOffsets); {@link #reset} commits the plan's targets (OffsetCommit, as an
 * admin: generation -1, no member, which both brokers refuse in a group that has members again) and reads them
 * back, throwing {@link ResetNotVerifiedException} if they differ. A replay never moves a partition forward
 * ({@link PartitionRewind}).
 *
 * <p><b>Crash behaviour.</b> One OffsetCommit carries every partition, and a broker applies it whole or not at all; if
 * this process dies before it, nothing changed, and after it the read-back is all that is missing: running the same
 * replay again is safe.
 *
 * <p>Not thread-safe: one replay at a time. The {@link Admin} is the caller's.
 */
public final class GroupRewind {

    private static final Duration POLL = Duration.ofMillis(200);

    private final Admin admin;
    private final Duration requestTimeout;

    /** @param requestTimeout how long each Admin call may take before the replay fails */
    public GroupRewind(Admin admin, Duration requestTimeout) {
        this.admin = admin;
        this.requestTimeout = requestTimeout;
    }

    /**
     * Returns once {@code group} is Empty, checking every 200 ms.
     *
     * @throws GroupStillActiveException if it still has members after {@code timeout}
     * @throws ReplayException if there is no such group
     */
    public void awaitEmpty(String group, Duration timeout) throws ReplayException, InterruptedException {
        long started = System.nanoTime();
        while (true) {
            ConsumerGroupDescription description = describe(group);
            if (description.groupState() == GroupState.EMPTY) {
                return;
            }
            Duration waited = Duration.ofNanos(System.nanoTime() - started);
            if (waited.compareTo(timeout) >= 0) {
                throw new GroupStillActiveException(
                        group,
                        description.groupState().toString(),
                        description.members().stream().map(GroupRewind::member).toList(),
                        timeout);
            }
            Thread.sleep(Math.min(POLL.toMillis(), timeout.minus(waited).toMillis() + 1));
        }
    }

    /**
     * The group's state now, as DescribeGroups answers.
     *
     * @throws ReplayException if there is no such group
     */
    public ConsumerGroupDescription describe(String group) throws ReplayException, InterruptedException {
        ConsumerGroupDescription description;
        try {
            description = get(admin.describeConsumerGroups(List.of(group))
                    .describedGroups()
                    .get(group));
        } catch (ReplayException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                throw unknownGroup(group);
            }
            throw e;
        }
        if (description.groupState() == GroupState.DEAD) {
            throw unknownGroup(group);
        }
        return description;
    }

    /**
     * Every partition of {@code topics}: the group's committed offset, the log end offset, and where {@code start}
     * falls at {@code now}; a time after the last record resolves to the log end offset, as in {@code
     * kafka-consumer-groups}. Changes nothing.
     *
     * @throws ReplayException if a topic does not exist
     */
    public ReplayPlan plan(String group, List<String> topics, ReplayStart start, Instant now)
            throws ReplayException, InterruptedException {
        List<TopicPartition> partitions = partitions(topics);
        Map<TopicPartition, OffsetAndMetadata> committed = committed(group);
        Map<TopicPartition, ListOffsetsResultInfo> ends = offsets(partitions, OffsetSpec.latest());
        Map<TopicPartition, ListOffsetsResultInfo> starts = offsets(partitions, start.offsetSpec(now));
        List<PartitionRewind> rewinds = new ArrayList<>();
        for (TopicPartition partition : partitions) {
            OffsetAndMetadata offset = committed.get(partition);
            long end = ends.get(partition).offset();
            long found = starts.get(partition).offset();
            rewinds.add(new PartitionRewind(
                    partition,
                    offset == null ? PartitionRewind.NONE : offset.offset(),
                    found < 0 ? end : found, // no record at or after the time: the end, as the CLI does
                    end));
        }
        List<String> untouched = committed.keySet().stream()
                .map(TopicPartition::topic)
                .filter(topic -> !topics.contains(topic))
                .collect(Collectors.toCollection(TreeSet::new))
                .stream()
                .toList();
        return new ReplayPlan(group, start.describe(now), rewinds, untouched);
    }

    /**
     * Every partition of {@code topics}, in topic and partition order.
     *
     * @throws ReplayException if a topic does not exist
     */
    public List<TopicPartition> partitions(List<String> topics) throws ReplayException, InterruptedException {
        Map<String, TopicDescription> described;
        try {
            described = get(admin.describeTopics(topics).allTopicNames());
        } catch (ReplayException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                throw new ReplayException("no topic among " + topics + " on the broker: "
                        + e.getCause().getMessage());
            }
            throw e;
        }
        List<TopicPartition> partitions = new ArrayList<>();
        for (String topic : topics) {
            described.get(topic).partitions().forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
        }
        return partitions;
    }

    /**
     * Commits the plan's targets for its group, then reads the group's committed offsets back.
     *
     * @throws ResetNotVerifiedException if what was read back differs from the targets
     * @throws ReplayException if the broker refused the commit (the group has members again, say)
     */
    public void reset(ReplayPlan plan) throws ReplayException, InterruptedException {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        plan.targets().forEach((partition, target) -> offsets.put(partition, new OffsetAndMetadata(target)));
        try {
            get(admin.alterConsumerGroupOffsets(plan.group(), offsets).all());
        } catch (ReplayException e) {
            throw new ReplayException(
                    "the broker refused the new offsets of consumer group " + plan.group() + ": " + e.getMessage()
                            + ". Does the group have members again?",
                    e);
        }
        Map<TopicPartition, OffsetAndMetadata> readBack = committed(plan.group());
        Map<TopicPartition, Long> found = new HashMap<>();
        boolean same = true;
        for (Map.Entry<TopicPartition, Long> target : plan.targets().entrySet()) {
            OffsetAndMetadata offset = readBack.get(target.getKey());
            long value = offset == null ? PartitionRewind.NONE : offset.offset();
            found.put(target.getKey(), value);
            same &= value == target.getValue();
        }
        if (!same) {
            throw new ResetNotVerifiedException(plan.group(), plan.targets(), found);
        }
    }

    /**
     * The partitions of the plan whose committed offset is still below the log end offset the plan saw, with how many
     * records each still has to go: empty once the group has read everything the replay gave it.
     */
    public Map<TopicPartition, Long> behind(ReplayPlan plan) throws ReplayException, InterruptedException {
        Map<TopicPartition, OffsetAndMetadata> committed = committed(plan.group());
        Map<TopicPartition, Long> behind = new HashMap<>();
        for (PartitionRewind partition : plan.partitions()) {
            OffsetAndMetadata offset = committed.get(partition.partition());
            long at = offset == null ? partition.target() : offset.offset();
            if (at < partition.end()) {
                behind.put(partition.partition(), partition.end() - at);
            }
        }
        return behind;
    }

    /** The group's committed offsets (partitions without one left out). */
    private Map<TopicPartition, OffsetAndMetadata> committed(String group)
            throws ReplayException, InterruptedException {
        Map<TopicPartition, OffsetAndMetadata> committed = new HashMap<>();
        get(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata())
                .forEach((partition, offset) -> {
                    if (offset != null) {
                        committed.put(partition, offset);
                    }
                });
        return committed;
    }

    private Map<TopicPartition, ListOffsetsResultInfo> offsets(List<TopicPartition> partitions, OffsetSpec spec)
            throws ReplayException, InterruptedException {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        partitions.forEach(p -> request.put(p, spec));
        return get(admin.listOffsets(request).all());
    }

    /** {@code kafka-consumer-groups --describe --members}' view of a member. */
    private static String member(MemberDescription member) {
        return member.consumerId() + " (client " + member.clientId() + " on " + member.host() + ", partitions "
                + member.assignment().topicPartitions().stream()
                        .map(TopicPartition::toString)
                        .sorted()
                        .collect(Collectors.joining(", "))
                + ")";
    }

    private static ReplayException unknownGroup(String group) {
        return new ReplayException("no consumer group " + group + " on the broker (kafka-consumer-groups --list lists"
                + " them; the services' groups are inventory-service, notification-service and analytics-service)");
    }

    private <T> T get(KafkaFuture<T> future) throws ReplayException, InterruptedException {
        try {
            return future.get(requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new ReplayException(e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new ReplayException("the broker did not answer within " + requestTimeout, e);
        }
    }
}

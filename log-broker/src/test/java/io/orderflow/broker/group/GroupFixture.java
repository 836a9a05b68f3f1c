package io.orderflow.broker.group;

import io.orderflow.broker.log.LogConfig;
import io.orderflow.broker.log.LogFiles;
import io.orderflow.broker.log.ManualClock;
import io.orderflow.broker.log.PartitionLog;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.protocol.Errors;

/**
 * Drives a {@link GroupCoordinator} without sockets: a manual clock, the offsets log in a temporary directory
 * (fsyncs run inline), and {@link TestMember}s that speak JoinGroup/SyncGroup/Heartbeat/LeaveGroup the way a
 * Kafka consumer does. {@link #advance} moves time and ticks.
 */
final class GroupFixture implements AutoCloseable {
    static final long T0 = 1_700_000_000_000L;
    static final Executor INLINE = Runnable::run;

    final ManualClock clock = new ManualClock(T0);
    private final Path dir;
    private final GroupCoordinatorConfig config;
    private final LogConfig logConfig;
    private final LogFiles files;
    private PartitionLog log;
    private GroupCoordinator coordinator;
    /** The broker's topics as KIP-848 groups see them; tests add and grow them. */
    private final java.util.Map<String, io.orderflow.broker.log.Topic> topics =
            new java.util.concurrent.ConcurrentSkipListMap<>();

    private GroupFixture(Path dir, GroupCoordinatorConfig config, LogConfig logConfig, LogFiles files) {
        this.dir = dir;
        this.config = config;
        this.logConfig = logConfig;
        this.files = files;
        open();
    }

    static Builder builder(Path dir) {
        return new Builder(dir);
    }

    static final class Builder {
        private final Path dir;
        private GroupCoordinatorConfig config =
                GroupCoordinatorConfig.defaults().withInitialRebalanceDelayMs(0);
        private LogConfig logConfig;
        private LogFiles files = LogFiles.real();

        private Builder(Path dir) {
            this.dir = dir;
        }

        Builder initialRebalanceDelayMs(int ms) {
            config = config.withInitialRebalanceDelayMs(ms);
            return this;
        }

        Builder config(GroupCoordinatorConfig config) {
            this.config = config;
            return this;
        }

        /** Opens the offsets log with this configuration instead of {@link GroupStore#openLog}'s. */
        Builder logConfig(LogConfig logConfig) {
            this.logConfig = logConfig;
            return this;
        }

        /** Opens the offsets log's files through {@code files}, e.g. to make its writes fail. */
        Builder files(LogFiles files) {
            this.files = files;
            return this;
        }

        GroupFixture build() {
            return new GroupFixture(dir, config, logConfig, files);
        }
    }

    private void open() {
        log = logConfig == null
                ? GroupStore.openLog(dir, clock, files, INLINE)
                : PartitionLog.open(
                        GroupStore.TOPIC + "-0", dir.resolve(GroupStore.TOPIC + "-0"), logConfig, clock, files, INLINE);
        coordinator = new GroupCoordinator(log, config, clock, () -> List.copyOf(topics.values()));
    }

    /** Creates a topic (or changes its partition count), keeping its id; returns the id. */
    java.util.UUID topic(String name, int partitions) {
        io.orderflow.broker.log.Topic old = topics.get(name);
        java.util.UUID id = old == null ? java.util.UUID.randomUUID() : old.id();
        topics.put(
                name,
                new io.orderflow.broker.log.Topic(
                        name, id, partitions, java.util.Map.of(), io.orderflow.broker.log.LogConfig.defaults()));
        return id;
    }

    void deleteTopic(String name) {
        topics.remove(name);
    }

    GroupCoordinator coordinator() {
        return coordinator;
    }

    PartitionLog log() {
        return log;
    }

    /** Closes the offsets log and starts a new coordinator on it, as a broker restart does. */
    void restart() {
        log.close();
        open();
    }

    /** Starts a new coordinator on the log without closing it: what a crash leaves (every append was fsynced). */
    void crashAndRestart() {
        open();
    }

    void advance(long ms) {
        clock.advance(ms);
        coordinator.tick();
    }

    void tick() {
        coordinator.tick();
    }

    TestMember member(String groupId, String clientId) {
        return new TestMember(this, groupId, clientId, null);
    }

    TestMember staticMember(String groupId, String clientId, String instanceId) {
        return new TestMember(this, groupId, clientId, instanceId);
    }

    GroupState state(String groupId) {
        return coordinator.groupState(groupId).orElse(GroupState.DEAD);
    }

    DescribedGroup describe(String groupId) {
        return get(coordinator.describeGroups(List.of(groupId))).getFirst();
    }

    /** A simple commit (generation -1, no member), as {@code kafka-consumer-groups --reset-offsets} sends. */
    Errors simpleCommit(String groupId, String topic, int partition, long offset, String metadata) {
        return commit(groupId, -1, "", topic, partition, offset, metadata);
    }

    Errors commit(
            String groupId,
            int generation,
            String memberId,
            String topic,
            int partition,
            long offset,
            String metadata) {
        OffsetCommitRequestData request = new OffsetCommitRequestData()
                .setGroupId(groupId)
                .setGenerationIdOrMemberEpoch(generation)
                .setMemberId(memberId)
                .setTopics(List.of(new OffsetCommitRequestTopic()
                        .setName(topic)
                        .setPartitions(List.of(new OffsetCommitRequestPartition()
                                .setPartitionIndex(partition)
                                .setCommittedOffset(offset)
                                .setCommittedMetadata(metadata)))));
        OffsetCommitResponseData response = get(coordinator.commitOffsets(request, (short) 9));
        return Errors.forCode(
                response.topics().getFirst().partitions().getFirst().errorCode());
    }

    /** The committed partition as OffsetFetch returns it. */
    OffsetFetchResponsePartitions fetch(String groupId, String topic, int partition) {
        OffsetFetchResponseGroup response = get(coordinator.fetchOffsets(new OffsetFetchRequestGroup()
                .setGroupId(groupId)
                .setTopics(List.of(
                        new OffsetFetchRequestTopics().setName(topic).setPartitionIndexes(List.of(partition))))));
        return response.topics().getFirst().partitions().getFirst();
    }

    OffsetFetchResponseGroup fetchAll(String groupId) {
        return get(coordinator.fetchOffsets(
                new OffsetFetchRequestGroup().setGroupId(groupId).setTopics(null)));
    }

    /** Consumer protocol metadata subscribing to {@code topics}, as a Kafka consumer sends it. */
    static byte[] subscription(String... topics) {
        return bytes(
                ConsumerProtocol.serializeSubscription(new ConsumerPartitionAssignor.Subscription(List.of(topics))));
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    /** Waits briefly for a future the coordinator should already have completed. */
    static <T> T get(CompletableFuture<T> future) {
        try {
            return future.get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("future did not complete: " + e, e);
        }
    }

    static Map<String, byte[]> assignment(Object... memberIdAndText) {
        Map<String, byte[]> out = new java.util.LinkedHashMap<>();
        for (int i = 0; i < memberIdAndText.length; i += 2) {
            out.put((String) memberIdAndText[i], utf8((String) memberIdAndText[i + 1]));
        }
        return out;
    }

    static List<String> memberIds(DescribedGroup group) {
        List<String> ids = new ArrayList<>();
        group.members().forEach(m -> ids.add(m.memberId()));
        return ids;
    }

    @Override
    public void close() {
        log.close();
    }
}

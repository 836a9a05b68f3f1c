package io.orderflow.broker.group;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.orderflow.broker.handler.ErrorTable;
import io.orderflow.broker.handler.HeartbeatHandler;
import io.orderflow.broker.handler.JoinGroupHandler;
import io.orderflow.broker.handler.OffsetCommitHandler;
import io.orderflow.broker.handler.RequestDispatcher;
import io.orderflow.broker.handler.RequestFaults;
import io.orderflow.broker.handler.SyncGroupHandler;
import io.orderflow.broker.log.ForwardingFileChannel;
import io.orderflow.broker.log.LogConfig;
import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.log.LogFiles;
import io.orderflow.broker.network.ConnectionThreads;
import io.orderflow.broker.network.NetworkLimits;
import io.orderflow.broker.network.SocketServer;
import io.orderflow.frames.WireClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData.SyncGroupRequestAssignment;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's storage failing under a request, behind the real socket server and dispatcher: the offsets log's
 * segment writes are made to throw. A bug (a plain {@link RuntimeException} out of the store) while storing an
 * OffsetCommit, a new group's JoinGroup and a leader's SyncGroup is answered UNKNOWN_SERVER_ERROR once, in the
 * request's own error fields, counted and logged with its stack trace by {@link RequestFaults}; nothing of the failed
 * write is applied, and the same connection answers the next request. A failing disk is the typed {@link
 * GroupStorageException}, answered KAFKA_STORAGE_ERROR and counted; a closed coordinator answers NOT_COORDINATOR, no
 * fault; a group's records over {@code max.message.bytes} are {@link GroupRecordsTooLargeException}.
 */
class CoordinatorStorageFailuresTest {
    private static final RuntimeException BUG = new RuntimeException("injected bug: the offsets log's write threw");

    @TempDir
    Path dir;

    private final FailingWrites files = new FailingWrites();
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private final Logger faultLog = (Logger) LoggerFactory.getLogger(RequestFaults.class);
    private GroupFixture fixture;
    private LogDirectory logs;
    private RequestFaults faults;
    private SocketServer server;
    private WireClient client;
    private int correlationId;

    @BeforeEach
    void start() throws IOException {
        fixture = GroupFixture.builder(dir.resolve("offsets")).files(files).build();
        logs = LogDirectory.open(
                dir.resolve("data"), LogConfig.defaults(), fixture.clock, LogFiles.real(), GroupFixture.INLINE);
        logs.createTopic("orders", 1, Map.of());
        faults = new RequestFaults(fixture.clock);
        logged.start();
        faultLog.addAppender(logged);
        GroupCoordinator coordinator = fixture.coordinator();
        RequestDispatcher dispatcher = RequestDispatcher.builder()
                .register(ApiKeys.JOIN_GROUP, 9, new JoinGroupHandler(coordinator))
                .register(ApiKeys.SYNC_GROUP, 5, new SyncGroupHandler(coordinator))
                .register(ApiKeys.HEARTBEAT, 4, new HeartbeatHandler(coordinator))
                .register(ApiKeys.OFFSET_COMMIT, 2, 10, new OffsetCommitHandler(coordinator, logs))
                .register(
                        ApiKeys.CONSUMER_GROUP_HEARTBEAT,
                        0,
                        1,
                        new io.orderflow.broker.handler.ConsumerGroupHeartbeatHandler(coordinator))
                .faults(faults)
                .build();
        server = SocketServer.bind(
                new InetSocketAddress("127.0.0.1", 0), new NetworkLimits(1024 * 1024, 100), ConnectionThreads.VIRTUAL);
        server.start(dispatcher);
        client = WireClient.connect(server.port());
    }

    @AfterEach
    void stop() throws IOException {
        files.heal();
        client.close();
        server.close();
        faultLog.detachAppender(logged);
        logs.close();
        fixture.close();
    }

    /**
     * Sends {@code data} as {@code api} at {@code version} on the test's one connection and reads the answer. The
     * reader checks the correlation id, so an extra answer to an earlier request would fail the next call.
     */
    @SuppressWarnings("unchecked")
    private <R extends ApiMessage> R send(ApiKeys api, ApiMessage data, int version) throws IOException {
        short v = (short) version;
        AbstractRequest request =
                AbstractRequest.parseRequest(api, v, MessageUtil.toByteBufferAccessor(data, v)).request;
        RequestHeader header = client.send(request, ++correlationId);
        return (R) client.receive(header).data();
    }

    private static OffsetCommitRequestData commit(String groupId, long offset) {
        return new OffsetCommitRequestData()
                .setGroupId(groupId)
                .setGenerationIdOrMemberEpoch(-1)
                .setMemberId("")
                .setTopics(List.of(new OffsetCommitRequestTopic()
                        .setName("orders")
                        .setPartitions(List.of(new OffsetCommitRequestPartition()
                                .setPartitionIndex(0)
                                .setCommittedOffset(offset)
                                .setCommittedMetadata("")))));
    }

    private static List<Errors> errors(OffsetCommitResponseData response) {
        List<Errors> errors = new ArrayList<>();
        response.topics().forEach(t -> t.partitions().forEach(p -> errors.add(Errors.forCode(p.errorCode()))));
        return errors;
    }

    /** The one fault recorded: its count under (api, version, handle) and its one log line, with the stack trace. */
    private void assertOneFault(ApiKeys api, int version, Class<?> type, String... messageParts) {
        assertThat(faults.counts())
                .containsExactly(
                        Map.entry(new RequestFaults.Key(api, (short) version, RequestFaults.Stage.HANDLE), 1L));
        assertThat(logged.list).singleElement().satisfies(e -> {
            assertThat(e.getKeyValuePairs())
                    .extracting(kv -> kv.key + "=" + kv.value)
                    .contains("api=" + api.name, "version=" + version, "stage=handle");
            assertThat(e.getThrowableProxy().getClassName()).isEqualTo(type.getName());
            assertThat(e.getThrowableProxy().getMessage()).contains(messageParts);
            assertThat(e.getThrowableProxy().getStackTraceElementProxyArray()).isNotEmpty();
        });
    }

    @Test
    void aBugWhileStoringOffsetsIsAnsweredOnceAsUnknownServerErrorCountedLoggedAndTheConnectionLives()
            throws IOException {
        files.failWith(BUG);
        OffsetCommitResponseData failed = send(ApiKeys.OFFSET_COMMIT, commit("g-offsets", 42), 9);
        files.heal();

        assertThat(errors(failed)).containsExactly(Errors.UNKNOWN_SERVER_ERROR);
        assertOneFault(ApiKeys.OFFSET_COMMIT, 9, RuntimeException.class, "injected bug");
        assertThat(fixture.fetch("g-offsets", "orders", 0).committedOffset())
                .as("nothing of the failed write is applied")
                .isEqualTo(-1);

        OffsetCommitResponseData next = send(ApiKeys.OFFSET_COMMIT, commit("g-offsets", 42), 9);
        assertThat(errors(next)).containsExactly(Errors.NONE);
        assertThat(fixture.fetch("g-offsets", "orders", 0).committedOffset()).isEqualTo(42);
        assertThat(faults.counts()).hasSize(1);
    }

    private static org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData consumerJoin(String memberId) {
        return new org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData()
                .setGroupId("g-kip848")
                .setMemberId(memberId)
                .setMemberEpoch(0)
                .setRebalanceTimeoutMs(10_000)
                .setSubscribedTopicNames(List.of("orders"))
                .setTopicPartitions(List.of());
    }

    @Test
    void aBugWhileStoringAConsumerGroupChangeFailsTheHeartbeatOnceAndLeavesTheGroupAsItWas() throws IOException {
        fixture.topic("orders", 2);
        files.failWith(BUG);
        org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData failed =
                send(ApiKeys.CONSUMER_GROUP_HEARTBEAT, consumerJoin("a"), 1);
        files.heal();
        assertThat(Errors.forCode(failed.errorCode())).isEqualTo(Errors.UNKNOWN_SERVER_ERROR);
        assertOneFault(ApiKeys.CONSUMER_GROUP_HEARTBEAT, 1, RuntimeException.class, "injected bug");
        assertThat(GroupFixture.get(fixture.coordinator().consumerGroupDescribe(List.of("g-kip848")))
                        .getFirst()
                        .errorCode())
                .as("the unwritten group is dropped")
                .isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());

        org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData joined =
                send(ApiKeys.CONSUMER_GROUP_HEARTBEAT, consumerJoin("a"), 1);
        assertThat(joined.memberEpoch()).isEqualTo(1);

        files.failWith(new IOException("No space left on device"));
        org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData second =
                send(ApiKeys.CONSUMER_GROUP_HEARTBEAT, consumerJoin("b"), 1);
        files.heal();
        // not KAFKA_STORAGE_ERROR, which the KIP-848 consumer takes as fatal (see ErrorTable)
        assertThat(Errors.forCode(second.errorCode())).isEqualTo(Errors.NOT_COORDINATOR);
        var group = GroupFixture.get(fixture.coordinator().consumerGroupDescribe(List.of("g-kip848")))
                .getFirst();
        assertThat(group.groupEpoch()).as("the failed join moved nothing").isEqualTo(1);
        assertThat(group.members()).extracting(m -> m.memberId()).containsExactly("a");
    }

    @Test
    void aLeaveThatCannotBeWrittenKeepsTheMemberUntilItsSessionRunsOut() throws IOException {
        fixture.topic("orders", 2);
        send(ApiKeys.CONSUMER_GROUP_HEARTBEAT, consumerJoin("a"), 1);
        send(ApiKeys.CONSUMER_GROUP_HEARTBEAT, consumerJoin("b"), 1);
        files.failWith(new IOException("No space left on device"));
        org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData failed = send(
                ApiKeys.CONSUMER_GROUP_HEARTBEAT,
                new org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData()
                        .setGroupId("g-kip848")
                        .setMemberId("b")
                        .setMemberEpoch(-1),
                1);
        files.heal();
        assertThat(Errors.forCode(failed.errorCode())).isEqualTo(Errors.NOT_COORDINATOR);
        assertThat(GroupFixture.get(fixture.coordinator().consumerGroupDescribe(List.of("g-kip848")))
                        .getFirst()
                        .members())
                .hasSize(2);
        // b never comes back; a keeps heartbeating. b's session, re-armed by the rollback, expires.
        for (int i = 0; i < 10; i++) {
            fixture.advance(5000);
            send(
                    ApiKeys.CONSUMER_GROUP_HEARTBEAT,
                    new org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData()
                            .setGroupId("g-kip848")
                            .setMemberId("a")
                            .setMemberEpoch(
                                    GroupFixture.get(fixture.coordinator().consumerGroupDescribe(List.of("g-kip848")))
                                            .getFirst()
                                            .members()
                                            .stream()
                                            .filter(m -> m.memberId().equals("a"))
                                            .findFirst()
                                            .orElseThrow()
                                            .memberEpoch())
                            .setTopicPartitions(List.of()), // it gives up at once whatever it is asked to revoke
                    1);
        }
        assertThat(GroupFixture.get(fixture.coordinator().consumerGroupDescribe(List.of("g-kip848")))
                        .getFirst()
                        .members())
                .extracting(m -> m.memberId())
                .containsExactly("a");
    }

    @Test
    void aBugWhileStoringANewGroupFailsItsJoinGroupOnceAndForgetsTheGroup() throws IOException {
        JoinGroupRequestData join = fixture.member("g-join", "consumer-1").joinRequest();
        files.failWith(BUG);
        JoinGroupResponseData failed = send(ApiKeys.JOIN_GROUP, join, 9);
        files.heal();

        assertThat(Errors.forCode(failed.errorCode())).isEqualTo(Errors.UNKNOWN_SERVER_ERROR);
        assertOneFault(ApiKeys.JOIN_GROUP, 9, RuntimeException.class, "injected bug");
        assertThat(fixture.state("g-join")).as("the unwritten group is dropped").isEqualTo(GroupState.DEAD);

        JoinGroupResponseData next = send(ApiKeys.JOIN_GROUP, join, 9);
        assertThat(Errors.forCode(next.errorCode())).isEqualTo(Errors.MEMBER_ID_REQUIRED);
        assertThat(fixture.state("g-join")).isEqualTo(GroupState.EMPTY);
    }

    @Test
    void aBugWhileStoringTheLeadersAssignmentFailsEveryWaitingSyncGroupAndTheGroupRebalances() throws IOException {
        TestMember a = fixture.member("g-sync", "consumer-a");
        TestMember b = fixture.member("g-sync", "consumer-b");
        CompletableFuture<JoinGroupResponseData> ja = a.join();
        CompletableFuture<JoinGroupResponseData> jb = b.join();
        fixture.tick();
        GroupFixture.get(ja);
        GroupFixture.get(jb);
        TestMember leader = a.isLeader() ? a : b;
        TestMember follower = leader == a ? b : a;
        CompletableFuture<SyncGroupResponseData> followerSync = follower.sendSync();

        files.failWith(BUG);
        SyncGroupResponseData failed = send(
                ApiKeys.SYNC_GROUP,
                new SyncGroupRequestData()
                        .setGroupId("g-sync")
                        .setGenerationId(leader.generation)
                        .setMemberId(leader.memberId)
                        .setProtocolType("consumer")
                        .setProtocolName("range")
                        .setAssignments(List.of(
                                new SyncGroupRequestAssignment()
                                        .setMemberId(leader.memberId)
                                        .setAssignment(GroupFixture.utf8("orders-0")),
                                new SyncGroupRequestAssignment()
                                        .setMemberId(follower.memberId)
                                        .setAssignment(GroupFixture.utf8("")))),
                5);
        files.heal();

        assertThat(Errors.forCode(failed.errorCode())).isEqualTo(Errors.UNKNOWN_SERVER_ERROR);
        assertThat(followerSync)
                .as("the follower waiting for the assignment fails with the same failure")
                .failsWithin(Duration.ofSeconds(10))
                .withThrowableThat()
                .withCause(BUG);
        assertOneFault(ApiKeys.SYNC_GROUP, 5, RuntimeException.class, "injected bug");
        assertThat(fixture.state("g-sync")).isEqualTo(GroupState.PREPARING_REBALANCE);

        HeartbeatResponseData next = send(
                ApiKeys.HEARTBEAT,
                new HeartbeatRequestData()
                        .setGroupId("g-sync")
                        .setGenerationId(leader.generation)
                        .setMemberId(leader.memberId),
                4);
        assertThat(Errors.forCode(next.errorCode())).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
    }

    @Test
    void aFailingDiskIsAKafkaStorageErrorNamingTheGroupPartitionAndOffset() throws IOException {
        files.failWith(new IOException("No space left on device"));
        OffsetCommitResponseData failed = send(ApiKeys.OFFSET_COMMIT, commit("g-disk", 7), 9);
        files.heal();

        assertThat(errors(failed)).containsExactly(Errors.KAFKA_STORAGE_ERROR);
        assertOneFault(
                ApiKeys.OFFSET_COMMIT,
                9,
                GroupStorageException.class,
                "[g-disk]",
                "__consumer_offsets-0 at offset 0",
                "No space left on device");
        assertThat(errors(send(ApiKeys.OFFSET_COMMIT, commit("g-disk", 7), 9))).containsExactly(Errors.NONE);
    }

    @Test
    void aClosedCoordinatorAnswersNotCoordinatorWhichIsNoFault() throws IOException {
        fixture.coordinator().close();

        OffsetCommitResponseData answer = send(ApiKeys.OFFSET_COMMIT, commit("g-closed", 3), 9);

        assertThat(errors(answer)).containsExactly(Errors.NOT_COORDINATOR);
        assertThat(faults.counts()).isEmpty();
        assertThat(logged.list).isEmpty();
    }

    @Test
    void recordsOverTheOffsetsTopicsMessageLimitAreGroupRecordsTooLarge() {
        LogConfig tiny = LogConfig.defaults().with(Map.of(LogConfig.MAX_MESSAGE_BYTES, "200"));
        try (GroupFixture small =
                GroupFixture.builder(dir.resolve("small")).logConfig(tiny).build()) {
            OffsetCommitRequestData request = commit("g-large", 1);
            request.topics().getFirst().partitions().getFirst().setCommittedMetadata("m".repeat(1000));

            assertThat(small.coordinator().commitOffsets(request, (short) 9))
                    .failsWithin(Duration.ofSeconds(10))
                    .withThrowableThat()
                    .havingCause()
                    .isInstanceOf(GroupRecordsTooLargeException.class)
                    .withMessageContaining("[g-large]")
                    .withMessageContaining("max.message.bytes=200 of __consumer_offsets-0")
                    .satisfies(e -> assertThat(ErrorTable.errorFor(e)).isEqualTo(Errors.UNKNOWN_SERVER_ERROR));
            assertThat(small.fetch("g-large", "orders", 0).committedOffset()).isEqualTo(-1);
        }
    }

    /**
     * The offsets log's files, whose segment writes throw what {@link #failWith} armed until {@link #heal}; the
     * write throws before it writes anything.
     */
    private static final class FailingWrites implements LogFiles {
        private volatile Exception failure;

        void failWith(Exception e) {
            failure = e;
        }

        void heal() {
            failure = null;
        }

        @Override
        public FileChannel open(Path path, OpenOption... options) throws IOException {
            FileChannel channel = FileChannel.open(path, options);
            if (!path.getFileName().toString().endsWith(".log")) {
                return channel;
            }
            return new ForwardingFileChannel(channel) {
                @Override
                public int write(ByteBuffer src, long position) throws IOException {
                    Exception e = failure;
                    if (e instanceof IOException io) {
                        throw io;
                    }
                    if (e instanceof RuntimeException runtime) {
                        throw runtime;
                    }
                    return super.write(src, position);
                }
            };
        }
    }
}

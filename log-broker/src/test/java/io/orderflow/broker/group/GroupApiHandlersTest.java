package io.orderflow.broker.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.broker.handler.ApiHandler;
import io.orderflow.broker.handler.BrokerNode;
import io.orderflow.broker.handler.ClientInfo;
import io.orderflow.broker.handler.DeleteGroupsHandler;
import io.orderflow.broker.handler.DescribeGroupsHandler;
import io.orderflow.broker.handler.FindCoordinatorHandler;
import io.orderflow.broker.handler.HeartbeatHandler;
import io.orderflow.broker.handler.JoinGroupHandler;
import io.orderflow.broker.handler.LeaveGroupHandler;
import io.orderflow.broker.handler.ListGroupsHandler;
import io.orderflow.broker.handler.OffsetCommitHandler;
import io.orderflow.broker.handler.OffsetDeleteHandler;
import io.orderflow.broker.handler.OffsetFetchHandler;
import io.orderflow.broker.handler.SyncGroupHandler;
import io.orderflow.broker.log.LogConfig;
import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.log.LogFiles;
import io.orderflow.broker.log.Topic;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestPartition;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopic;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopic;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData.SyncGroupRequestAssignment;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The group API handlers at every version the codec knows: each request is encoded and decoded as it would
 * arrive, and each response encoded and decoded as a client would read it, so a field a version cannot carry
 * fails here rather than in a client.
 */
class GroupApiHandlersTest {
    private static final ClientInfo CLIENT = new ClientInfo("conn-1", "consumer-1", "/127.0.0.1:53412");
    private static final BrokerNode NODE = new BrokerNode(1, "broker.local", 9092, "cluster");

    @TempDir
    Path dir;

    private GroupFixture fixture;
    private LogDirectory logs;
    private Topic orders;

    @BeforeEach
    void setUp() {
        fixture = GroupFixture.builder(dir.resolve("offsets")).build();
        logs = LogDirectory.open(
                dir.resolve("data"), LogConfig.defaults(), fixture.clock, LogFiles.real(), GroupFixture.INLINE);
        orders = logs.createTopic("orders", 3, Map.of());
    }

    @AfterEach
    void tearDown() {
        logs.close();
        fixture.close();
    }

    /** Sends {@code data} through {@code handler} as version {@code v} would travel, both ways. */
    @SuppressWarnings("unchecked")
    private static <Q extends AbstractRequest, R extends ApiMessage> R call(
            ApiHandler<Q> handler, ApiKeys api, ApiMessage data, int v) {
        short version = (short) v;
        Q request =
                (Q) AbstractRequest.parseRequest(api, version, MessageUtil.toByteBufferAccessor(data, version)).request;
        AbstractResponse response = handler.handle(CLIENT, request);
        return (R)
                AbstractResponse.parseResponse(api, MessageUtil.toByteBufferAccessor(response.data(), version), version)
                        .data();
    }

    /** As {@link #call}, for a request the coordinator parks until a tick completes it. */
    private <Q extends AbstractRequest, R extends ApiMessage> R callParked(
            ApiHandler<Q> handler, ApiKeys api, ApiMessage data, int v) {
        CompletableFuture<R> answer = CompletableFuture.supplyAsync(() -> call(handler, api, data, v));
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(5))
                .until(() -> {
                    fixture.tick();
                    return answer.isDone();
                });
        return answer.join();
    }

    private static JoinGroupRequestData join(String groupId, String memberId) {
        JoinGroupRequestProtocolCollection protocols = new JoinGroupRequestProtocolCollection();
        protocols.add(new JoinGroupRequestProtocol().setName("range").setMetadata(GroupFixture.subscription("orders")));
        return new JoinGroupRequestData()
                .setGroupId(groupId)
                .setMemberId(memberId)
                .setSessionTimeoutMs(10_000)
                .setRebalanceTimeoutMs(30_000)
                .setProtocolType("consumer")
                .setProtocols(protocols);
    }

    @Test
    void aConsumerJoinsSyncsHeartbeatsAndLeavesAtEveryVersion() {
        GroupCoordinator coordinator = fixture.coordinator();
        JoinGroupHandler joinHandler = new JoinGroupHandler(coordinator);
        for (int v = 0; v <= ApiKeys.JOIN_GROUP.latestVersion(); v++) {
            String group = "g" + v;
            String memberId = "";
            if (v >= 4) {
                JoinGroupResponseData first = call(joinHandler, ApiKeys.JOIN_GROUP, join(group, ""), v);
                assertThat(first.errorCode()).isEqualTo(Errors.MEMBER_ID_REQUIRED.code());
                memberId = first.memberId();
            }
            JoinGroupResponseData joined = callParked(joinHandler, ApiKeys.JOIN_GROUP, join(group, memberId), v);
            assertThat(joined.errorCode()).as("JoinGroup v%d", v).isZero();
            assertThat(joined.memberId()).startsWith("consumer-1-");
            assertThat(joined.leader()).isEqualTo(joined.memberId());
            assertThat(joined.generationId()).isEqualTo(1);
            assertThat(joined.members()).hasSize(1);
            memberId = joined.memberId();

            int sv = Math.min(v, ApiKeys.SYNC_GROUP.latestVersion());
            SyncGroupRequestData sync = new SyncGroupRequestData()
                    .setGroupId(group)
                    .setGenerationId(1)
                    .setMemberId(memberId)
                    .setAssignments(List.of(new SyncGroupRequestAssignment()
                            .setMemberId(memberId)
                            .setAssignment(GroupFixture.utf8("orders-0"))));
            if (sv >= 5) {
                sync.setProtocolType("consumer").setProtocolName("range");
            }
            SyncGroupResponseData synced = call(new SyncGroupHandler(coordinator), ApiKeys.SYNC_GROUP, sync, sv);
            assertThat(synced.errorCode()).as("SyncGroup v%d", sv).isZero();
            assertThat(GroupFixture.utf8(synced.assignment())).isEqualTo("orders-0");

            int hv = Math.min(v, ApiKeys.HEARTBEAT.latestVersion());
            HeartbeatResponseData beat = call(
                    new HeartbeatHandler(coordinator),
                    ApiKeys.HEARTBEAT,
                    new HeartbeatRequestData()
                            .setGroupId(group)
                            .setGenerationId(1)
                            .setMemberId(memberId),
                    hv);
            assertThat(beat.errorCode()).as("Heartbeat v%d", hv).isZero();

            assertThat(fixture.describe(group).members().getFirst().clientHost())
                    .isEqualTo("/127.0.0.1");

            int lv = Math.min(v, ApiKeys.LEAVE_GROUP.latestVersion());
            LeaveGroupRequestData leave = new LeaveGroupRequestData().setGroupId(group);
            if (lv >= 3) {
                leave.setMembers(List.of(new MemberIdentity().setMemberId(memberId)));
            } else {
                leave.setMemberId(memberId);
            }
            LeaveGroupResponseData left = call(new LeaveGroupHandler(coordinator), ApiKeys.LEAVE_GROUP, leave, lv);
            assertThat(left.errorCode()).as("LeaveGroup v%d", lv).isZero();
            if (lv >= 3) {
                assertThat(left.members().getFirst().errorCode()).isZero();
            }
            assertThat(fixture.state(group)).isEqualTo(GroupState.EMPTY);
        }
    }

    @Test
    void offsetsCommittedAtEveryVersionAreFetchedAtEveryVersion() {
        GroupCoordinator coordinator = fixture.coordinator();
        OffsetCommitHandler commitHandler = new OffsetCommitHandler(coordinator, logs);
        OffsetFetchHandler fetchHandler = new OffsetFetchHandler(coordinator, logs);
        Uuid ordersId =
                new Uuid(orders.id().getMostSignificantBits(), orders.id().getLeastSignificantBits());
        for (int v = ApiKeys.OFFSET_COMMIT.oldestVersion(); v <= ApiKeys.OFFSET_COMMIT.latestVersion(); v++) {
            boolean ids = v >= 10;
            OffsetCommitRequestData commit = new OffsetCommitRequestData()
                    .setGroupId("tools")
                    .setGenerationIdOrMemberEpoch(-1)
                    .setMemberId("")
                    .setTopics(List.of(
                            new OffsetCommitRequestTopic()
                                    .setName(ids ? "" : "orders")
                                    .setTopicId(ids ? ordersId : Uuid.ZERO_UUID)
                                    .setPartitions(List.of(
                                            new OffsetCommitRequestPartition()
                                                    .setPartitionIndex(1)
                                                    .setCommittedOffset(100 + v)
                                                    .setCommittedMetadata("v" + v),
                                            new OffsetCommitRequestPartition()
                                                    .setPartitionIndex(7)
                                                    .setCommittedOffset(1))),
                            new OffsetCommitRequestTopic()
                                    .setName(ids ? "" : "nope")
                                    .setTopicId(ids ? Uuid.randomUuid() : Uuid.ZERO_UUID)
                                    .setPartitions(List.of(new OffsetCommitRequestPartition()
                                            .setPartitionIndex(0)
                                            .setCommittedOffset(1)))));

            OffsetCommitResponseData committed = call(commitHandler, ApiKeys.OFFSET_COMMIT, commit, v);

            assertThat(committed.topics()).hasSize(2);
            var ordersResponse = committed.topics().stream()
                    .filter(t -> ids ? t.topicId().equals(ordersId) : t.name().equals("orders"))
                    .findFirst()
                    .orElseThrow();
            assertThat(ordersResponse.partitions())
                    .extracting(p -> Errors.forCode(p.errorCode()))
                    .as("OffsetCommit v%d", v)
                    .containsExactlyInAnyOrder(Errors.NONE, Errors.UNKNOWN_TOPIC_OR_PARTITION);
            var unknown = committed.topics().stream()
                    .filter(t -> t != ordersResponse)
                    .findFirst()
                    .orElseThrow();
            assertThat(unknown.partitions().getFirst().errorCode())
                    .isEqualTo((ids ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION).code());

            for (int fv = ApiKeys.OFFSET_FETCH.oldestVersion(); fv <= ApiKeys.OFFSET_FETCH.latestVersion(); fv++) {
                assertFetched(fetchHandler, fv, ordersId, 100 + v, "v" + v);
            }
        }
    }

    private static void assertFetched(OffsetFetchHandler handler, int v, Uuid ordersId, long offset, String metadata) {
        OffsetFetchRequestData request = new OffsetFetchRequestData();
        if (v < 8) {
            request.setGroupId("tools")
                    .setTopics(List.of(
                            new OffsetFetchRequestTopic().setName("orders").setPartitionIndexes(List.of(1))));
        } else {
            request.setGroups(List.of(new OffsetFetchRequestGroup()
                    .setGroupId("tools")
                    .setTopics(List.of(new OffsetFetchRequestTopics()
                            .setName(v >= 10 ? "" : "orders")
                            .setTopicId(v >= 10 ? ordersId : Uuid.ZERO_UUID)
                            .setPartitionIndexes(List.of(1))))));
        }
        OffsetFetchResponseData response = call(handler, ApiKeys.OFFSET_FETCH, request, v);
        if (v < 8) {
            var p = response.topics().getFirst().partitions().getFirst();
            assertThat(p.committedOffset()).as("OffsetFetch v%d", v).isEqualTo(offset);
            assertThat(p.metadata()).isEqualTo(metadata);
        } else {
            var group = response.groups().getFirst();
            assertThat(group.errorCode()).isZero();
            var p = group.topics().getFirst().partitions().getFirst();
            assertThat(p.committedOffset()).as("OffsetFetch v%d", v).isEqualTo(offset);
            assertThat(p.metadata()).isEqualTo(metadata);
            if (v >= 10) {
                assertThat(group.topics().getFirst().topicId()).isEqualTo(ordersId);
            }
        }
        if (v >= 2) {
            OffsetFetchRequestData all = v < 8
                    ? new OffsetFetchRequestData().setGroupId("tools").setTopics(null)
                    : new OffsetFetchRequestData()
                            .setGroups(List.of(new OffsetFetchRequestGroup()
                                    .setGroupId("tools")
                                    .setTopics(null)));
            OffsetFetchResponseData everything = call(handler, ApiKeys.OFFSET_FETCH, all, v);
            long fetched = v < 8
                    ? everything.topics().getFirst().partitions().getFirst().committedOffset()
                    : everything
                            .groups()
                            .getFirst()
                            .topics()
                            .getFirst()
                            .partitions()
                            .getFirst()
                            .committedOffset();
            assertThat(fetched).as("OffsetFetch v%d of all partitions", v).isEqualTo(offset);
        }
    }

    @Test
    void thisBrokerCoordinatesEveryGroupAtEveryVersion() {
        FindCoordinatorHandler handler = new FindCoordinatorHandler(NODE);
        for (int v = 0; v <= ApiKeys.FIND_COORDINATOR.latestVersion(); v++) {
            FindCoordinatorRequestData request = v < 4
                    ? new FindCoordinatorRequestData().setKey("g")
                    : new FindCoordinatorRequestData().setCoordinatorKeys(List.of("g", "h"));
            FindCoordinatorResponseData response = call(handler, ApiKeys.FIND_COORDINATOR, request, v);
            if (v < 4) {
                assertThat(response.errorCode()).isZero();
                assertThat(response.nodeId()).isEqualTo(1);
                assertThat(response.host()).isEqualTo("broker.local");
                assertThat(response.port()).isEqualTo(9092);
            } else {
                assertThat(response.coordinators()).hasSize(2).allSatisfy(c -> {
                    assertThat(c.errorCode()).isZero();
                    assertThat(c.nodeId()).isEqualTo(1);
                    assertThat(c.port()).isEqualTo(9092);
                });
            }
        }
        FindCoordinatorResponseData share = call(
                handler,
                ApiKeys.FIND_COORDINATOR,
                new FindCoordinatorRequestData().setKeyType((byte) 2).setCoordinatorKeys(List.of("s")),
                6);
        assertThat(share.coordinators().getFirst().errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
    }

    @Test
    void groupsAreListedDescribedAndDeletedAtEveryVersion() {
        GroupCoordinator coordinator = fixture.coordinator();
        for (int v = 0; v <= ApiKeys.DELETE_GROUPS.latestVersion(); v++) {
            fixture.simpleCommit("tools-" + v, "orders", 0, 1, "");
        }

        for (int v = 0; v <= ApiKeys.LIST_GROUPS.latestVersion(); v++) {
            ListGroupsRequestData request = new ListGroupsRequestData();
            if (v >= 4) {
                request.setStatesFilter(List.of("empty"));
            }
            ListGroupsResponseData listed = call(new ListGroupsHandler(coordinator), ApiKeys.LIST_GROUPS, request, v);
            assertThat(listed.groups())
                    .as("ListGroups v%d", v)
                    .extracting(g -> g.groupId())
                    .contains("tools-0");
            if (v >= 4) {
                assertThat(listed.groups().getFirst().groupState()).isEqualTo("Empty");
            }
        }

        for (int v = 0; v <= ApiKeys.DESCRIBE_GROUPS.latestVersion(); v++) {
            DescribeGroupsRequestData request = new DescribeGroupsRequestData().setGroups(List.of("tools-0", "none"));
            if (v >= 3) {
                request.setIncludeAuthorizedOperations(true);
            }
            DescribeGroupsResponseData described =
                    call(new DescribeGroupsHandler(coordinator), ApiKeys.DESCRIBE_GROUPS, request, v);
            assertThat(described.groups())
                    .as("DescribeGroups v%d", v)
                    .extracting(g -> g.groupState())
                    .containsExactly("Empty", "Dead");
            if (v >= 3) {
                assertThat(described.groups().getFirst().authorizedOperations()).isPositive();
            }
        }

        OffsetDeleteRequestTopicCollection topics = new OffsetDeleteRequestTopicCollection();
        topics.add(new OffsetDeleteRequestTopic()
                .setName("orders")
                .setPartitions(List.of(new OffsetDeleteRequestPartition().setPartitionIndex(0))));
        topics.add(new OffsetDeleteRequestTopic()
                .setName("nope")
                .setPartitions(List.of(new OffsetDeleteRequestPartition().setPartitionIndex(0))));
        OffsetDeleteResponseData offsetsDeleted = call(
                new OffsetDeleteHandler(coordinator, logs),
                ApiKeys.OFFSET_DELETE,
                new OffsetDeleteRequestData().setGroupId("tools-0").setTopics(topics),
                0);
        assertThat(offsetsDeleted.errorCode()).isZero();
        assertThat(offsetsDeleted.topics().find("orders").partitions().find(0).errorCode())
                .isZero();
        assertThat(offsetsDeleted.topics().find("nope").partitions().find(0).errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        assertThat(fixture.fetch("tools-0", "orders", 0).committedOffset()).isEqualTo(-1);

        for (int v = 0; v <= ApiKeys.DELETE_GROUPS.latestVersion(); v++) {
            DeleteGroupsResponseData deleted = call(
                    new DeleteGroupsHandler(coordinator),
                    ApiKeys.DELETE_GROUPS,
                    new DeleteGroupsRequestData().setGroupsNames(List.of("tools-" + v, "none")),
                    v);
            assertThat(deleted.results().find("tools-" + v).errorCode())
                    .as("DeleteGroups v%d", v)
                    .isZero();
            assertThat(deleted.results().find("none").errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
            assertThat(fixture.state("tools-" + v)).isEqualTo(GroupState.DEAD);
        }
    }
}

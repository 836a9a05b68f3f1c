package io.orderflow.broker.server;

import static io.orderflow.broker.server.VersionedExchanges.COMMITTED_GROUP;
import static io.orderflow.broker.server.VersionedExchanges.COMMITTED_OFFSET;
import static io.orderflow.broker.server.VersionedExchanges.TOPIC;
import static io.orderflow.broker.server.VersionedExchanges.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.broker.server.VersionedExchanges.Case;
import io.orderflow.broker.server.VersionedExchanges.Exchange;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DeleteGroupsResponse;
import org.apache.kafka.common.requests.DescribeGroupsResponse;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.HeartbeatResponse;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.LeaveGroupResponse;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.OffsetDeleteResponse;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.apache.kafka.common.requests.SyncGroupResponse;

/**
 * The group APIs' part of {@link VersionedExchanges}: a member that joins, syncs, heartbeats and leaves, offsets
 * committed and fetched by topic name or id, and groups found, listed, described and deleted, each at the version
 * under test, over TCP.
 */
final class GroupExchanges {
    private static final byte[] ASSIGNMENT = "matrix-0".getBytes(StandardCharsets.UTF_8);

    private final TestBroker broker;
    private final int port;

    GroupExchanges(TestBroker broker, int port) {
        this.broker = broker;
        this.port = port;
    }

    void addTo(Map<ApiKeys, Case> cases) {
        cases.put(ApiKeys.FIND_COORDINATOR, this::findCoordinator);
        cases.put(ApiKeys.JOIN_GROUP, this::joinGroup);
        cases.put(ApiKeys.SYNC_GROUP, this::syncGroup);
        cases.put(ApiKeys.HEARTBEAT, this::heartbeat);
        cases.put(ApiKeys.LEAVE_GROUP, this::leaveGroup);
        cases.put(ApiKeys.OFFSET_COMMIT, this::offsetCommit);
        cases.put(ApiKeys.OFFSET_FETCH, this::offsetFetch);
        cases.put(ApiKeys.LIST_GROUPS, this::listGroups);
        cases.put(ApiKeys.DESCRIBE_GROUPS, this::describeGroups);
        cases.put(ApiKeys.DELETE_GROUPS, this::deleteGroups);
        cases.put(ApiKeys.OFFSET_DELETE, this::offsetDelete);
        cases.put(ApiKeys.CONSUMER_GROUP_HEARTBEAT, this::consumerGroupHeartbeat);
        cases.put(ApiKeys.CONSUMER_GROUP_DESCRIBE, this::consumerGroupDescribe);
    }

    private static org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData consumerJoin(
            String group, String memberId) {
        return new org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData()
                .setGroupId(group)
                .setMemberId(memberId)
                .setMemberEpoch(0)
                .setRebalanceTimeoutMs(10_000)
                .setSubscribedTopicNames(List.of(TOPIC))
                .setTopicPartitions(List.of());
    }

    /** A KIP-848 member joins (v0 lets the coordinator pick its id), heartbeats at its epoch and leaves. */
    private List<Exchange> consumerGroupHeartbeat(short v) {
        String group = "matrix-cg-heartbeat-v" + v;
        AtomicReference<String> memberId =
                new AtomicReference<>(v >= 1 ? Uuid.randomUuid().toString() : "");
        List<Exchange> exchanges = new ArrayList<>();
        exchanges.add(new Exchange(
                () -> request(ApiKeys.CONSUMER_GROUP_HEARTBEAT, consumerJoin(group, memberId.get()), v), r -> {
                    var response = ((org.apache.kafka.common.requests.ConsumerGroupHeartbeatResponse) r).data();
                    assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.NONE);
                    assertThat(response.memberEpoch()).isEqualTo(1);
                    assertThat(response.heartbeatIntervalMs()).isPositive();
                    assertThat(response.assignment().topicPartitions())
                            .singleElement()
                            .satisfies(tp -> {
                                assertThat(tp.topicId()).isEqualTo(topicId());
                                assertThat(tp.partitions()).isNotEmpty();
                            });
                    if (v >= 1) {
                        assertThat(response.memberId()).isEqualTo(memberId.get());
                    }
                    memberId.set(response.memberId());
                }));
        exchanges.add(new Exchange(
                () -> request(
                        ApiKeys.CONSUMER_GROUP_HEARTBEAT,
                        new org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData()
                                .setGroupId(group)
                                .setMemberId(memberId.get())
                                .setMemberEpoch(1),
                        v),
                r -> {
                    var response = ((org.apache.kafka.common.requests.ConsumerGroupHeartbeatResponse) r).data();
                    assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.NONE);
                    assertThat(response.memberEpoch()).isEqualTo(1);
                    assertThat(response.assignment()).as("nothing changed").isNull();
                }));
        exchanges.add(new Exchange(
                () -> request(
                        ApiKeys.CONSUMER_GROUP_HEARTBEAT,
                        new org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData()
                                .setGroupId(group)
                                .setMemberId(memberId.get())
                                .setMemberEpoch(-1),
                        v),
                r -> {
                    var response = ((org.apache.kafka.common.requests.ConsumerGroupHeartbeatResponse) r).data();
                    assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.NONE);
                    assertThat(response.memberEpoch()).isEqualTo(-1);
                }));
        return exchanges;
    }

    /** A consumer group with one member is described with it; a classic group is sent to DescribeGroups. */
    private List<Exchange> consumerGroupDescribe(short v) {
        String group = "matrix-cg-describe-v" + v;
        String memberId = Uuid.randomUuid().toString();
        List<Exchange> exchanges = new ArrayList<>();
        exchanges.add(new Exchange(
                () -> request(ApiKeys.CONSUMER_GROUP_HEARTBEAT, consumerJoin(group, memberId), (short) 1), r -> {
                    var response = ((org.apache.kafka.common.requests.ConsumerGroupHeartbeatResponse) r).data();
                    assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.NONE);
                }));
        var request = new org.apache.kafka.common.message.ConsumerGroupDescribeRequestData()
                .setGroupIds(List.of(group, COMMITTED_GROUP))
                .setIncludeAuthorizedOperations(true);
        exchanges.add(new Exchange(() -> request(ApiKeys.CONSUMER_GROUP_DESCRIBE, request, v), r -> {
            var groups = ((org.apache.kafka.common.requests.ConsumerGroupDescribeResponse) r)
                    .data()
                    .groups();
            assertThat(groups).hasSize(2);
            assertThat(groups.get(0)).satisfies(g -> {
                assertThat(Errors.forCode(g.errorCode())).isEqualTo(Errors.NONE);
                assertThat(g.groupState()).isEqualTo("Stable");
                assertThat(g.groupEpoch()).isEqualTo(1);
                assertThat(g.assignorName()).isEqualTo("uniform");
                assertThat(g.authorizedOperations()).isPositive();
                assertThat(g.members()).singleElement().satisfies(m -> {
                    assertThat(m.memberId()).isEqualTo(memberId);
                    assertThat(m.subscribedTopicNames()).containsExactly(TOPIC);
                    assertThat(m.assignment().topicPartitions())
                            .singleElement()
                            .satisfies(tp -> assertThat(tp.topicName()).isEqualTo(TOPIC));
                    assertThat(m.memberType()).isEqualTo((byte) (v >= 1 ? 1 : -1));
                });
            });
            assertThat(Errors.forCode(groups.get(1).errorCode())).isEqualTo(Errors.GROUP_ID_NOT_FOUND);
        }));
        return exchanges;
    }

    private Uuid topicId() {
        return LogContents.topicId(broker.broker(), TOPIC);
    }

    private static JoinGroupRequestData join(String group, String memberId) {
        var protocols = new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
        protocols.add(new JoinGroupRequestData.JoinGroupRequestProtocol()
                .setName("range")
                .setMetadata(new byte[] {0, 1}));
        return new JoinGroupRequestData()
                .setGroupId(group)
                .setMemberId(memberId)
                .setSessionTimeoutMs(10_000)
                .setRebalanceTimeoutMs(10_000)
                .setProtocolType("consumer")
                .setProtocols(protocols);
    }

    /**
     * Joins {@code group} as its only member at JoinGroup {@code v} (asking for a member id first where the version
     * wants one) and checks the answer; {@code memberId} holds the id after.
     */
    private static void joinAt(List<Exchange> exchanges, String group, short v, AtomicReference<String> memberId) {
        if (v >= 4) {
            exchanges.add(new Exchange(request(ApiKeys.JOIN_GROUP, join(group, ""), v), r -> {
                var response = ((JoinGroupResponse) r).data();
                assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.MEMBER_ID_REQUIRED);
                assertThat(response.memberId()).isNotEmpty();
                memberId.set(response.memberId());
            }));
        }
        exchanges.add(new Exchange(() -> request(ApiKeys.JOIN_GROUP, join(group, memberId.get()), v), r -> {
            var response = ((JoinGroupResponse) r).data();
            assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.NONE);
            assertThat(response.generationId()).isEqualTo(1);
            assertThat(response.leader()).isEqualTo(response.memberId());
            assertThat(response.protocolName()).isEqualTo("range");
            if (v >= 7) {
                assertThat(response.protocolType()).isEqualTo("consumer");
            }
            assertThat(response.members()).singleElement().satisfies(m -> {
                assertThat(m.memberId()).isEqualTo(response.memberId());
                assertThat(m.metadata()).containsExactly(0, 1);
            });
            memberId.set(response.memberId());
        }));
    }

    private static SyncGroupRequestData sync(String group, String memberId, short v) {
        SyncGroupRequestData data = new SyncGroupRequestData()
                .setGroupId(group)
                .setGenerationId(1)
                .setMemberId(memberId)
                .setAssignments(List.of(new SyncGroupRequestData.SyncGroupRequestAssignment()
                        .setMemberId(memberId)
                        .setAssignment(ASSIGNMENT)));
        if (v >= 5) {
            data.setProtocolType("consumer").setProtocolName("range");
        }
        return data;
    }

    /** A member of a new group that has joined and synced at the newest versions; its id in {@code memberId}. */
    private static List<Exchange> member(String group, AtomicReference<String> memberId) {
        List<Exchange> exchanges = new ArrayList<>();
        joinAt(exchanges, group, ApiKeys.JOIN_GROUP.latestVersion(), memberId);
        exchanges.add(new Exchange(
                () -> request(ApiKeys.SYNC_GROUP, sync(group, memberId.get(), (short) 5), (short) 5),
                r -> assertThat(((SyncGroupResponse) r).data().errorCode()).isZero()));
        return exchanges;
    }

    private List<Exchange> findCoordinator(short v) {
        FindCoordinatorRequestData data = v < 4
                ? new FindCoordinatorRequestData().setKey("g")
                : new FindCoordinatorRequestData().setCoordinatorKeys(List.of("g", "h"));
        return List.of(new Exchange(request(ApiKeys.FIND_COORDINATOR, data, v), r -> {
            var response = ((FindCoordinatorResponse) r).data();
            if (v < 4) {
                assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.NONE);
                assertThat(response.nodeId()).isEqualTo(broker.broker().node().nodeId());
                assertThat(response.port()).isEqualTo(port);
            } else {
                assertThat(response.coordinators()).extracting(c -> c.key()).containsExactly("g", "h");
                assertThat(response.coordinators()).allSatisfy(c -> {
                    assertThat(Errors.forCode(c.errorCode())).isEqualTo(Errors.NONE);
                    assertThat(c.nodeId()).isEqualTo(broker.broker().node().nodeId());
                    assertThat(c.port()).isEqualTo(port);
                });
            }
        }));
    }

    private List<Exchange> joinGroup(short v) {
        List<Exchange> exchanges = new ArrayList<>();
        joinAt(exchanges, "matrix-join-v" + v, v, new AtomicReference<>(""));
        return exchanges;
    }

    private List<Exchange> syncGroup(short v) {
        String group = "matrix-sync-v" + v;
        AtomicReference<String> memberId = new AtomicReference<>("");
        List<Exchange> exchanges = new ArrayList<>();
        joinAt(exchanges, group, ApiKeys.JOIN_GROUP.latestVersion(), memberId);
        exchanges.add(new Exchange(() -> request(ApiKeys.SYNC_GROUP, sync(group, memberId.get(), v), v), r -> {
            var response = ((SyncGroupResponse) r).data();
            assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.NONE);
            assertThat(response.assignment()).isEqualTo(ASSIGNMENT);
            if (v >= 5) {
                assertThat(response.protocolName()).isEqualTo("range");
            }
        }));
        return exchanges;
    }

    private List<Exchange> heartbeat(short v) {
        String group = "matrix-heartbeat-v" + v;
        AtomicReference<String> memberId = new AtomicReference<>("");
        List<Exchange> exchanges = member(group, memberId);
        exchanges.add(heartbeat(group, memberId::get, v, Errors.NONE));
        exchanges.add(heartbeat(group, () -> "not-a-member", v, Errors.UNKNOWN_MEMBER_ID));
        return exchanges;
    }

    private static Exchange heartbeat(String group, Supplier<String> memberId, short v, Errors expected) {
        return new Exchange(
                () -> request(
                        ApiKeys.HEARTBEAT,
                        new HeartbeatRequestData()
                                .setGroupId(group)
                                .setGenerationId(1)
                                .setMemberId(memberId.get()),
                        v),
                r -> assertThat(Errors.forCode(((HeartbeatResponse) r).data().errorCode()))
                        .isEqualTo(expected));
    }

    private List<Exchange> leaveGroup(short v) {
        String group = "matrix-leave-v" + v;
        AtomicReference<String> memberId = new AtomicReference<>("");
        List<Exchange> exchanges = member(group, memberId);
        exchanges.add(new Exchange(
                () -> {
                    LeaveGroupRequestData data = new LeaveGroupRequestData().setGroupId(group);
                    if (v >= 3) {
                        data.setMembers(
                                List.of(new LeaveGroupRequestData.MemberIdentity().setMemberId(memberId.get())));
                    } else {
                        data.setMemberId(memberId.get());
                    }
                    return request(ApiKeys.LEAVE_GROUP, data, v);
                },
                r -> {
                    var response = ((LeaveGroupResponse) r).data();
                    assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.NONE);
                    if (v >= 3) {
                        assertThat(response.members()).singleElement().satisfies(m -> {
                            assertThat(m.memberId()).isEqualTo(memberId.get());
                            assertThat(m.errorCode()).isZero();
                        });
                    }
                }));
        exchanges.add(describedAs(group, "Empty"));
        return exchanges;
    }

    private static Exchange describedAs(String group, String state) {
        return new Exchange(
                request(
                        ApiKeys.DESCRIBE_GROUPS,
                        new DescribeGroupsRequestData().setGroups(List.of(group)),
                        ApiKeys.DESCRIBE_GROUPS.latestVersion()),
                r -> assertThat(((DescribeGroupsResponse) r).data().groups())
                        .singleElement()
                        .satisfies(g -> assertThat(g.groupState()).isEqualTo(state)));
    }

    private OffsetCommitRequestData commit(String group, long offset, short v) {
        boolean byId = v >= 10;
        return new OffsetCommitRequestData()
                .setGroupId(group)
                .setGenerationIdOrMemberEpoch(-1)
                .setMemberId("")
                .setTopics(List.of(new OffsetCommitRequestData.OffsetCommitRequestTopic()
                        .setName(byId ? "" : TOPIC)
                        .setTopicId(byId ? topicId() : Uuid.ZERO_UUID)
                        .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                .setPartitionIndex(0)
                                .setCommittedOffset(offset)
                                .setCommittedMetadata("v" + v)))));
    }

    private Exchange committed(String group, long offset, short v) {
        return new Exchange(request(ApiKeys.OFFSET_COMMIT, commit(group, offset, v), v), r -> {
            var topic = ((OffsetCommitResponse) r).data().topics().getFirst();
            if (v >= 10) {
                assertThat(topic.topicId()).isEqualTo(topicId());
            } else {
                assertThat(topic.name()).isEqualTo(TOPIC);
            }
            assertThat(Errors.forCode(topic.partitions().getFirst().errorCode()))
                    .isEqualTo(Errors.NONE);
        });
    }

    private OffsetFetchRequestData fetchOffsets(String group, short v) {
        if (v < 8) {
            return new OffsetFetchRequestData()
                    .setGroupId(group)
                    .setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopic()
                            .setName(TOPIC)
                            .setPartitionIndexes(List.of(0))));
        }
        return new OffsetFetchRequestData()
                .setGroups(List.of(new OffsetFetchRequestData.OffsetFetchRequestGroup()
                        .setGroupId(group)
                        .setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopics()
                                .setName(v >= 10 ? "" : TOPIC)
                                .setTopicId(v >= 10 ? topicId() : Uuid.ZERO_UUID)
                                .setPartitionIndexes(List.of(0))))));
    }

    /** OffsetFetch at {@code v} of partition 0 of the matrix topic in {@code group}: {@code offset} comes back. */
    private Exchange fetched(String group, long offset, String metadata, short v) {
        return new Exchange(request(ApiKeys.OFFSET_FETCH, fetchOffsets(group, v), v), r -> {
            var response = ((OffsetFetchResponse) r).data();
            long committedOffset;
            String committedMetadata;
            if (v < 8) {
                assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.NONE);
                var topic = response.topics().getFirst();
                assertThat(topic.name()).isEqualTo(TOPIC);
                committedOffset = topic.partitions().getFirst().committedOffset();
                committedMetadata = topic.partitions().getFirst().metadata();
            } else {
                var groupResponse = response.groups().getFirst();
                assertThat(groupResponse.groupId()).isEqualTo(group);
                assertThat(Errors.forCode(groupResponse.errorCode())).isEqualTo(Errors.NONE);
                var topic = groupResponse.topics().getFirst();
                if (v >= 10) {
                    assertThat(topic.topicId()).isEqualTo(topicId());
                } else {
                    assertThat(topic.name()).isEqualTo(TOPIC);
                }
                committedOffset = topic.partitions().getFirst().committedOffset();
                committedMetadata = topic.partitions().getFirst().metadata();
            }
            assertThat(committedOffset).as("OffsetFetch v%d of %s", v, group).isEqualTo(offset);
            if (offset >= 0) {
                assertThat(committedMetadata).isEqualTo(metadata);
            }
        });
    }

    private List<Exchange> offsetCommit(short v) {
        String group = "matrix-commit-v" + v;
        short newest = ApiKeys.OFFSET_FETCH.latestVersion();
        return List.of(committed(group, 1, v), fetched(group, 1, "v" + v, newest));
    }

    private List<Exchange> offsetFetch(short v) {
        return List.of(fetched(COMMITTED_GROUP, COMMITTED_OFFSET, "matrix", v));
    }

    private List<Exchange> listGroups(short v) {
        ListGroupsRequestData data = new ListGroupsRequestData();
        if (v >= 4) {
            data.setStatesFilter(List.of("Empty"));
        }
        return List.of(new Exchange(request(ApiKeys.LIST_GROUPS, data, v), r -> {
            var response = ((ListGroupsResponse) r).data();
            assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.NONE);
            assertThat(response.groups())
                    .filteredOn(g -> g.groupId().equals(COMMITTED_GROUP))
                    .singleElement()
                    .satisfies(g -> {
                        // Only committed to, never joined: no protocol type, as Kafka lists such a group.
                        assertThat(g.protocolType()).isEmpty();
                        if (v >= 4) {
                            assertThat(g.groupState()).isEqualTo("Empty");
                        }
                    });
        }));
    }

    private List<Exchange> describeGroups(short v) {
        DescribeGroupsRequestData data =
                new DescribeGroupsRequestData().setGroups(List.of(COMMITTED_GROUP, "matrix-no-such-group"));
        if (v >= 3) {
            data.setIncludeAuthorizedOperations(true);
        }
        return List.of(new Exchange(request(ApiKeys.DESCRIBE_GROUPS, data, v), r -> {
            var groups = ((DescribeGroupsResponse) r).data().groups();
            assertThat(groups).extracting(g -> g.groupId()).containsExactly(COMMITTED_GROUP, "matrix-no-such-group");
            assertThat(groups).extracting(g -> g.groupState()).containsExactly("Empty", "Dead");
            assertThat(groups).allSatisfy(g -> assertThat(g.errorCode()).isZero());
        }));
    }

    private List<Exchange> deleteGroups(short v) {
        String group = "matrix-delete-v" + v;
        short commitVersion = 8;
        return List.of(
                committed(group, 1, commitVersion),
                new Exchange(
                        request(
                                ApiKeys.DELETE_GROUPS,
                                new DeleteGroupsRequestData().setGroupsNames(List.of(group, "matrix-no-such-group")),
                                v),
                        r -> {
                            var results = ((DeleteGroupsResponse) r).data().results();
                            assertThat(Errors.forCode(results.find(group).errorCode()))
                                    .isEqualTo(Errors.NONE);
                            assertThat(Errors.forCode(
                                            results.find("matrix-no-such-group").errorCode()))
                                    .isEqualTo(Errors.GROUP_ID_NOT_FOUND);
                        }),
                describedAs(group, "Dead"));
    }

    private List<Exchange> offsetDelete(short v) {
        String group = "matrix-offset-delete-v" + v;
        var topics = new OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection();
        topics.add(new OffsetDeleteRequestData.OffsetDeleteRequestTopic()
                .setName(TOPIC)
                .setPartitions(
                        List.of(new OffsetDeleteRequestData.OffsetDeleteRequestPartition().setPartitionIndex(0))));
        short commitVersion = 8;
        return List.of(
                committed(group, 1, commitVersion),
                new Exchange(
                        request(
                                ApiKeys.OFFSET_DELETE,
                                new OffsetDeleteRequestData().setGroupId(group).setTopics(topics),
                                v),
                        r -> {
                            var response = ((OffsetDeleteResponse) r).data();
                            assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.NONE);
                            assertThat(response.topics()
                                            .find(TOPIC)
                                            .partitions()
                                            .find(0)
                                            .errorCode())
                                    .isZero();
                        }),
                fetched(group, -1, null, ApiKeys.OFFSET_FETCH.latestVersion()));
    }
}

package io.orderflow.broker.group;

import static io.orderflow.broker.group.GroupFixture.get;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData.SyncGroupRequestAssignment;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * A group member as a Kafka consumer plays it: joins (rejoining with the id it is given on
 * MEMBER_ID_REQUIRED), remembers its member id and generation, syncs, heartbeats, commits and leaves.
 */
final class TestMember {
    private final GroupFixture fixture;
    final String groupId;
    final String clientId;
    final String instanceId;
    volatile String memberId = "";
    volatile int generation = -1;
    volatile String leaderId;
    volatile byte[] assignment;
    short version = 9;
    int sessionTimeoutMs = 10_000;
    int rebalanceTimeoutMs = 30_000;
    String protocolType = ConsumerProtocol.PROTOCOL_TYPE;
    List<String[]> protocols = new ArrayList<>(List.<String[]>of(new String[] {"range", "orders"}));

    TestMember(GroupFixture fixture, String groupId, String clientId, String instanceId) {
        this.fixture = fixture;
        this.groupId = groupId;
        this.clientId = clientId;
        this.instanceId = instanceId;
    }

    /** Supports these protocols, each subscribing to {@code topics}, in this order of preference. */
    TestMember protocols(String[]... nameAndTopics) {
        protocols = new ArrayList<>(List.of(nameAndTopics));
        return this;
    }

    /** Subscribes to these topics with the range protocol. */
    TestMember subscribing(String... topics) {
        String[] p = new String[topics.length + 1];
        p[0] = "range";
        System.arraycopy(topics, 0, p, 1, topics.length);
        protocols = new ArrayList<>(List.<String[]>of(p));
        return this;
    }

    JoinGroupRequestData joinRequest() {
        JoinGroupRequestProtocolCollection collection = new JoinGroupRequestProtocolCollection();
        for (String[] p : protocols) {
            String[] topics = java.util.Arrays.copyOfRange(p, 1, p.length);
            collection.add(new JoinGroupRequestProtocol().setName(p[0]).setMetadata(GroupFixture.subscription(topics)));
        }
        return new JoinGroupRequestData()
                .setGroupId(groupId)
                .setMemberId(memberId)
                .setGroupInstanceId(instanceId)
                .setSessionTimeoutMs(sessionTimeoutMs)
                .setRebalanceTimeoutMs(rebalanceTimeoutMs)
                .setProtocolType(protocolType)
                .setProtocols(collection);
    }

    /**
     * Sends one JoinGroup with the current member id. When it completes, the member id, generation and
     * leader are taken from the answer, as a consumer does.
     */
    CompletableFuture<JoinGroupResponseData> sendJoin() {
        return fixture.coordinator()
                .joinGroup(joinRequest(), version, clientId, "/127.0.0.1")
                .thenApply(this::learn);
    }

    private synchronized JoinGroupResponseData learn(JoinGroupResponseData r) {
        Errors error = Errors.forCode(r.errorCode());
        if (error == Errors.NONE) {
            memberId = r.memberId();
            generation = r.generationId();
            leaderId = r.leader();
        } else if (error == Errors.MEMBER_ID_REQUIRED) {
            memberId = r.memberId();
        } else if (error == Errors.UNKNOWN_MEMBER_ID || error == Errors.ILLEGAL_GENERATION) {
            memberId = "";
            generation = -1;
        }
        return r;
    }

    /** JoinGroup as a consumer does it: a second JoinGroup with the id handed out by MEMBER_ID_REQUIRED. */
    CompletableFuture<JoinGroupResponseData> join() {
        if (!memberId.isEmpty() || instanceId != null || version < 4) {
            return sendJoin();
        }
        JoinGroupResponseData first = get(sendJoin());
        if (Errors.forCode(first.errorCode()) != Errors.MEMBER_ID_REQUIRED) {
            return CompletableFuture.completedFuture(first);
        }
        return sendJoin();
    }

    boolean isLeader() {
        return memberId.equals(leaderId);
    }

    CompletableFuture<SyncGroupResponseData> sendSync(Map<String, byte[]> assignments) {
        List<SyncGroupRequestAssignment> list = new ArrayList<>();
        assignments.forEach((id, a) ->
                list.add(new SyncGroupRequestAssignment().setMemberId(id).setAssignment(a)));
        return fixture.coordinator()
                .syncGroup(new SyncGroupRequestData()
                        .setGroupId(groupId)
                        .setGenerationId(generation)
                        .setMemberId(memberId)
                        .setGroupInstanceId(instanceId)
                        .setProtocolType(protocolType)
                        .setAssignments(list))
                .thenApply(r -> {
                    if (r.errorCode() == Errors.NONE.code()) {
                        assignment = r.assignment();
                    }
                    return r;
                });
    }

    CompletableFuture<SyncGroupResponseData> sendSync() {
        return sendSync(Map.of());
    }

    Errors heartbeat() {
        return Errors.forCode(get(fixture.coordinator()
                        .heartbeat(new HeartbeatRequestData()
                                .setGroupId(groupId)
                                .setGenerationId(generation)
                                .setMemberId(memberId)
                                .setGroupInstanceId(instanceId)))
                .errorCode());
    }

    Errors leave() {
        var response = get(fixture.coordinator()
                .leaveGroup(new LeaveGroupRequestData()
                        .setGroupId(groupId)
                        .setMembers(List.of(
                                new MemberIdentity().setMemberId(memberId).setGroupInstanceId(instanceId)))));
        return Errors.forCode(response.members().getFirst().errorCode());
    }

    Errors commit(String topic, int partition, long offset) {
        return fixture.commit(groupId, generation, memberId, topic, partition, offset, "");
    }

    String assignmentText() {
        return assignment == null ? null : GroupFixture.utf8(assignment);
    }

    @Override
    public String toString() {
        return clientId + "(" + memberId + ", generation " + generation + ")";
    }
}

package io.orderflow.broker.group;

import static io.orderflow.broker.group.GroupFixture.get;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData.DescribedGroup;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData.TopicPartitions;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResult;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData.ListedGroup;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The KIP-848 consumer group protocol at the coordinator, heartbeat by heartbeat on a manual clock: joining, member
 * epochs, revocation before assignment, fencing, timeouts, static membership, restarts, offsets, and how consumer
 * groups and classic groups share one namespace.
 */
class ConsumerGroupHeartbeatTest {
    private static final String GROUP = "inventory";
    private static final int REBALANCE_TIMEOUT_MS = 30_000;

    @TempDir
    Path dir;

    private GroupFixture fixture;
    private UUID orders;

    @BeforeEach
    void open() {
        fixture = GroupFixture.builder(dir).build();
        orders = fixture.topic("orders", 4);
    }

    /** Starts over with another coordinator configuration, in a directory of its own. */
    private void reopen(String name, GroupCoordinatorConfig config) {
        close();
        fixture = GroupFixture.builder(dir.resolve(name)).config(config).build();
        orders = fixture.topic("orders", 4);
    }

    @AfterEach
    void close() {
        fixture.coordinator().close();
        fixture.log().close();
    }

    // ---------------------------------------------------------------- requests

    private ConsumerGroupHeartbeatResponseData send(ConsumerGroupHeartbeatRequestData request) {
        return send(request, (short) 1);
    }

    private ConsumerGroupHeartbeatResponseData send(ConsumerGroupHeartbeatRequestData request, short version) {
        return get(fixture.coordinator().consumerGroupHeartbeat(request, version, "client", "/127.0.0.1"));
    }

    private static ConsumerGroupHeartbeatRequestData join(String memberId, String... topics) {
        return new ConsumerGroupHeartbeatRequestData()
                .setGroupId(GROUP)
                .setMemberId(memberId)
                .setMemberEpoch(0)
                .setRebalanceTimeoutMs(REBALANCE_TIMEOUT_MS)
                .setSubscribedTopicNames(List.of(topics))
                .setTopicPartitions(List.of());
    }

    /** A heartbeat with only what changed: here, what the member owns. */
    private ConsumerGroupHeartbeatRequestData beat(String memberId, int epoch, Set<Integer> owned) {
        return new ConsumerGroupHeartbeatRequestData()
                .setGroupId(GROUP)
                .setMemberId(memberId)
                .setMemberEpoch(epoch)
                .setTopicPartitions(owned == null ? null : owned(owned));
    }

    private List<TopicPartitions> owned(Set<Integer> partitions) {
        return partitions.isEmpty()
                ? List.of()
                : List.of(new TopicPartitions()
                        .setTopicId(MemberAssignment.toKafka(orders))
                        .setPartitions(new ArrayList<>(partitions)));
    }

    private static ConsumerGroupHeartbeatRequestData leave(String memberId, int epoch) {
        return new ConsumerGroupHeartbeatRequestData()
                .setGroupId(GROUP)
                .setMemberId(memberId)
                .setMemberEpoch(epoch);
    }

    /** The assignment a response carries, as topic id to partitions; null when it carries none. */
    private static Map<Uuid, Set<Integer>> assignment(ConsumerGroupHeartbeatResponseData r) {
        if (r.assignment() == null) {
            return null;
        }
        Map<Uuid, Set<Integer>> out = new TreeMap<>();
        r.assignment().topicPartitions().forEach(tp -> out.put(tp.topicId(), new TreeSet<>(tp.partitions())));
        return out;
    }

    private Set<Integer> ordersOf(ConsumerGroupHeartbeatResponseData r) {
        Map<Uuid, Set<Integer>> a = assignment(r);
        assertThat(a).as("the response carries an assignment").isNotNull();
        return a.getOrDefault(MemberAssignment.toKafka(orders), Set.of());
    }

    private DescribedGroup describe() {
        return get(fixture.coordinator().consumerGroupDescribe(List.of(GROUP))).getFirst();
    }

    private static Errors error(ConsumerGroupHeartbeatResponseData r) {
        return Errors.forCode(r.errorCode());
    }

    // ---------------------------------------------------------------- joining and reconciling

    @Test
    void theFirstMemberJoinsAtEpochOneWithEveryPartition() {
        ConsumerGroupHeartbeatResponseData r = send(join("a", "orders"));
        assertThat(error(r)).isEqualTo(Errors.NONE);
        assertThat(r.memberId()).isEqualTo("a");
        assertThat(r.memberEpoch()).isEqualTo(1);
        assertThat(r.heartbeatIntervalMs()).isEqualTo(5000);
        assertThat(ordersOf(r)).containsExactly(0, 1, 2, 3);
        DescribedGroup d = describe();
        assertThat(d.groupState()).isEqualTo("Stable");
        assertThat(d.groupEpoch()).isEqualTo(1);
        assertThat(d.assignorName()).isEqualTo("uniform");
        assertThat(d.members()).singleElement().satisfies(m -> {
            assertThat(m.memberEpoch()).isEqualTo(1);
            assertThat(m.subscribedTopicNames()).containsExactly("orders");
            assertThat(m.assignment().topicPartitions()).singleElement().satisfies(tp -> {
                assertThat(tp.topicName()).isEqualTo("orders");
                assertThat(tp.partitions()).containsExactly(0, 1, 2, 3);
            });
        });
    }

    @Test
    void aPartitionMovesOnlyAfterItsOwnerHasRevokedIt() {
        send(join("a", "orders"));
        ConsumerGroupHeartbeatResponseData b = send(join("b", "orders"));
        // b is at the new epoch, but everything still belongs to a.
        assertThat(b.memberEpoch()).isEqualTo(2);
        assertThat(ordersOf(b)).isEmpty();
        assertThat(describe().groupState()).isEqualTo("Reconciling");

        // a learns it must give up two partitions; it keeps its epoch until it has.
        ConsumerGroupHeartbeatResponseData a = send(beat("a", 1, Set.of(0, 1, 2, 3)));
        assertThat(a.memberEpoch()).isEqualTo(1);
        Set<Integer> kept = ordersOf(a);
        assertThat(kept).hasSize(2);
        Set<Integer> given = new TreeSet<>(Set.of(0, 1, 2, 3));
        given.removeAll(kept);

        // b is told nothing new while a still owns them.
        ConsumerGroupHeartbeatResponseData stillWaiting = send(beat("b", 2, Set.of()));
        assertThat(stillWaiting.memberEpoch()).isEqualTo(2);
        assertThat(stillWaiting.assignment()).isNull();

        // a has revoked: it reaches epoch 2, and then b gets the partitions.
        ConsumerGroupHeartbeatResponseData revoked = send(beat("a", 1, kept));
        assertThat(revoked.memberEpoch()).isEqualTo(2);
        ConsumerGroupHeartbeatResponseData got = send(beat("b", 2, Set.of()));
        assertThat(ordersOf(got)).isEqualTo(given);
        assertThat(describe().groupState()).isEqualTo("Stable");
    }

    @Test
    void aLeavingMemberFreesItsPartitionsForTheOthers() {
        send(join("a", "orders"));
        send(join("b", "orders"));
        Set<Integer> kept = ordersOf(send(beat("a", 1, Set.of(0, 1, 2, 3))));
        send(beat("a", 1, kept));
        Set<Integer> bs = ordersOf(send(beat("b", 2, Set.of())));

        ConsumerGroupHeartbeatResponseData left = send(leave("b", -1));
        assertThat(error(left)).isEqualTo(Errors.NONE);
        assertThat(left.memberEpoch()).isEqualTo(-1);
        ConsumerGroupHeartbeatResponseData a = send(beat("a", 2, kept));
        assertThat(a.memberEpoch()).isEqualTo(3);
        assertThat(ordersOf(a)).containsExactly(0, 1, 2, 3).containsAll(bs);
    }

    @Test
    void aHeartbeatWithNothingNewCarriesNoAssignment() {
        send(join("a", "orders"));
        ConsumerGroupHeartbeatResponseData r = send(beat("a", 1, null));
        assertThat(error(r)).isEqualTo(Errors.NONE);
        assertThat(r.assignment()).isNull();
    }

    @Test
    void newPartitionsOfASubscribedTopicMoveTheGroupEpochAndAreAssigned() {
        send(join("a", "orders"));
        fixture.topic("orders", 6);
        ConsumerGroupHeartbeatResponseData r = send(beat("a", 1, Set.of(0, 1, 2, 3)));
        assertThat(r.memberEpoch()).isEqualTo(2);
        assertThat(ordersOf(r)).containsExactly(0, 1, 2, 3, 4, 5);
    }

    @Test
    void aRegexSubscriptionTakesTheMatchingTopicsButNeverInternalOnes() {
        UUID payments = fixture.topic("order-payments", 2);
        fixture.topic("__consumer_offsets", 50);
        fixture.topic("shipments", 1);
        ConsumerGroupHeartbeatResponseData r = send(new ConsumerGroupHeartbeatRequestData()
                .setGroupId(GROUP)
                .setMemberId("a")
                .setMemberEpoch(0)
                .setRebalanceTimeoutMs(REBALANCE_TIMEOUT_MS)
                .setSubscribedTopicRegex(".*order.*|__.*")
                .setTopicPartitions(List.of()));
        assertThat(assignment(r).keySet())
                .containsExactlyInAnyOrder(MemberAssignment.toKafka(orders), MemberAssignment.toKafka(payments));
    }

    @Test
    void theRangeAssignorIsUsedWhenMembersAskForIt() {
        fixture.topic("payments", 4);
        send(join("a", "orders", "payments").setServerAssignor("range"));
        send(join("b", "orders", "payments").setServerAssignor("range"));
        assertThat(describe().assignorName()).isEqualTo("range");
        assertThat(describe().members())
                .allSatisfy(m -> assertThat(m.targetAssignment().topicPartitions())
                        .extracting(tp -> tp.partitions())
                        .hasSize(2)
                        .allSatisfy(ps -> assertThat(ps)
                                .isEqualTo(m.targetAssignment()
                                        .topicPartitions()
                                        .getFirst()
                                        .partitions())));
    }

    // ---------------------------------------------------------------- fencing and bad requests

    @Test
    void epochsFenceZombiesButForgiveALostResponse() {
        send(join("a", "orders"));
        send(join("b", "orders"));
        Set<Integer> kept = ordersOf(send(beat("a", 1, Set.of(0, 1, 2, 3))));
        send(beat("a", 1, kept)); // a is now at epoch 2, previous epoch 1

        assertThat(error(send(beat("a", 3, kept)))).isEqualTo(Errors.FENCED_MEMBER_EPOCH);
        // the response that moved it to 2 was lost: epoch 1 with a subset of what it holds is accepted
        ConsumerGroupHeartbeatResponseData retried = send(beat("a", 1, kept));
        assertThat(error(retried)).isEqualTo(Errors.NONE);
        assertThat(retried.memberEpoch()).isEqualTo(2);
        // but not when it claims partitions it no longer has
        assertThat(error(send(beat("a", 1, Set.of(0, 1, 2, 3))))).isEqualTo(Errors.FENCED_MEMBER_EPOCH);
        assertThat(error(send(beat("a", -3, null)))).isEqualTo(Errors.INVALID_REQUEST);
    }

    @Test
    void unknownMembersAndGroupsAreToldSo() {
        assertThat(error(send(beat("ghost", 3, null)))).isEqualTo(Errors.GROUP_ID_NOT_FOUND);
        send(join("a", "orders"));
        ConsumerGroupHeartbeatResponseData r = send(beat("ghost", 3, null));
        assertThat(error(r)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(r.errorMessage()).contains("ghost");
    }

    @Test
    void malformedHeartbeatsAreRefusedWithTheFieldNamed() {
        ConsumerGroupHeartbeatResponseData noTimeout = send(join("a", "orders").setRebalanceTimeoutMs(-1));
        assertThat(error(noTimeout)).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(noTimeout.errorMessage()).contains("RebalanceTimeoutMs");
        ConsumerGroupHeartbeatResponseData owning = send(join("a", "orders").setTopicPartitions(owned(Set.of(1))));
        assertThat(owning.errorMessage()).contains("TopicPartitions");
        ConsumerGroupHeartbeatResponseData noMemberId = send(join("", "orders"));
        assertThat(error(noMemberId)).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(noMemberId.errorMessage()).contains("MemberId");
        ConsumerGroupHeartbeatResponseData assignor = send(join("a", "orders").setServerAssignor("sticky"));
        assertThat(error(assignor)).isEqualTo(Errors.UNSUPPORTED_ASSIGNOR);
        assertThat(assignor.errorMessage()).contains("uniform", "range");
        ConsumerGroupHeartbeatResponseData regex = send(new ConsumerGroupHeartbeatRequestData()
                .setGroupId(GROUP)
                .setMemberId("a")
                .setMemberEpoch(0)
                .setRebalanceTimeoutMs(1000)
                .setSubscribedTopicRegex("orders(")
                .setTopicPartitions(List.of()));
        assertThat(error(regex)).isEqualTo(Errors.INVALID_REGULAR_EXPRESSION);
        assertThat(error(send(join("a", "orders").setGroupId("")))).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(get(fixture.coordinator().consumerGroupDescribe(List.of(GROUP)))
                        .getFirst()
                        .errorCode())
                .as("no refused heartbeat created the group")
                .isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
    }

    @Test
    void version0StillLetsTheCoordinatorPickTheMemberId() {
        ConsumerGroupHeartbeatResponseData r = send(join("", "orders"), (short) 0);
        assertThat(error(r)).isEqualTo(Errors.NONE);
        assertThat(r.memberId()).isNotEmpty();
    }

    @Test
    void aGroupRefusesMembersBeyondItsMaximumSize() {
        reopen("small", GroupCoordinatorConfig.defaults().withMaxGroupSize(1));
        send(join("a", "orders"));
        assertThat(error(send(join("b", "orders")))).isEqualTo(Errors.GROUP_MAX_SIZE_REACHED);
    }

    @Test
    void aHeartbeatThatWouldCreateAGroupBeyondGroupMaxCountIsRefused() {
        reopen("few", GroupCoordinatorConfig.defaults().withMaxGroups(1));
        send(join("a", "orders"));
        ConsumerGroupHeartbeatResponseData second = send(join("b", "orders").setGroupId("another"));
        assertThat(error(second)).isEqualTo(Errors.GROUP_MAX_SIZE_REACHED);
        assertThat(error(send(join("c", "orders"))))
                .as("the existing group still takes members")
                .isEqualTo(Errors.NONE);
    }

    // ---------------------------------------------------------------- timeouts

    @Test
    void aMemberSilentForTheSessionTimeoutIsRemovedAndItsPartitionsReassigned() {
        send(join("a", "orders"));
        send(join("b", "orders"));
        Set<Integer> kept = ordersOf(send(beat("a", 1, Set.of(0, 1, 2, 3))));
        send(beat("a", 1, kept));
        send(beat("b", 2, Set.of()));
        ConsumerGroupHeartbeatResponseData latest = null;
        int epoch = 2;
        for (int i = 0; i < 10; i++) {
            fixture.advance(5000);
            ConsumerGroupHeartbeatResponseData r = send(beat("a", epoch, null)); // a keeps heartbeating, b does not
            epoch = r.memberEpoch();
            latest = r.assignment() == null ? latest : r;
        }
        assertThat(describe().members()).extracting(m -> m.memberId()).containsExactly("a");
        assertThat(epoch).isEqualTo(3);
        assertThat(ordersOf(latest)).containsExactly(0, 1, 2, 3);
        assertThat(error(send(beat("b", 2, null)))).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void aMemberThatDoesNotRevokeWithinItsRebalanceTimeoutIsFenced() {
        send(join("a", "orders"));
        send(join("b", "orders"));
        send(beat("a", 1, Set.of(0, 1, 2, 3))); // told to revoke two
        ConsumerGroupHeartbeatResponseData latest = null;
        int epoch = 2;
        for (int i = 0; i < 7; i++) {
            fixture.advance(5000);
            ConsumerGroupHeartbeatResponseData r = send(beat("b", epoch, Set.of()));
            epoch = r.memberEpoch();
            latest = r.assignment() == null ? latest : r;
            if (describe().members().size() == 2) {
                send(beat("a", 1, Set.of(0, 1, 2, 3))); // keeps heartbeating, never revokes
            }
        }
        assertThat(describe().members()).extracting(m -> m.memberId()).containsExactly("b");
        assertThat(ordersOf(latest)).containsExactly(0, 1, 2, 3);
        assertThat(error(send(beat("a", 1, Set.of(0, 1, 2, 3))))).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    // ---------------------------------------------------------------- static membership

    @Test
    void aStaticMemberThatLeavesTemporarilyKeepsItsPartitionsForItsNextIncarnation() {
        send(join("a1", "orders").setInstanceId("a"));
        ConsumerGroupHeartbeatResponseData left = send(leave("a1", -2).setInstanceId("a"));
        assertThat(left.memberEpoch()).isEqualTo(-2);
        assertThat(describe().groupEpoch()).isEqualTo(1);

        ConsumerGroupHeartbeatResponseData again = send(join("a2", "orders").setInstanceId("a"));
        assertThat(error(again)).isEqualTo(Errors.NONE);
        assertThat(again.memberEpoch()).isEqualTo(1);
        assertThat(ordersOf(again)).containsExactly(0, 1, 2, 3);
        assertThat(describe().groupEpoch()).isEqualTo(1);
        assertThat(error(send(beat("a1", 1, null).setInstanceId("a")))).isEqualTo(Errors.FENCED_INSTANCE_ID);
    }

    @Test
    void anInstanceIdStillInUseIsNotReleasedToAnotherMember() {
        send(join("a1", "orders").setInstanceId("a"));
        ConsumerGroupHeartbeatResponseData r = send(join("a2", "orders").setInstanceId("a"));
        assertThat(error(r)).isEqualTo(Errors.UNRELEASED_INSTANCE_ID);
    }

    // ---------------------------------------------------------------- restarts

    @Test
    void membersCarryOnWithTheirEpochsAndAssignmentsAfterARestartOrACrash() {
        send(join("a", "orders"));
        send(join("b", "orders"));
        Set<Integer> kept = ordersOf(send(beat("a", 1, Set.of(0, 1, 2, 3))));
        fixture.restart();
        // a still owes its revocation; b still waits
        assertThat(describe().groupState()).isEqualTo("Reconciling");
        assertThat(send(beat("a", 1, kept)).memberEpoch()).isEqualTo(2);
        fixture.crashAndRestart();
        Set<Integer> bs = ordersOf(send(beat("b", 2, Set.of())));
        assertThat(bs).hasSize(2).doesNotContainAnyElementsOf(kept);
        DescribedGroup d = describe();
        assertThat(d.groupState()).isEqualTo("Stable");
        assertThat(d.groupEpoch()).isEqualTo(2);
    }

    // ---------------------------------------------------------------- offsets

    private Errors commit(String memberId, int epoch, short version) {
        OffsetCommitRequestData request = new OffsetCommitRequestData()
                .setGroupId(GROUP)
                .setMemberId(memberId)
                .setGenerationIdOrMemberEpoch(epoch)
                .setTopics(List.of(new OffsetCommitRequestTopic()
                        .setName("orders")
                        .setPartitions(List.of(new OffsetCommitRequestPartition()
                                .setPartitionIndex(0)
                                .setCommittedOffset(7)))));
        return Errors.forCode(get(fixture.coordinator().commitOffsets(request, version))
                .topics()
                .getFirst()
                .partitions()
                .getFirst()
                .errorCode());
    }

    @Test
    void offsetCommitsAndFetchesCheckTheMemberAndItsEpoch() {
        send(join("a", "orders"));
        assertThat(commit("a", 1, (short) 9)).isEqualTo(Errors.NONE);
        assertThat(commit("a", 0, (short) 9)).isEqualTo(Errors.STALE_MEMBER_EPOCH);
        assertThat(commit("ghost", 1, (short) 9)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(commit("a", 1, (short) 8)).isEqualTo(Errors.UNSUPPORTED_VERSION);
        assertThat(commit("", -1, (short) 9))
                .as("an admin commit needs an empty group")
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID);

        OffsetFetchRequestGroup stale = new OffsetFetchRequestGroup()
                .setGroupId(GROUP)
                .setMemberId("a")
                .setMemberEpoch(0)
                .setTopics(null);
        assertThat(get(fixture.coordinator().fetchOffsets(stale)).errorCode())
                .isEqualTo(Errors.STALE_MEMBER_EPOCH.code());
        assertThat(fixture.fetch(GROUP, "orders", 0).committedOffset()).isEqualTo(7);

        send(leave("a", -1));
        assertThat(commit("", -1, (short) 9)).isEqualTo(Errors.NONE);
    }

    // ---------------------------------------------------------------- one namespace, two protocols

    private JoinGroupResponseData classicJoin(String memberId) {
        JoinGroupRequestProtocolCollection protocols = new JoinGroupRequestProtocolCollection();
        protocols.add(new JoinGroupRequestProtocol().setName("range").setMetadata(GroupFixture.subscription("orders")));
        java.util.concurrent.CompletableFuture<JoinGroupResponseData> joined = fixture.coordinator()
                .joinGroup(
                        new JoinGroupRequestData()
                                .setGroupId(GROUP)
                                .setMemberId(memberId)
                                .setProtocolType("consumer")
                                .setSessionTimeoutMs(10_000)
                                .setRebalanceTimeoutMs(10_000)
                                .setProtocols(protocols),
                        (short) 9,
                        "client",
                        "/127.0.0.1");
        fixture.tick(); // the new group's first rebalance completes on a tick
        return get(joined);
    }

    @Test
    void aGroupWithMembersRefusesTheOtherProtocol() {
        send(join("a", "orders"));
        assertThat(Errors.forCode(classicJoin("").errorCode())).isEqualTo(Errors.INCONSISTENT_GROUP_PROTOCOL);
        send(leave("a", -1));
        fixture.tick();

        JoinGroupResponseData classic = classicJoin("");
        JoinGroupResponseData joined = Errors.forCode(classic.errorCode()) == Errors.MEMBER_ID_REQUIRED
                ? classicJoin(classic.memberId())
                : classic;
        assertThat(Errors.forCode(joined.errorCode())).isEqualTo(Errors.NONE);
        ConsumerGroupHeartbeatResponseData refused = send(join("b", "orders"));
        assertThat(error(refused)).isEqualTo(Errors.GROUP_ID_NOT_FOUND);
        assertThat(refused.errorMessage()).contains("not a consumer group");
    }

    @Test
    void anEmptyGroupConvertsToTheOtherProtocolAndKeepsItsOffsets() {
        assertThat(fixture.simpleCommit(GROUP, "orders", 1, 42, "")).isEqualTo(Errors.NONE);
        send(join("a", "orders"));
        assertThat(fixture.describe(GROUP).errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
        assertThat(fixture.fetch(GROUP, "orders", 1).committedOffset()).isEqualTo(42);
        fixture.restart();
        assertThat(describe().groupEpoch()).isEqualTo(1);
        send(leave("a", -1));

        JoinGroupResponseData classic = classicJoin("");
        JoinGroupResponseData joined = Errors.forCode(classic.errorCode()) == Errors.MEMBER_ID_REQUIRED
                ? classicJoin(classic.memberId())
                : classic;
        assertThat(Errors.forCode(joined.errorCode())).isEqualTo(Errors.NONE);
        assertThat(describe().errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
        assertThat(describe().errorMessage()).contains("not a consumer group");
        fixture.restart();
        assertThat(describe().errorCode())
                .as("still classic after a restart")
                .isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
        assertThat(fixture.fetch(GROUP, "orders", 1).committedOffset()).isEqualTo(42);
    }

    @Test
    void listGroupsShowsConsumerGroupsWithTheirTypeAndDescribeGroupsPointsElsewhere() {
        send(join("a", "orders"));
        fixture.simpleCommit("classic-one", "orders", 0, 1, "");
        List<ListedGroup> all = get(fixture.coordinator().listGroups(new ListGroupsRequestData()))
                .groups();
        assertThat(all)
                .extracting(ListedGroup::groupId, ListedGroup::groupType, ListedGroup::groupState)
                .contains(
                        org.assertj.core.groups.Tuple.tuple(GROUP, "consumer", "Stable"),
                        org.assertj.core.groups.Tuple.tuple("classic-one", "classic", "Empty"));
        List<ListedGroup> consumers = get(fixture.coordinator()
                        .listGroups(new ListGroupsRequestData().setTypesFilter(List.of("consumer"))))
                .groups();
        assertThat(consumers).extracting(ListedGroup::groupId).containsExactly(GROUP);
        assertThat(get(fixture.coordinator().describeGroups(List.of(GROUP), (short) 5))
                        .getFirst())
                .satisfies(g -> {
                    assertThat(g.groupState()).isEqualTo("Dead");
                    assertThat(g.errorCode()).isZero();
                });
        assertThat(get(fixture.coordinator().describeGroups(List.of(GROUP), (short) 6))
                        .getFirst()
                        .errorMessage())
                .contains("not a classic group");
    }

    @Test
    void onlyAnEmptyConsumerGroupCanBeDeletedAndItsOffsetsGoWithIt() {
        send(join("a", "orders"));
        commit("a", 1, (short) 9);
        DeletableGroupResult busy =
                get(fixture.coordinator().deleteGroups(List.of(GROUP))).find(GROUP);
        assertThat(busy.errorCode()).isEqualTo(Errors.NON_EMPTY_GROUP.code());
        send(leave("a", -1));
        DeletableGroupResult deleted =
                get(fixture.coordinator().deleteGroups(List.of(GROUP))).find(GROUP);
        assertThat(deleted.errorCode()).isZero();
        fixture.restart();
        assertThat(describe().errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
        assertThat(fixture.fetch(GROUP, "orders", 0).committedOffset()).isEqualTo(-1);
    }

    @Test
    void anEmptyConsumerGroupsOffsetsExpireRetentionAfterTheirCommitAndTheGroupGoesWithThem() {
        reopen("expiring", GroupCoordinatorConfig.defaults().withOffsetsRetention(60_000, 1000));
        send(join("a", "orders"));
        assertThat(commit("a", 1, (short) 9)).isEqualTo(Errors.NONE);
        for (int i = 0; i < 24; i++) { // two minutes of heartbeats: twice the retention
            assertThat(error(send(beat("a", 1, null)))).isEqualTo(Errors.NONE);
            fixture.advance(5000);
        }
        assertThat(fixture.fetch(GROUP, "orders", 0).committedOffset())
                .as("a member subscribed to the topic keeps its offsets")
                .isEqualTo(7);
        assertThat(commit("a", 1, (short) 9)).isEqualTo(Errors.NONE);
        send(leave("a", -1));
        // As in Kafka, a consumer group's offsets expire from their commit, here the last one before the member left.
        fixture.advance(59_000);
        assertThat(fixture.fetch(GROUP, "orders", 0).committedOffset()).isEqualTo(7);
        fixture.advance(2000);
        assertThat(fixture.fetch(GROUP, "orders", 0).committedOffset()).isEqualTo(-1);
        assertThat(describe().errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
    }

    @Test
    void eachNewRevocationGetsItsOwnRebalanceTimeout() {
        fixture.topic("orders", 12);
        send(join("a", "orders"));
        send(join("b", "orders"));
        Set<Integer> kept = ordersOf(send(beat("a", 1, all(12)))); // a revokes 6 of 12
        fixture.advance(20_000);
        send(beat("a", 1, kept)); // revoked in time: a reaches epoch 2
        send(join("c", "orders")); // epoch 3: a must revoke again
        Set<Integer> keptAgain = ordersOf(send(beat("a", 2, kept)));
        assertThat(keptAgain).hasSizeLessThan(kept.size());
        // 15 s on, 35 s after the first revocation began: past its timeout, well within the new one
        for (int i = 0; i < 3; i++) {
            fixture.advance(5000);
            send(beat(
                    "b",
                    describe().members().stream()
                            .filter(m -> m.memberId().equals("b"))
                            .findFirst()
                            .orElseThrow()
                            .memberEpoch(),
                    null));
            send(beat("c", 3, null));
            assertThat(error(send(beat("a", 2, kept)))).isEqualTo(Errors.NONE);
        }
        assertThat(describe().members()).extracting(m -> m.memberId()).contains("a");
        assertThat(send(beat("a", 2, keptAgain)).memberEpoch()).isEqualTo(3);
    }

    private static Set<Integer> all(int partitions) {
        Set<Integer> out = new TreeSet<>();
        for (int p = 0; p < partitions; p++) {
            out.add(p);
        }
        return out;
    }

    @Test
    void aStaticMemberThatLeavesWhileRevokingFreesThosePartitionsAtOnce() {
        send(join("a1", "orders").setInstanceId("a"));
        send(join("b", "orders"));
        Set<Integer> kept = ordersOf(send(beat("a1", 1, Set.of(0, 1, 2, 3)).setInstanceId("a")));
        assertThat(kept).hasSize(2);
        send(leave("a1", -2).setInstanceId("a"));
        Set<Integer> bs = ordersOf(send(beat("b", 2, Set.of())));
        assertThat(bs).hasSize(2).doesNotContainAnyElementsOf(kept);
    }

    @Test
    void aTransactionalOffsetCommitWithAStaleEpochIsAnIllegalGeneration() {
        send(join("a", "orders"));
        var request = new org.apache.kafka.common.message.TxnOffsetCommitRequestData()
                .setTransactionalId("t")
                .setGroupId(GROUP)
                .setProducerId(1)
                .setProducerEpoch((short) 0)
                .setMemberId("a")
                .setGenerationIdOrMemberEpoch(0)
                .setTopics(List.of(
                        new org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic()
                                .setName("orders")
                                .setPartitions(List.of(new org.apache.kafka.common.message.TxnOffsetCommitRequestData
                                                .TxnOffsetCommitRequestPartition()
                                        .setPartitionIndex(0)
                                        .setCommittedOffset(5)))));
        var response = get(fixture.coordinator().commitTransactionalOffsets(request));
        assertThat(response.topics().getFirst().partitions().getFirst().errorCode())
                .isEqualTo(Errors.ILLEGAL_GENERATION.code());
    }

    @Test
    @org.junit.jupiter.api.Timeout(20)
    void aBacktrackingRegexIsMatchedInLinearTime() {
        String name = "x".repeat(200);
        fixture.topic(name, 1);
        ConsumerGroupHeartbeatResponseData r = send(new ConsumerGroupHeartbeatRequestData()
                .setGroupId(GROUP)
                .setMemberId("a")
                .setMemberEpoch(0)
                .setRebalanceTimeoutMs(REBALANCE_TIMEOUT_MS)
                .setSubscribedTopicRegex("(x+x+)+y")
                .setTopicPartitions(List.of()));
        assertThat(error(r)).isEqualTo(Errors.NONE);
        assertThat(assignment(r)).isEmpty();
    }

    @Test
    void describeLeavesOutADeletedTopic() {
        send(join("a", "orders"));
        fixture.deleteTopic("orders");
        assertThat(describe().members().getFirst().assignment().topicPartitions())
                .isEmpty();
    }

    @Test
    void aThousandMembersEachWritingItsOwnRecordComeBackAfterARestart() {
        List<String> topics = new ArrayList<>();
        for (int t = 0; t < 40; t++) {
            topics.add("topic-with-a-rather-long-name-" + t);
            fixture.topic(topics.getLast(), 1);
        }
        for (int m = 0; m < 1000; m++) {
            ConsumerGroupHeartbeatResponseData r =
                    send(join("member-" + m, topics.toArray(String[]::new)).setInstanceId("instance-" + m));
            assertThat(error(r)).as("member %d", m).isEqualTo(Errors.NONE);
        }
        int epoch = describe().groupEpoch();
        fixture.restart();
        DescribedGroup d = describe();
        assertThat(d.members()).hasSize(1000);
        assertThat(d.groupEpoch()).isEqualTo(epoch);
    }
}

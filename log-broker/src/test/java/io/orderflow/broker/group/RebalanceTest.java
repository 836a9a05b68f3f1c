package io.orderflow.broker.group;

import static io.orderflow.broker.group.GroupFixture.assignment;
import static io.orderflow.broker.group.GroupFixture.get;
import static io.orderflow.broker.group.GroupFixture.memberIds;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RebalanceTest {
    @TempDir
    Path dir;

    private GroupFixture fixture;

    @BeforeEach
    void setUp() {
        fixture = GroupFixture.builder(dir).build();
    }

    @AfterEach
    void tearDown() {
        fixture.close();
    }

    private static Errors error(JoinGroupResponseData r) {
        return Errors.forCode(r.errorCode());
    }

    private static Errors error(SyncGroupResponseData r) {
        return Errors.forCode(r.errorCode());
    }

    /** a and b join, the initial rebalance completes, a (first to join) leads and assigns p0 to a, p1 to b. */
    private void stableGroupOf(TestMember a, TestMember b) {
        CompletableFuture<JoinGroupResponseData> ja = a.join();
        CompletableFuture<JoinGroupResponseData> jb = b.join();
        fixture.tick();
        assertThat(error(get(ja))).isEqualTo(Errors.NONE);
        assertThat(error(get(jb))).isEqualTo(Errors.NONE);
        CompletableFuture<SyncGroupResponseData> sb = b.sendSync();
        get(a.sendSync(assignment(a.memberId, "p0", b.memberId, "p1")));
        get(sb);
        assertThat(fixture.state("g")).isEqualTo(GroupState.STABLE);
    }

    @Test
    void twoMembersJoinInOneRebalanceAndTheLeaderAssignsBoth() {
        TestMember a = fixture.member("g", "client-a");
        TestMember b = fixture.member("g", "client-b");

        CompletableFuture<JoinGroupResponseData> ja = a.join();
        CompletableFuture<JoinGroupResponseData> jb = b.join();
        assertThat(ja).isNotDone();
        assertThat(jb).isNotDone();
        assertThat(fixture.state("g")).isEqualTo(GroupState.PREPARING_REBALANCE);

        fixture.tick();

        JoinGroupResponseData leader = get(ja);
        JoinGroupResponseData follower = get(jb);
        assertThat(error(leader)).isEqualTo(Errors.NONE);
        assertThat(error(follower)).isEqualTo(Errors.NONE);
        assertThat(leader.generationId()).isEqualTo(1).isEqualTo(follower.generationId());
        assertThat(leader.leader()).isEqualTo(a.memberId).isEqualTo(follower.leader());
        assertThat(leader.protocolName()).isEqualTo("range");
        assertThat(leader.protocolType()).isEqualTo("consumer");
        assertThat(leader.members())
                .extracting(JoinGroupResponseData.JoinGroupResponseMember::memberId)
                .containsExactlyInAnyOrder(a.memberId, b.memberId);
        assertThat(leader.members().getFirst().metadata()).isEqualTo(GroupFixture.subscription("orders"));
        assertThat(follower.members()).isEmpty();
        assertThat(a.memberId).startsWith("client-a-");
        assertThat(fixture.state("g")).isEqualTo(GroupState.COMPLETING_REBALANCE);

        CompletableFuture<SyncGroupResponseData> followerSync = b.sendSync();
        assertThat(followerSync).isNotDone();
        SyncGroupResponseData leaderSync = get(a.sendSync(assignment(a.memberId, "p0", b.memberId, "p1")));

        assertThat(error(leaderSync)).isEqualTo(Errors.NONE);
        assertThat(error(get(followerSync))).isEqualTo(Errors.NONE);
        assertThat(a.assignmentText()).isEqualTo("p0");
        assertThat(b.assignmentText()).isEqualTo("p1");
        assertThat(fixture.state("g")).isEqualTo(GroupState.STABLE);
        assertThat(a.heartbeat()).isEqualTo(Errors.NONE);
        assertThat(b.heartbeat()).isEqualTo(Errors.NONE);
    }

    @Test
    void aThirdMemberJoiningRebalancesTheGroup() {
        TestMember a = fixture.member("g", "a");
        TestMember b = fixture.member("g", "b");
        stableGroupOf(a, b);
        TestMember c = fixture.member("g", "c");

        CompletableFuture<JoinGroupResponseData> jc = c.join();

        assertThat(fixture.state("g")).isEqualTo(GroupState.PREPARING_REBALANCE);
        assertThat(a.heartbeat()).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        CompletableFuture<JoinGroupResponseData> ja = a.join();
        assertThat(jc).isNotDone();
        CompletableFuture<JoinGroupResponseData> jb = b.join();
        // The last member to rejoin completes the join phase at once: no tick needed.
        assertThat(get(ja).generationId()).isEqualTo(2);
        assertThat(get(jb).generationId()).isEqualTo(2);
        assertThat(get(jc).generationId()).isEqualTo(2);
        assertThat(get(ja).members()).hasSize(3);
        assertThat(fixture.state("g")).isEqualTo(GroupState.COMPLETING_REBALANCE);
    }

    @Test
    void aMemberLeavingRebalancesTheGroupWithoutIt() {
        TestMember a = fixture.member("g", "a");
        TestMember b = fixture.member("g", "b");
        stableGroupOf(a, b);

        assertThat(b.leave()).isEqualTo(Errors.NONE);

        assertThat(fixture.state("g")).isEqualTo(GroupState.PREPARING_REBALANCE);
        assertThat(a.heartbeat()).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        JoinGroupResponseData rejoined = get(a.join());
        assertThat(rejoined.generationId()).isEqualTo(2);
        assertThat(rejoined.members()).extracting(m -> m.memberId()).containsExactly(a.memberId);
        assertThat(b.heartbeat()).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void theLastMemberLeavingEmptiesTheGroupAndAdvancesTheGeneration() {
        TestMember a = fixture.member("g", "a");
        CompletableFuture<JoinGroupResponseData> ja = a.join();
        fixture.tick();
        get(ja);
        get(a.sendSync(assignment(a.memberId, "p0")));

        assertThat(a.leave()).isEqualTo(Errors.NONE);

        assertThat(fixture.state("g")).isEqualTo(GroupState.EMPTY);
        assertThat(fixture.describe("g").members()).isEmpty();
        assertThat(fixture.simpleCommit("g", "orders", 0, 42, "reset")).isEqualTo(Errors.NONE);
    }

    @Test
    void aMemberThatStopsHeartbeatingIsRemovedWhenItsSessionExpires() {
        TestMember a = fixture.member("g", "a");
        TestMember b = fixture.member("g", "b");
        stableGroupOf(a, b);

        fixture.advance(6_000);
        assertThat(a.heartbeat()).isEqualTo(Errors.NONE);
        fixture.advance(3_999);
        assertThat(fixture.state("g")).isEqualTo(GroupState.STABLE);
        fixture.advance(1);

        assertThat(fixture.state("g")).isEqualTo(GroupState.PREPARING_REBALANCE);
        assertThat(memberIds(fixture.describe("g"))).containsExactly(a.memberId);
        assertThat(b.heartbeat()).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(a.heartbeat()).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        assertThat(get(a.join()).generationId()).isEqualTo(2);
    }

    @Test
    void membersThatDoNotRejoinWithinTheRebalanceTimeoutAreDropped() {
        TestMember a = fixture.member("g", "a");
        TestMember b = fixture.member("g", "b");
        stableGroupOf(a, b);
        TestMember c = fixture.member("g", "c");
        CompletableFuture<JoinGroupResponseData> jc = c.join();
        CompletableFuture<JoinGroupResponseData> ja = a.join();
        // b keeps heartbeating (it sees REBALANCE_IN_PROGRESS) but never rejoins.
        for (int i = 0; i < 5; i++) {
            fixture.advance(5_000);
            assertThat(b.heartbeat()).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        }
        assertThat(ja).isNotDone();

        fixture.advance(5_000);

        assertThat(get(ja).generationId()).isEqualTo(2);
        assertThat(get(jc).generationId()).isEqualTo(2);
        assertThat(get(ja).members()).extracting(m -> m.memberId()).containsExactlyInAnyOrder(a.memberId, c.memberId);
        assertThat(b.heartbeat()).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void aLeaderThatNeverSyncsIsRemovedAndWaitingFollowersAreToldToRejoin() {
        TestMember a = fixture.member("g", "a");
        TestMember b = fixture.member("g", "b");
        a.sessionTimeoutMs = 60_000; // outlives the sync deadline, so the sync timeout is what removes it
        CompletableFuture<JoinGroupResponseData> ja = a.join();
        CompletableFuture<JoinGroupResponseData> jb = b.join();
        fixture.tick();
        get(ja);
        get(jb);
        CompletableFuture<SyncGroupResponseData> followerSync = b.sendSync();

        fixture.advance(30_000);

        assertThat(error(get(followerSync))).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        assertThat(memberIds(fixture.describe("g"))).containsExactly(b.memberId);
        assertThat(fixture.state("g")).isEqualTo(GroupState.PREPARING_REBALANCE);
    }

    @Test
    void anUnknownMemberOnJoinGroupV4IsGivenAnIdAndAskedToRejoin() {
        TestMember a = fixture.member("g", "client-a");

        JoinGroupResponseData first = get(a.sendJoin());

        assertThat(error(first)).isEqualTo(Errors.MEMBER_ID_REQUIRED);
        assertThat(first.memberId()).startsWith("client-a-");
        assertThat(fixture.describe("g").members()).isEmpty();
        CompletableFuture<JoinGroupResponseData> second = a.sendJoin();
        fixture.tick();
        assertThat(error(get(second))).isEqualTo(Errors.NONE);
        assertThat(get(second).memberId()).isEqualTo(first.memberId());
    }

    @Test
    void aPendingMemberThatNeverRejoinsIsForgottenAfterItsSessionTimeout() {
        TestMember a = fixture.member("g", "a");
        TestMember b = fixture.member("g", "b");
        stableGroupOf(a, b);
        TestMember c = fixture.member("g", "c");
        assertThat(error(get(c.sendJoin()))).isEqualTo(Errors.MEMBER_ID_REQUIRED);
        CompletableFuture<JoinGroupResponseData> ja = a.join();
        CompletableFuture<JoinGroupResponseData> jb = b.join();
        // a and b rejoined, but the rebalance waits for the pending member too.
        assertThat(fixture.state("g")).isEqualTo(GroupState.PREPARING_REBALANCE);
        assertThat(ja).isNotDone();

        fixture.advance(10_000);

        assertThat(get(ja).generationId()).isEqualTo(2);
        assertThat(get(jb).members()).isEmpty();
        assertThat(get(ja).members()).hasSize(2);
    }

    @Test
    void joinGroupBeforeV4AddsTheMemberWithoutMemberIdRequired() {
        TestMember a = fixture.member("g", "a");
        a.version = 3;

        CompletableFuture<JoinGroupResponseData> ja = a.sendJoin();
        fixture.tick();

        assertThat(error(get(ja))).isEqualTo(Errors.NONE);
        assertThat(a.memberId).startsWith("a-");
    }

    @Test
    void theInitialRebalanceWaitsForTheDelayAndLongerWhileMembersKeepArriving() {
        fixture.close();
        fixture = GroupFixture.builder(dir).initialRebalanceDelayMs(3_000).build();
        TestMember a = fixture.member("g", "a");
        TestMember b = fixture.member("g", "b");
        CompletableFuture<JoinGroupResponseData> ja = a.join();
        fixture.advance(1_000);
        CompletableFuture<JoinGroupResponseData> jb = b.join();

        fixture.advance(2_000);
        assertThat(ja).isNotDone();
        fixture.advance(2_999);
        assertThat(ja).isNotDone();
        fixture.advance(1);

        assertThat(get(ja).generationId()).isEqualTo(1);
        assertThat(get(jb).generationId()).isEqualTo(1);
        assertThat(get(ja).members()).hasSize(2);
    }

    @Test
    void aRestartedStaticMemberTakesOverItsAssignmentWithoutARebalance() {
        TestMember a = fixture.staticMember("g", "a", "instance-a");
        TestMember b = fixture.staticMember("g", "b", "instance-b");
        stableGroupOf(a, b);
        String oldMemberId = b.memberId;

        TestMember restarted = fixture.staticMember("g", "b", "instance-b");
        JoinGroupResponseData joined = get(restarted.sendJoin());

        assertThat(error(joined)).isEqualTo(Errors.NONE);
        assertThat(joined.memberId()).isNotEqualTo(oldMemberId).startsWith("instance-b-");
        assertThat(joined.generationId()).isEqualTo(1);
        assertThat(joined.skipAssignment()).isFalse();
        assertThat(fixture.state("g")).isEqualTo(GroupState.STABLE);
        assertThat(error(get(restarted.sendSync()))).isEqualTo(Errors.NONE);
        assertThat(restarted.assignmentText()).isEqualTo("p1");
        assertThat(b.heartbeat()).isEqualTo(Errors.FENCED_INSTANCE_ID);
        assertThat(a.heartbeat()).isEqualTo(Errors.NONE);
    }

    @Test
    void aRestartedStaticLeaderGetsTheMembersButIsToldToSkipTheAssignment() {
        TestMember a = fixture.staticMember("g", "a", "instance-a");
        TestMember b = fixture.staticMember("g", "b", "instance-b");
        stableGroupOf(a, b);

        TestMember restarted = fixture.staticMember("g", "a", "instance-a");
        JoinGroupResponseData joined = get(restarted.sendJoin());

        assertThat(joined.leader()).isEqualTo(joined.memberId());
        assertThat(joined.skipAssignment()).isTrue();
        assertThat(joined.members()).hasSize(2);
        assertThat(fixture.state("g")).isEqualTo(GroupState.STABLE);
    }

    @Test
    void aRestartedStaticMemberThatChangesTheChosenProtocolTriggersARebalance() {
        TestMember a = fixture.staticMember("g", "a", "instance-a")
                .protocols(new String[] {"range", "orders"}, new String[] {"sticky", "orders"});
        TestMember b = fixture.staticMember("g", "b", "instance-b")
                .protocols(new String[] {"range", "orders"}, new String[] {"sticky", "orders"});
        stableGroupOf(a, b);

        TestMember restarted =
                fixture.staticMember("g", "b", "instance-b").protocols(new String[] {"sticky", "orders"});
        CompletableFuture<JoinGroupResponseData> joined = restarted.sendJoin();

        assertThat(fixture.state("g")).isEqualTo(GroupState.PREPARING_REBALANCE);
        assertThat(joined).isNotDone();
    }

    @Test
    void aStaticMemberThatDoesNotRejoinKeepsItsPlaceInTheNextGeneration() {
        TestMember a = fixture.staticMember("g", "a", "instance-a");
        TestMember b = fixture.staticMember("g", "b", "instance-b");
        stableGroupOf(a, b);
        TestMember c = fixture.member("g", "c");
        CompletableFuture<JoinGroupResponseData> jc = c.join();
        CompletableFuture<JoinGroupResponseData> ja = a.join();
        for (int i = 0; i < 5; i++) {
            fixture.advance(5_000);
            assertThat(b.heartbeat()).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        }

        fixture.advance(5_000);

        assertThat(get(ja).members())
                .extracting(m -> m.memberId())
                .containsExactlyInAnyOrder(a.memberId, b.memberId, c.memberId);
        assertThat(get(jc).generationId()).isEqualTo(2);
    }

    @Test
    void anAdminCanRemoveAStaticMemberByInstanceId() {
        TestMember a = fixture.staticMember("g", "a", "instance-a");
        TestMember b = fixture.staticMember("g", "b", "instance-b");
        stableGroupOf(a, b);
        TestMember admin = fixture.staticMember("g", "admin", "instance-b");

        assertThat(admin.leave()).isEqualTo(Errors.NONE);

        assertThat(memberIds(fixture.describe("g"))).containsExactly(a.memberId);
        assertThat(fixture.state("g")).isEqualTo(GroupState.PREPARING_REBALANCE);
    }

    @Test
    void aFollowerRejoiningWithUnchangedMetadataInAStableGroupGetsTheCurrentGeneration() {
        TestMember a = fixture.member("g", "a");
        TestMember b = fixture.member("g", "b");
        stableGroupOf(a, b);

        JoinGroupResponseData again = get(b.join());

        assertThat(again.generationId()).isEqualTo(1);
        assertThat(fixture.state("g")).isEqualTo(GroupState.STABLE);
    }

    @Test
    void aMemberWithIncompatibleProtocolsIsRefused() {
        TestMember a = fixture.member("g", "a");
        CompletableFuture<JoinGroupResponseData> ja = a.join();
        TestMember other = fixture.member("g", "other").protocols(new String[] {"roundrobin", "orders"});

        JoinGroupResponseData refused = get(other.join());

        assertThat(error(refused)).isEqualTo(Errors.INCONSISTENT_GROUP_PROTOCOL);
        fixture.tick();
        assertThat(error(get(ja))).isEqualTo(Errors.NONE);
    }

    @Test
    void theProtocolMostMembersPreferAmongThoseAllSupportWins() {
        TestMember a = fixture.member("g", "a").protocols(new String[] {"sticky", "t"}, new String[] {"range", "t"});
        TestMember b = fixture.member("g", "b").protocols(new String[] {"range", "t"}, new String[] {"sticky", "t"});
        TestMember c = fixture.member("g", "c").protocols(new String[] {"sticky", "t"}, new String[] {"range", "t"});
        CompletableFuture<JoinGroupResponseData> ja = a.join();
        b.join();
        c.join();

        fixture.tick();

        assertThat(get(ja).protocolName()).isEqualTo("sticky");
    }

    @Test
    void sessionTimeoutsOutsideTheBrokerBoundsAreRefused() {
        TestMember a = fixture.member("g", "a");
        a.sessionTimeoutMs = 1_000;

        assertThat(error(get(a.sendJoin()))).isEqualTo(Errors.INVALID_SESSION_TIMEOUT);
    }

    @Test
    void aStaleGenerationIsRefusedOnSyncAndHeartbeat() {
        TestMember a = fixture.member("g", "a");
        TestMember b = fixture.member("g", "b");
        stableGroupOf(a, b);
        a.generation = 0;

        assertThat(a.heartbeat()).isEqualTo(Errors.ILLEGAL_GENERATION);
        assertThat(error(get(a.sendSync()))).isEqualTo(Errors.ILLEGAL_GENERATION);
    }

    @Test
    void aGroupSizeLimitTurnsAwayExtraMembers() {
        fixture.close();
        fixture = GroupFixture.builder(dir)
                .config(GroupCoordinatorConfig.defaults()
                        .withInitialRebalanceDelayMs(0)
                        .withMaxGroupSize(1))
                .build();
        TestMember a = fixture.member("g", "a");
        TestMember b = fixture.member("g", "b");
        CompletableFuture<JoinGroupResponseData> ja = a.join();

        assertThat(error(get(b.join()))).isEqualTo(Errors.GROUP_MAX_SIZE_REACHED);
        fixture.tick();
        assertThat(error(get(ja))).isEqualTo(Errors.NONE);
    }

    @Test
    void closingTheCoordinatorAnswersParkedRequestsWithNotCoordinator() {
        TestMember a = fixture.member("g", "a");
        TestMember b = fixture.member("g", "b");
        stableGroupOf(a, b);
        TestMember c = fixture.member("g", "c");
        CompletableFuture<JoinGroupResponseData> parked = c.join();

        fixture.coordinator().close();

        assertThat(error(get(parked))).isEqualTo(Errors.NOT_COORDINATOR);
        assertThat(error(get(a.sendJoin()))).isEqualTo(Errors.NOT_COORDINATOR);
    }
}

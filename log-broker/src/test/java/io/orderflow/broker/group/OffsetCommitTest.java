package io.orderflow.broker.group;

import static io.orderflow.broker.group.GroupFixture.assignment;
import static io.orderflow.broker.group.GroupFixture.get;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopics;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OffsetCommitTest {
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

    private void stableGroupOf(TestMember a, TestMember b) {
        CompletableFuture<JoinGroupResponseData> ja = a.join();
        CompletableFuture<JoinGroupResponseData> jb = b.join();
        fixture.tick();
        get(ja);
        get(jb);
        CompletableFuture<?> sb = b.sendSync();
        get(a.sendSync(assignment(a.memberId, "p0", b.memberId, "p1")));
        get(sb);
    }

    @Test
    void aMemberCommitsInItsGenerationAndAStaleGenerationIsRejected() {
        TestMember a = fixture.member("g", "a");
        TestMember b = fixture.member("g", "b");
        stableGroupOf(a, b);

        assertThat(a.commit("orders", 0, 10)).isEqualTo(Errors.NONE);
        a.generation = 0;
        assertThat(a.commit("orders", 0, 11)).isEqualTo(Errors.ILLEGAL_GENERATION);
        assertThat(fixture.fetch("g", "orders", 0).committedOffset()).isEqualTo(10);
    }

    @Test
    void anUnknownMemberCannotCommitToAnActiveGroup() {
        TestMember a = fixture.member("g", "a");
        TestMember b = fixture.member("g", "b");
        stableGroupOf(a, b);

        assertThat(fixture.commit("g", 1, "stranger", "orders", 0, 5, "")).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(fixture.simpleCommit("g", "orders", 0, 5, "")).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void commitsWaitForTheAssignmentWhileTheGroupCompletesItsRebalance() {
        TestMember a = fixture.member("g", "a");
        CompletableFuture<JoinGroupResponseData> ja = a.join();
        fixture.tick();
        get(ja);

        assertThat(a.commit("orders", 0, 1)).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
    }

    @Test
    void aSimpleCommitToAnEmptyOrUnknownGroupIsAcceptedWithItsMetadata() {
        assertThat(fixture.simpleCommit("tools", "orders", 3, 1234, "reset by ops"))
                .isEqualTo(Errors.NONE);

        OffsetFetchResponsePartitions fetched = fixture.fetch("tools", "orders", 3);
        assertThat(fetched.committedOffset()).isEqualTo(1234);
        assertThat(fetched.metadata()).isEqualTo("reset by ops");
        assertThat(fetched.errorCode()).isZero();
        assertThat(fixture.state("tools")).isEqualTo(GroupState.EMPTY);
        assertThat(fixture.describe("tools").groupState()).isEqualTo("Empty");
    }

    @Test
    void aCommitWithAGenerationToAnUnknownGroupIsRefusedByVersion() {
        OffsetCommitRequestData request = new OffsetCommitRequestData()
                .setGroupId("nobody")
                .setGenerationIdOrMemberEpoch(3)
                .setMemberId("m")
                .setTopics(List.of(new OffsetCommitRequestTopic()
                        .setName("orders")
                        .setPartitions(List.of(new OffsetCommitRequestPartition()
                                .setPartitionIndex(0)
                                .setCommittedOffset(1)))));

        assertThat(get(fixture.coordinator().commitOffsets(request, (short) 9))
                        .topics()
                        .getFirst()
                        .partitions()
                        .getFirst()
                        .errorCode())
                .isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
        assertThat(get(fixture.coordinator().commitOffsets(request, (short) 8))
                        .topics()
                        .getFirst()
                        .partitions()
                        .getFirst()
                        .errorCode())
                .isEqualTo(Errors.ILLEGAL_GENERATION.code());
    }

    @Test
    void metadataLongerThanTheLimitIsRefusedForThatPartition() {
        assertThat(fixture.simpleCommit("g", "orders", 0, 1, "x".repeat(4097)))
                .isEqualTo(Errors.OFFSET_METADATA_TOO_LARGE);
        assertThat(fixture.fetch("g", "orders", 0).committedOffset()).isEqualTo(-1);
    }

    @Test
    void fetchingWithoutTopicsReturnsEveryCommittedPartition() {
        fixture.simpleCommit("g", "orders", 0, 5, "");
        fixture.simpleCommit("g", "orders", 1, 6, "");
        fixture.simpleCommit("g", "payments", 0, 7, "m");

        OffsetFetchResponseGroup all = fixture.fetchAll("g");

        assertThat(all.topics()).extracting(OffsetFetchResponseTopics::name).containsExactly("orders", "payments");
        assertThat(all.topics().getFirst().partitions())
                .extracting(OffsetFetchResponsePartitions::committedOffset)
                .containsExactly(5L, 6L);
        assertThat(fixture.fetchAll("unknown").topics()).isEmpty();
        assertThat(fixture.fetch("unknown", "orders", 0).committedOffset()).isEqualTo(-1);
    }

    @Test
    void offsetsAndMetadataSurviveARestart() {
        fixture.simpleCommit("g", "orders", 0, 5, "first");
        fixture.simpleCommit("g", "orders", 0, 9, "second");
        fixture.simpleCommit("h", "payments", 2, 3, "");

        fixture.restart();

        assertThat(fixture.fetch("g", "orders", 0).committedOffset()).isEqualTo(9);
        assertThat(fixture.fetch("g", "orders", 0).metadata()).isEqualTo("second");
        assertThat(fixture.fetch("h", "payments", 2).committedOffset()).isEqualTo(3);
        assertThat(fixture.state("g")).isEqualTo(GroupState.EMPTY);
        assertThat(fixture.coordinator().committedOffsets().get("g"))
                .containsEntry(new org.apache.kafka.common.TopicPartition("orders", 0), 9L);
    }

    @Test
    void aStableGroupComesBackAfterACrashWithItsMembersWhoCarryOnWithoutARebalance() {
        TestMember a = fixture.member("g", "a");
        TestMember b = fixture.member("g", "b");
        stableGroupOf(a, b);
        a.commit("orders", 0, 100);

        fixture.crashAndRestart();

        assertThat(fixture.state("g")).isEqualTo(GroupState.STABLE);
        assertThat(fixture.describe("g").members())
                .extracting(m -> GroupFixture.utf8(m.memberAssignment()))
                .containsExactlyInAnyOrder("p0", "p1");
        assertThat(a.heartbeat()).isEqualTo(Errors.NONE);
        assertThat(a.commit("orders", 0, 101)).isEqualTo(Errors.NONE);
        assertThat(fixture.fetch("g", "orders", 0).committedOffset()).isEqualTo(101);
    }

    @Test
    void membersThatDoNotComeBackAfterARestartExpireAndTheGroupRebalances() {
        TestMember a = fixture.member("g", "a");
        TestMember b = fixture.member("g", "b");
        stableGroupOf(a, b);

        fixture.restart();
        fixture.advance(6_000);
        assertThat(a.heartbeat()).isEqualTo(Errors.NONE);
        fixture.advance(4_000);

        assertThat(fixture.state("g")).isEqualTo(GroupState.PREPARING_REBALANCE);
        assertThat(GroupFixture.memberIds(fixture.describe("g"))).containsExactly(a.memberId);
    }

    @Test
    void aGroupBeingFormedIsRememberedAcrossARestartAsEmpty() {
        TestMember a = fixture.member("g", "a");
        a.join();

        fixture.restart();

        assertThat(fixture.state("g")).isEqualTo(GroupState.EMPTY);
    }

    @Test
    void offsetsSurviveCompactionOfTheOffsetsLog() {
        for (int i = 0; i < 20; i++) {
            fixture.simpleCommit("g", "orders", i % 3, 100 + i, "m" + i);
            fixture.log().forceRoll();
        }
        fixture.simpleCommit("gone", "orders", 0, 1, "");
        get(fixture.coordinator().deleteGroups(List.of("gone")));
        fixture.log().forceRoll();
        long sizeBefore = fixture.log().sizeInBytes();

        new io.orderflow.broker.log.LogCleaner(fixture.clock).clean(fixture.log());
        fixture.restart();

        assertThat(fixture.log().sizeInBytes()).isLessThan(sizeBefore);
        assertThat(fixture.fetch("g", "orders", 0).committedOffset()).isEqualTo(118);
        assertThat(fixture.fetch("g", "orders", 1).committedOffset()).isEqualTo(119);
        assertThat(fixture.fetch("g", "orders", 2).committedOffset()).isEqualTo(117);
        assertThat(fixture.fetch("g", "orders", 2).metadata()).isEqualTo("m17");
        assertThat(fixture.state("gone")).isEqualTo(GroupState.DEAD);
        assertThat(fixture.fetch("gone", "orders", 0).committedOffset()).isEqualTo(-1);
    }

    @Test
    void offsetsOfAGroupEmptyForLongerThanTheRetentionExpireAndThenTheGroup() {
        fixture.close();
        fixture = GroupFixture.builder(dir)
                .config(GroupCoordinatorConfig.defaults()
                        .withInitialRebalanceDelayMs(0)
                        .withOffsetsRetention(60_000, 1_000))
                .build();
        fixture.simpleCommit("old", "orders", 0, 5, "");
        fixture.advance(30_000);
        fixture.simpleCommit("recent", "orders", 0, 6, "");

        fixture.advance(30_000);

        assertThat(fixture.state("old")).isEqualTo(GroupState.DEAD);
        assertThat(fixture.fetch("old", "orders", 0).committedOffset()).isEqualTo(-1);
        assertThat(fixture.fetch("recent", "orders", 0).committedOffset()).isEqualTo(6);
        fixture.restart();
        assertThat(fixture.state("old")).isEqualTo(GroupState.DEAD);
    }
}

package io.orderflow.broker.group;

import static io.orderflow.broker.group.GroupFixture.assignment;
import static io.orderflow.broker.group.GroupFixture.get;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResultCollection;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroupMember;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData.ListedGroup;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestPartition;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopic;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GroupAdministrationTest {
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

    /** A Stable group "g" whose members a and b subscribe to "orders". */
    private TestMember[] stableGroup() {
        TestMember a = fixture.member("g", "a");
        TestMember b = fixture.member("g", "b");
        CompletableFuture<JoinGroupResponseData> ja = a.join();
        CompletableFuture<JoinGroupResponseData> jb = b.join();
        fixture.tick();
        get(ja);
        get(jb);
        CompletableFuture<?> sb = b.sendSync();
        get(a.sendSync(assignment(a.memberId, "orders-0", b.memberId, "orders-1")));
        get(sb);
        return new TestMember[] {a, b};
    }

    private List<ListedGroup> list(String... states) {
        return get(fixture.coordinator().listGroups(new ListGroupsRequestData().setStatesFilter(List.of(states))))
                .groups();
    }

    private Errors delete(String groupId) {
        DeletableGroupResultCollection results = get(fixture.coordinator().deleteGroups(List.of(groupId)));
        return Errors.forCode(results.find(groupId).errorCode());
    }

    private OffsetDeleteResponseData deleteOffsets(String groupId, String topic, int partition) {
        OffsetDeleteRequestTopicCollection topics = new OffsetDeleteRequestTopicCollection();
        topics.add(new OffsetDeleteRequestTopic()
                .setName(topic)
                .setPartitions(List.of(new OffsetDeleteRequestPartition().setPartitionIndex(partition))));
        return get(fixture.coordinator()
                .deleteOffsets(new OffsetDeleteRequestData().setGroupId(groupId).setTopics(topics)));
    }

    private static Errors partitionError(OffsetDeleteResponseData response, String topic) {
        return Errors.forCode(
                response.topics().find(topic).partitions().iterator().next().errorCode());
    }

    @Test
    void describeShowsAStableGroupWithProtocolMembersAndAssignments() {
        TestMember[] members = stableGroup();

        DescribedGroup g = fixture.describe("g");

        assertThat(g.errorCode()).isZero();
        assertThat(g.groupState()).isEqualTo("Stable");
        assertThat(g.protocolType()).isEqualTo("consumer");
        assertThat(g.protocolData()).isEqualTo("range");
        assertThat(g.members())
                .extracting(DescribedGroupMember::memberId)
                .containsExactlyInAnyOrder(members[0].memberId, members[1].memberId);
        DescribedGroupMember a = g.members().stream()
                .filter(m -> m.memberId().equals(members[0].memberId))
                .findFirst()
                .orElseThrow();
        assertThat(a.clientId()).isEqualTo("a");
        assertThat(a.clientHost()).isEqualTo("/127.0.0.1");
        assertThat(GroupFixture.utf8(a.memberAssignment())).isEqualTo("orders-0");
        assertThat(a.memberMetadata()).isEqualTo(GroupFixture.subscription("orders"));
    }

    @Test
    void describeNamesEveryStateAsKafkaDoes() {
        TestMember a = fixture.member("g", "a");
        CompletableFuture<JoinGroupResponseData> ja = a.join();
        assertThat(fixture.describe("g").groupState()).isEqualTo("PreparingRebalance");
        fixture.tick();
        get(ja);
        assertThat(fixture.describe("g").groupState()).isEqualTo("CompletingRebalance");
        assertThat(fixture.describe("g").protocolData()).isEmpty();
        get(a.sendSync(assignment(a.memberId, "x")));
        assertThat(fixture.describe("g").groupState()).isEqualTo("Stable");
        a.leave();
        assertThat(fixture.describe("g").groupState()).isEqualTo("Empty");
        assertThat(fixture.describe("never-seen").groupState()).isEqualTo("Dead");
        assertThat(fixture.describe("never-seen").errorCode()).isZero();
    }

    @Test
    void listGroupsFiltersByStateIgnoringCase() {
        stableGroup();
        fixture.simpleCommit("tools", "orders", 0, 1, "");

        assertThat(list()).extracting(ListedGroup::groupId).containsExactly("g", "tools");
        assertThat(list("stable")).extracting(ListedGroup::groupId).containsExactly("g");
        assertThat(list("Empty")).extracting(ListedGroup::groupId).containsExactly("tools");
        assertThat(list("Empty").getFirst().protocolType()).isEmpty();
        assertThat(list("Stable").getFirst().groupState()).isEqualTo("Stable");
        assertThat(list("Stable").getFirst().groupType()).isEqualTo("classic");
        assertThat(get(fixture.coordinator()
                                .listGroups(new ListGroupsRequestData().setTypesFilter(List.of("consumer"))))
                        .groups())
                .isEmpty();
    }

    @Test
    void onlyAnEmptyGroupCanBeDeletedAndItsOffsetsGoWithIt() {
        TestMember[] members = stableGroup();
        members[0].commit("orders", 0, 10);

        assertThat(delete("g")).isEqualTo(Errors.NON_EMPTY_GROUP);
        assertThat(delete("unknown")).isEqualTo(Errors.GROUP_ID_NOT_FOUND);
        members[0].leave();
        members[1].leave();
        assertThat(fixture.state("g")).isEqualTo(GroupState.EMPTY);

        assertThat(delete("g")).isEqualTo(Errors.NONE);

        assertThat(fixture.state("g")).isEqualTo(GroupState.DEAD);
        assertThat(fixture.fetch("g", "orders", 0).committedOffset()).isEqualTo(-1);
        fixture.restart();
        assertThat(fixture.state("g")).isEqualTo(GroupState.DEAD);
        assertThat(fixture.fetch("g", "orders", 0).committedOffset()).isEqualTo(-1);
    }

    @Test
    void aDeletedGroupCanBeJoinedAfresh() {
        fixture.simpleCommit("g", "orders", 0, 10, "");
        assertThat(delete("g")).isEqualTo(Errors.NONE);
        TestMember a = fixture.member("g", "a");

        CompletableFuture<JoinGroupResponseData> ja = a.join();
        fixture.tick();

        assertThat(get(ja).generationId()).isEqualTo(1);
    }

    @Test
    void offsetsOfATopicTheStableGroupConsumesCannotBeDeleted() {
        TestMember[] members = stableGroup();
        members[0].commit("orders", 0, 10);
        members[0].commit("payments", 0, 20);

        OffsetDeleteResponseData subscribed = deleteOffsets("g", "orders", 0);
        OffsetDeleteResponseData notSubscribed = deleteOffsets("g", "payments", 0);

        assertThat(subscribed.errorCode()).isZero();
        assertThat(partitionError(subscribed, "orders")).isEqualTo(Errors.GROUP_SUBSCRIBED_TO_TOPIC);
        assertThat(partitionError(notSubscribed, "payments")).isEqualTo(Errors.NONE);
        assertThat(fixture.fetch("g", "orders", 0).committedOffset()).isEqualTo(10);
        assertThat(fixture.fetch("g", "payments", 0).committedOffset()).isEqualTo(-1);
    }

    @Test
    void anEmptyGroupsOffsetsCanBeDeletedAndUnknownGroupsAreReported() {
        fixture.simpleCommit("g", "orders", 0, 10, "");

        assertThat(partitionError(deleteOffsets("g", "orders", 0), "orders")).isEqualTo(Errors.NONE);
        assertThat(fixture.fetch("g", "orders", 0).committedOffset()).isEqualTo(-1);
        assertThat(deleteOffsets("unknown", "orders", 0).errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
        fixture.restart();
        assertThat(fixture.fetch("g", "orders", 0).committedOffset()).isEqualTo(-1);
    }

    @Test
    void anActiveGroupOutsideTheConsumerProtocolCannotHaveOffsetsDeleted() {
        TestMember a = fixture.member("g", "connect");
        a.protocolType = "connect";
        CompletableFuture<JoinGroupResponseData> ja = a.join();
        fixture.tick();
        get(ja);

        assertThat(deleteOffsets("g", "orders", 0).errorCode()).isEqualTo(Errors.NON_EMPTY_GROUP.code());
    }
}

package io.orderflow.broker.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.orderflow.broker.group.GroupRecord.GroupMetadata;
import io.orderflow.broker.group.GroupRecord.GroupSnapshot;
import io.orderflow.broker.group.GroupRecord.MemberSnapshot;
import io.orderflow.broker.group.GroupRecord.OffsetCommit;
import io.orderflow.property.Gen;
import io.orderflow.property.Properties;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

class GroupRecordCodecTest {

    private static GroupRecord roundTrip(GroupRecord record) {
        byte[] value = GroupRecordCodec.value(record);
        return GroupRecordCodec.decode(
                ByteBuffer.wrap(GroupRecordCodec.key(record)), value == null ? null : ByteBuffer.wrap(value));
    }

    static OffsetCommit offsetCommit(Gen gen) {
        String groupId = text(gen);
        String topic = text(gen);
        int partition = gen.ints(0, 10_000);
        CommittedOffset offset = gen.chance(0.2)
                ? null
                : new CommittedOffset(
                        gen.longs(0, Long.MAX_VALUE),
                        gen.ints(-1, 100),
                        text(gen),
                        gen.longs(0, Long.MAX_VALUE / 2),
                        gen.oneOf(-1L, 5L));
        return new OffsetCommit(groupId, topic, partition, offset);
    }

    /** Up to 30 UTF-16 chars of any code points (a supplementary one takes two), empty and full length favoured. */
    static String text(Gen gen) {
        int length = gen.size(0, 30);
        StringBuilder text = new StringBuilder(length);
        while (text.length() < length) {
            String codePoint = gen.anyString(1, 1);
            if (text.length() + codePoint.length() <= length) {
                text.append(codePoint);
            }
        }
        return text.toString();
    }

    @Test
    void offsetRecordsSurviveEncoding() {
        Properties.forAll(200, gen -> {
            OffsetCommit record = offsetCommit(gen);
            assertThat(roundTrip(record)).isEqualTo(record);
        });
    }

    @Test
    void groupMetadataSurvivesEncodingWithItsMembers() {
        MemberSnapshot member = new MemberSnapshot(
                "a-1", "instance-a", "a", "/10.0.0.1", 30_000, 10_000, new byte[] {1, 2}, new byte[] {3});
        MemberSnapshot dynamic = new MemberSnapshot("b-2", null, "b", "/10.0.0.2", 5, 6, new byte[0], new byte[0]);
        GroupMetadata record = new GroupMetadata(
                "grüppe", new GroupSnapshot("consumer", 7, "range", "a-1", 123L, List.of(member, dynamic)));

        GroupMetadata decoded = (GroupMetadata) roundTrip(record);

        GroupSnapshot s = decoded.value();
        assertThat(decoded.groupId()).isEqualTo("grüppe");
        assertThat(s.protocolType()).isEqualTo("consumer");
        assertThat(s.generationId()).isEqualTo(7);
        assertThat(s.protocolName()).isEqualTo("range");
        assertThat(s.leaderId()).isEqualTo("a-1");
        assertThat(s.stateTimestampMs()).isEqualTo(123L);
        assertThat(s.members()).hasSize(2);
        assertThat(s.members().getFirst().groupInstanceId()).isEqualTo("instance-a");
        assertThat(s.members().getFirst().subscription()).containsExactly(1, 2);
        assertThat(s.members().getFirst().assignment()).containsExactly(3);
        assertThat(s.members().get(1).groupInstanceId()).isNull();
    }

    @Test
    void anEmptyGroupAndAGroupTombstoneSurviveEncoding() {
        GroupMetadata empty = new GroupMetadata("g", new GroupSnapshot("", 0, null, null, 5L, List.of()));

        assertThat(((GroupMetadata) roundTrip(empty)).value().protocolName()).isNull();
        assertThat(roundTrip(new GroupMetadata("g", null))).isEqualTo(new GroupMetadata("g", null));
    }

    @Test
    void offsetAndGroupKeysOfTheSameGroupDiffer() {
        assertThat(GroupRecordCodec.key(new GroupMetadata("g", null)))
                .isNotEqualTo(GroupRecordCodec.key(new OffsetCommit("g", "", 0, null)));
    }

    @Test
    void unknownKeyTypesAndValueVersionsAreRefused() {
        ByteBuffer key = ByteBuffer.allocate(2).putShort(0, (short) 9);
        assertThatThrownBy(() -> GroupRecordCodec.decode(key, null)).hasMessageContaining("key type 9");

        byte[] value = GroupRecordCodec.value(new OffsetCommit("g", "t", 0, new CommittedOffset(1, -1, "", 0, -1)));
        value[1] = 7;
        byte[] k = GroupRecordCodec.key(new OffsetCommit("g", "t", 0, null));
        assertThatThrownBy(() -> GroupRecordCodec.decode(ByteBuffer.wrap(k), ByteBuffer.wrap(value)))
                .hasMessageContaining("version 7");
        assertThatThrownBy(() -> GroupRecordCodec.decode(ByteBuffer.wrap(k), ByteBuffer.wrap(new byte[] {0, 0, 1})))
                .hasMessageContaining("ends early");
    }

    private static MemberAssignment assignment(Gen gen) {
        java.util.Map<java.util.UUID, java.util.Set<Integer>> partitions = new java.util.HashMap<>();
        int topics = gen.ints(0, 3);
        for (int t = 0; t < topics; t++) {
            java.util.Set<Integer> ps = new java.util.HashSet<>(gen.list(1, 5, g -> g.ints(0, 1000)));
            partitions.put(gen.uuid(), ps);
        }
        return MemberAssignment.of(partitions);
    }

    @Test
    void consumerGroupRecordsSurviveEncodingAndShareTheClassicGroupsKey() {
        Properties.forAll(200, gen -> {
            String groupId = text(gen);
            var group = new GroupRecord.ConsumerGroupMetadata(
                    groupId,
                    gen.chance(0.1)
                            ? null
                            : new GroupRecord.ConsumerGroupSnapshot(
                                    gen.ints(0, 1000),
                                    gen.ints(0, 1000),
                                    gen.oneOf("uniform", "range"),
                                    gen.longs(0, Long.MAX_VALUE / 2),
                                    gen.list(
                                            0,
                                            3,
                                            g -> new GroupRecord.SubscribedTopic(
                                                    text(g),
                                                    new ServerAssignor.TopicShape(g.uuid(), g.ints(1, 100))))));
            GroupRecord decoded = roundTrip(group);
            if (group.value() == null) {
                assertThat(decoded).isEqualTo(new GroupMetadata(groupId, null)); // a tombstone deletes either kind
            } else {
                assertThat(decoded).isEqualTo(group);
            }
            assertThat(GroupRecordCodec.key(group)).isEqualTo(GroupRecordCodec.key(new GroupMetadata(groupId, null)));

            String memberId = text(gen);
            var member = new GroupRecord.ConsumerMember(
                    groupId,
                    memberId,
                    gen.chance(0.1)
                            ? null
                            : new GroupRecord.ConsumerMemberSnapshot(
                                    memberId,
                                    gen.bool() ? null : text(gen),
                                    gen.bool() ? null : text(gen),
                                    text(gen),
                                    text(gen),
                                    gen.ints(0, 300_000),
                                    gen.list(0, 4, GroupRecordCodecTest::text),
                                    gen.bool() ? null : text(gen),
                                    gen.bool() ? null : "range",
                                    gen.ints(-2, 1000),
                                    gen.ints(-2, 1000),
                                    gen.oneOf(ConsumerGroupMember.State.values()),
                                    assignment(gen),
                                    assignment(gen),
                                    assignment(gen)));
            assertThat(roundTrip(member)).isEqualTo(member);
        });
    }

    @Test
    void aTruncatedConsumerMemberRecordIsRefusedNotMisread() {
        var member = new GroupRecord.ConsumerMember(
                "g",
                "m",
                new GroupRecord.ConsumerMemberSnapshot(
                        "m",
                        null,
                        null,
                        "c",
                        "/h",
                        1000,
                        List.of("orders"),
                        null,
                        null,
                        3,
                        2,
                        ConsumerGroupMember.State.STABLE,
                        MemberAssignment.of(java.util.Map.of(java.util.UUID.randomUUID(), java.util.Set.of(1, 2))),
                        MemberAssignment.EMPTY,
                        MemberAssignment.EMPTY));
        byte[] value = GroupRecordCodec.value(member);
        for (int cut = 0; cut < value.length; cut++) {
            ByteBuffer truncated = ByteBuffer.wrap(java.util.Arrays.copyOf(value, cut));
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> GroupRecordCodec.decode(ByteBuffer.wrap(GroupRecordCodec.key(member)), truncated))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}

package io.orderflow.broker.group;

import io.orderflow.broker.group.GroupRecord.ConsumerGroupMetadata;
import io.orderflow.broker.group.GroupRecord.ConsumerGroupSnapshot;
import io.orderflow.broker.group.GroupRecord.ConsumerMember;
import io.orderflow.broker.group.GroupRecord.ConsumerMemberSnapshot;
import io.orderflow.broker.group.GroupRecord.GroupMetadata;
import io.orderflow.broker.group.GroupRecord.GroupSnapshot;
import io.orderflow.broker.group.GroupRecord.MemberSnapshot;
import io.orderflow.broker.group.GroupRecord.OffsetCommit;
import io.orderflow.broker.group.GroupRecord.SubscribedTopic;
import io.orderflow.broker.group.ServerAssignor.TopicShape;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * Our own key/value encoding of the records in {@code __consumer_offsets} (not Kafka's, which nobody else
 * reads here). All integers are big-endian; a string is an int16 length (-1 for null) and UTF-8 bytes; a
 * byte array is an int32 length (-1 for null) and the bytes.
 *
 * <pre>
 * offset key      int16 1 | string group | string topic | int32 partition
 * offset value    int16 0 | int64 offset | int32 leader epoch | string metadata
 *                 | int64 commit timestamp | int64 expire timestamp (-1: none)
 * group key       int16 2 | string group
 * group value     int16 0 | string protocol type | int32 generation | string protocol (nullable)
 *                 | string leader (nullable) | int64 state timestamp | int32 member count
 *                 | per member: string member id | string group instance id (nullable) | string client id
 *                   | string client host | int32 rebalance timeout | int32 session timeout
 *                   | bytes subscription | bytes assignment
 * consumer group  int16 1 | int32 group epoch | int32 assignment epoch | string assignor | int64 state timestamp
 *   value (same   | int32 topic count | per topic: string name | uuid id | int32 partitions
 *   group key)
 * member key      int16 3 | string group | string member id
 * member value    int16 0 | string instance id (nullable) | string rack id (nullable)
 *                 | string client id | string client host | int32 rebalance timeout
 *                 | int32 count, strings: subscribed topic names | string topic regex (nullable)
 *                 | string assignor (nullable) | int32 member epoch | int32 previous member epoch
 *                 | int8 state | assignment assigned | assignment pending revocation | assignment target
 * uuid            int64 most significant bits | int64 least significant bits
 * assignment      int32 topic count | per topic: uuid | int32 count, int32 partitions
 * </pre>
 *
 * The key type comes first so that compaction keeps one record per (group, topic, partition) and one per
 * group. Each value starts with its version: a reader refuses versions it does not know rather than guess.
 */
final class GroupRecordCodec {
    static final short OFFSET_KEY = 1;
    static final short GROUP_KEY = 2;
    static final short CONSUMER_MEMBER_KEY = 3;
    private static final short VALUE_VERSION = 0;
    private static final short CONSUMER_GROUP_VERSION = 1;

    private GroupRecordCodec() {}

    static byte[] key(GroupRecord record) {
        Writer w = new Writer();
        switch (record) {
            case OffsetCommit c ->
                w.int16(OFFSET_KEY).string(c.groupId()).string(c.topic()).int32(c.partition());
            case GroupMetadata g -> w.int16(GROUP_KEY).string(g.groupId());
            case ConsumerGroupMetadata g -> w.int16(GROUP_KEY).string(g.groupId());
            case ConsumerMember m ->
                w.int16(CONSUMER_MEMBER_KEY).string(m.groupId()).string(m.memberId());
        }
        return w.toArray();
    }

    /** The value bytes, or null for a tombstone. */
    static byte[] value(GroupRecord record) {
        return switch (record) {
            case OffsetCommit c -> c.value() == null ? null : offsetValue(c.value());
            case GroupMetadata g -> g.value() == null ? null : groupValue(g.value());
            case ConsumerGroupMetadata g -> g.value() == null ? null : consumerGroupValue(g.value());
            case ConsumerMember m -> m.value() == null ? null : memberValue(m.value());
        };
    }

    private static byte[] offsetValue(CommittedOffset o) {
        return new Writer()
                .int16(VALUE_VERSION)
                .int64(o.offset())
                .int32(o.leaderEpoch())
                .string(o.metadata())
                .int64(o.commitTimestampMs())
                .int64(o.expireTimestampMs())
                .toArray();
    }

    private static byte[] groupValue(GroupSnapshot g) {
        Writer w = new Writer()
                .int16(VALUE_VERSION)
                .string(g.protocolType())
                .int32(g.generationId())
                .string(g.protocolName())
                .string(g.leaderId())
                .int64(g.stateTimestampMs())
                .int32(g.members().size());
        for (MemberSnapshot m : g.members()) {
            w.string(m.memberId())
                    .string(m.groupInstanceId())
                    .string(m.clientId())
                    .string(m.clientHost())
                    .int32(m.rebalanceTimeoutMs())
                    .int32(m.sessionTimeoutMs())
                    .bytes(m.subscription())
                    .bytes(m.assignment());
        }
        return w.toArray();
    }

    private static byte[] consumerGroupValue(ConsumerGroupSnapshot g) {
        Writer w = new Writer()
                .int16(CONSUMER_GROUP_VERSION)
                .int32(g.groupEpoch())
                .int32(g.assignmentEpoch())
                .string(g.assignor())
                .int64(g.stateTimestampMs())
                .int32(g.topics().size());
        for (SubscribedTopic t : g.topics()) {
            w.string(t.name()).uuid(t.shape().id()).int32(t.shape().partitions());
        }
        return w.toArray();
    }

    private static byte[] memberValue(ConsumerMemberSnapshot m) {
        Writer w = new Writer()
                .int16(VALUE_VERSION)
                .string(m.instanceId())
                .string(m.rackId())
                .string(m.clientId())
                .string(m.clientHost())
                .int32(m.rebalanceTimeoutMs())
                .int32(m.topicNames().size());
        m.topicNames().forEach(w::string);
        return w.string(m.topicRegex())
                .string(m.assignor())
                .int32(m.memberEpoch())
                .int32(m.previousMemberEpoch())
                .int8(m.state().ordinal())
                .assignment(m.assigned())
                .assignment(m.pendingRevocation())
                .assignment(m.target())
                .toArray();
    }

    /**
     * Decodes one record of the log.
     *
     * @throws IllegalArgumentException for a key type or value version this code does not know, or bytes
     *     that end early
     */
    static GroupRecord decode(ByteBuffer key, ByteBuffer value) {
        try {
            ByteBuffer k = key.duplicate();
            short type = k.getShort();
            return switch (type) {
                case OFFSET_KEY -> {
                    String group = string(k);
                    String topic = string(k);
                    int partition = k.getInt();
                    yield new OffsetCommit(group, topic, partition, value == null ? null : offsetValue(value));
                }
                case GROUP_KEY -> {
                    String group = string(k);
                    if (value != null && value.duplicate().getShort() == CONSUMER_GROUP_VERSION) {
                        yield new ConsumerGroupMetadata(group, consumerGroupValue(value));
                    }
                    yield new GroupMetadata(group, value == null ? null : groupValue(value));
                }
                case CONSUMER_MEMBER_KEY -> {
                    String group = string(k);
                    String member = string(k);
                    yield new ConsumerMember(group, member, value == null ? null : memberValue(member, value));
                }
                default -> throw new IllegalArgumentException("unknown key type " + type);
            };
        } catch (java.nio.BufferUnderflowException e) {
            throw new IllegalArgumentException("record ends early", e);
        }
    }

    private static CommittedOffset offsetValue(ByteBuffer value) {
        ByteBuffer v = value.duplicate();
        checkVersion(v.getShort(), "offset");
        return new CommittedOffset(v.getLong(), v.getInt(), string(v), v.getLong(), v.getLong());
    }

    private static GroupSnapshot groupValue(ByteBuffer value) {
        ByteBuffer v = value.duplicate();
        checkVersion(v.getShort(), "group");
        String protocolType = string(v);
        int generation = v.getInt();
        String protocol = string(v);
        String leader = string(v);
        long stateTimestamp = v.getLong();
        int count = v.getInt();
        if (count < 0 || count > v.remaining()) {
            throw new IllegalArgumentException("bad member count " + count);
        }
        List<MemberSnapshot> members = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            members.add(new MemberSnapshot(
                    string(v), string(v), string(v), string(v), v.getInt(), v.getInt(), bytes(v), bytes(v)));
        }
        return new GroupSnapshot(protocolType, generation, protocol, leader, stateTimestamp, members);
    }

    private static ConsumerGroupSnapshot consumerGroupValue(ByteBuffer value) {
        ByteBuffer v = value.duplicate();
        v.getShort();
        int groupEpoch = v.getInt();
        int assignmentEpoch = v.getInt();
        String assignor = string(v);
        long stateTimestamp = v.getLong();
        int topicCount = count(v);
        List<SubscribedTopic> topics = new ArrayList<>(topicCount);
        for (int i = 0; i < topicCount; i++) {
            topics.add(new SubscribedTopic(string(v), new TopicShape(uuid(v), v.getInt())));
        }
        return new ConsumerGroupSnapshot(groupEpoch, assignmentEpoch, assignor, stateTimestamp, topics);
    }

    private static ConsumerMemberSnapshot memberValue(String memberId, ByteBuffer value) {
        ByteBuffer v = value.duplicate();
        checkVersion(v.getShort(), "consumer group member");
        String instanceId = string(v);
        String rackId = string(v);
        String clientId = string(v);
        String clientHost = string(v);
        int rebalanceTimeoutMs = v.getInt();
        int nameCount = count(v);
        List<String> names = new ArrayList<>(nameCount);
        for (int n = 0; n < nameCount; n++) {
            names.add(string(v));
        }
        String regex = string(v);
        String assignor = string(v);
        int epoch = v.getInt();
        int previousEpoch = v.getInt();
        int state = v.get();
        if (state < 0 || state >= ConsumerGroupMember.State.values().length) {
            throw new IllegalArgumentException("unknown member state " + state);
        }
        return new ConsumerMemberSnapshot(
                memberId,
                instanceId,
                rackId,
                clientId,
                clientHost,
                rebalanceTimeoutMs,
                names,
                regex,
                assignor,
                epoch,
                previousEpoch,
                ConsumerGroupMember.State.values()[state],
                assignment(v),
                assignment(v),
                assignment(v));
    }

    private static MemberAssignment assignment(ByteBuffer v) {
        int topics = count(v);
        Map<UUID, SortedSet<Integer>> out = new TreeMap<>();
        for (int i = 0; i < topics; i++) {
            UUID id = uuid(v);
            int n = count(v);
            SortedSet<Integer> partitions = new TreeSet<>();
            for (int p = 0; p < n; p++) {
                partitions.add(v.getInt());
            }
            out.put(id, partitions);
        }
        return new MemberAssignment(out);
    }

    private static UUID uuid(ByteBuffer v) {
        return new UUID(v.getLong(), v.getLong());
    }

    /** A count of items that follow: at least 0, and no more than the bytes left could hold. */
    private static int count(ByteBuffer v) {
        int count = v.getInt();
        if (count < 0 || count > v.remaining()) {
            throw new IllegalArgumentException("bad count " + count);
        }
        return count;
    }

    private static void checkVersion(short version, String what) {
        if (version != VALUE_VERSION) {
            throw new IllegalArgumentException("unknown " + what + " value version " + version);
        }
    }

    private static String string(ByteBuffer b) {
        short length = b.getShort();
        if (length < 0) {
            return null;
        }
        byte[] bytes = new byte[length];
        b.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static byte[] bytes(ByteBuffer b) {
        int length = b.getInt();
        if (length < 0) {
            return null;
        }
        if (length > b.remaining()) {
            throw new IllegalArgumentException("byte array of " + length + " bytes with " + b.remaining() + " left");
        }
        byte[] bytes = new byte[length];
        b.get(bytes);
        return bytes;
    }

    /** A growing big-endian buffer. */
    private static final class Writer {
        private ByteBuffer buf = ByteBuffer.allocate(64);

        Writer int16(int v) {
            ensure(2).putShort((short) v);
            return this;
        }

        Writer int8(int v) {
            ensure(1).put((byte) v);
            return this;
        }

        Writer uuid(UUID id) {
            return int64(id.getMostSignificantBits()).int64(id.getLeastSignificantBits());
        }

        Writer assignment(MemberAssignment a) {
            int32(a.partitions().size());
            a.partitions().forEach((topic, partitions) -> {
                uuid(topic).int32(partitions.size());
                partitions.forEach(this::int32);
            });
            return this;
        }

        Writer int32(int v) {
            ensure(4).putInt(v);
            return this;
        }

        Writer int64(long v) {
            ensure(8).putLong(v);
            return this;
        }

        Writer string(String s) {
            if (s == null) {
                return int16(-1);
            }
            byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
            if (bytes.length > Short.MAX_VALUE) {
                throw new IllegalArgumentException(
                        "string of " + bytes.length + " UTF-8 bytes is longer than " + Short.MAX_VALUE);
            }
            int16(bytes.length);
            ensure(bytes.length).put(bytes);
            return this;
        }

        Writer bytes(byte[] b) {
            if (b == null) {
                return int32(-1);
            }
            int32(b.length);
            ensure(b.length).put(b);
            return this;
        }

        private ByteBuffer ensure(int n) {
            if (buf.remaining() < n) {
                ByteBuffer bigger = ByteBuffer.allocate(Math.max(buf.capacity() * 2, buf.position() + n));
                buf.flip();
                bigger.put(buf);
                buf = bigger;
            }
            return buf;
        }

        byte[] toArray() {
            byte[] out = new byte[buf.position()];
            buf.flip().get(out);
            return out;
        }
    }
}

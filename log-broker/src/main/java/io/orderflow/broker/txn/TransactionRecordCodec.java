package io.orderflow.broker.txn;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * The bytes of the transaction log's records. The key is the transactional id, so compaction keeps each id's latest
 * state; a null value (a tombstone) forgets the id.
 *
 * <pre>
 * key:   version int16 (0) | transactionalId string
 * value: version int16 (0) | producerId int64 | producerEpoch int16 | timeoutMs int32 | state int8 |
 *        txnStartMs int64 | lastUpdateMs int64 | partitionCount int32 | partitionCount x (topic string | partition int32)
 * string: length int16 | UTF-8 bytes
 * </pre>
 */
final class TransactionRecordCodec {
    private static final short VERSION = 0;

    private TransactionRecordCodec() {}

    static byte[] key(String transactionalId) {
        byte[] id = transactionalId.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(2 + 2 + id.length)
                .putShort(VERSION)
                .putShort((short) id.length)
                .put(id)
                .array();
    }

    static byte[] value(TransactionMetadata m) {
        int size = 2 + 8 + 2 + 4 + 1 + 8 + 8 + 4;
        for (TopicPartition tp : m.partitions()) {
            size += 2 + tp.topic().getBytes(StandardCharsets.UTF_8).length + 4;
        }
        ByteBuffer buf = ByteBuffer.allocate(size)
                .putShort(VERSION)
                .putLong(m.producerId())
                .putShort(m.producerEpoch())
                .putInt(m.timeoutMs())
                .put(m.state().id())
                .putLong(m.txnStartMs())
                .putLong(m.lastUpdateMs())
                .putInt(m.partitions().size());
        for (TopicPartition tp : m.partitions()) {
            byte[] topic = tp.topic().getBytes(StandardCharsets.UTF_8);
            buf.putShort((short) topic.length).put(topic).putInt(tp.partition());
        }
        return buf.array();
    }

    /** The transactional id of a key. */
    static String decodeKey(ByteBuffer key) {
        try {
            ByteBuffer buf = key.duplicate();
            short version = buf.getShort();
            if (version != VERSION) {
                throw new IllegalArgumentException("unknown transaction key version " + version);
            }
            return string(buf);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("a transaction key runs past its end");
        }
    }

    /** The metadata of a value; {@code transactionalId} comes from its key. */
    static TransactionMetadata decodeValue(String transactionalId, ByteBuffer value) {
        try {
            ByteBuffer buf = value.duplicate();
            short version = buf.getShort();
            if (version != VERSION) {
                throw new IllegalArgumentException("unknown transaction value version " + version);
            }
            long producerId = buf.getLong();
            short epoch = buf.getShort();
            int timeoutMs = buf.getInt();
            TransactionState state = TransactionState.ofId(buf.get());
            long start = buf.getLong();
            long update = buf.getLong();
            int count = buf.getInt();
            if (count < 0 || count > buf.remaining() / 6) {
                throw new IllegalArgumentException("partition count " + count + " does not fit the value");
            }
            Set<TopicPartition> partitions = new HashSet<>();
            for (int i = 0; i < count; i++) {
                partitions.add(new TopicPartition(string(buf), buf.getInt()));
            }
            return new TransactionMetadata(
                    transactionalId, producerId, epoch, timeoutMs, state, partitions, start, update);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("a transaction value runs past its end");
        }
    }

    private static String string(ByteBuffer buf) {
        int length = buf.getShort();
        if (length < 0 || length > buf.remaining()) {
            throw new IllegalArgumentException("a string of " + length + " bytes does not fit");
        }
        byte[] bytes = new byte[length];
        buf.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}

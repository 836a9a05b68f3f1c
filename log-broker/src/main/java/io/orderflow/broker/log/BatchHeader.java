package io.orderflow.broker.log;

import java.nio.ByteBuffer;

/**
 * The fixed 61-byte header of a Kafka v2 record batch, read without touching the records.
 *
 * <pre>
 * baseOffset int64 | batchLength int32 | partitionLeaderEpoch int32 | magic int8 | crc uint32 |
 * attributes int16 | lastOffsetDelta int32 | baseTimestamp int64 | maxTimestamp int64 |
 * producerId int64 | producerEpoch int16 | baseSequence int32 | recordCount int32 | records...
 * </pre>
 *
 * {@code batchLength} counts the bytes after itself, so a batch occupies {@code batchLength + 12} bytes.
 * The CRC-32C covers everything from {@code attributes} to the end, which is why the broker can assign
 * the base offset without recomputing it.
 */
public record BatchHeader(
        long baseOffset,
        int batchLength,
        byte magic,
        int crc,
        short attributes,
        int lastOffsetDelta,
        long baseTimestamp,
        long maxTimestamp,
        long producerId,
        short producerEpoch,
        int baseSequence,
        int recordCount) {

    public static final int SIZE = 61;
    public static final int LOG_OVERHEAD = 12;
    public static final int LENGTH_OFFSET = 8;
    public static final int MAGIC_OFFSET = 16;
    public static final int CRC_OFFSET = 17;
    public static final int ATTRIBUTES_OFFSET = 21;
    public static final byte CURRENT_MAGIC = 2;
    /** The highest compression type id with a codec (zstd); the attributes' low three bits hold it. */
    public static final int MAX_COMPRESSION_ID = 4;
    /** The smallest legal {@code batchLength}: a header with no records. */
    public static final int MIN_BATCH_LENGTH = SIZE - LOG_OVERHEAD;

    private static final int TRANSACTIONAL_FLAG = 0x10;
    private static final int CONTROL_FLAG = 0x20;

    /** Reads a header at the buffer's absolute {@code position}; the buffer must hold {@link #SIZE} bytes there. */
    public static BatchHeader read(ByteBuffer buf, int position) {
        return new BatchHeader(
                buf.getLong(position),
                buf.getInt(position + LENGTH_OFFSET),
                buf.get(position + MAGIC_OFFSET),
                buf.getInt(position + CRC_OFFSET),
                buf.getShort(position + ATTRIBUTES_OFFSET),
                buf.getInt(position + 23),
                buf.getLong(position + 27),
                buf.getLong(position + 35),
                buf.getLong(position + 43),
                buf.getShort(position + 51),
                buf.getInt(position + 53),
                buf.getInt(position + 57));
    }

    /** Bytes the whole batch occupies in the log. */
    public int sizeInBytes() {
        return batchLength + LOG_OVERHEAD;
    }

    public long lastOffset() {
        return baseOffset + lastOffsetDelta;
    }

    public long nextOffset() {
        return lastOffset() + 1;
    }

    public boolean hasProducerId() {
        return producerId >= 0;
    }

    public int lastSequence() {
        if (baseSequence < 0) {
            return baseSequence;
        }
        long last = (long) baseSequence + lastOffsetDelta;
        return (int) (last > Integer.MAX_VALUE ? last - Integer.MAX_VALUE - 1 : last);
    }

    /** The compression type id: 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd; 5 to 7 name no codec. */
    public int compressionId() {
        return attributes & 0x07;
    }

    public boolean isTransactional() {
        return (attributes & TRANSACTIONAL_FLAG) != 0;
    }

    public boolean isControl() {
        return (attributes & CONTROL_FLAG) != 0;
    }

    public BatchHeader withBaseOffset(long newBaseOffset) {
        return new BatchHeader(
                newBaseOffset,
                batchLength,
                magic,
                crc,
                attributes,
                lastOffsetDelta,
                baseTimestamp,
                maxTimestamp,
                producerId,
                producerEpoch,
                baseSequence,
                recordCount);
    }
}

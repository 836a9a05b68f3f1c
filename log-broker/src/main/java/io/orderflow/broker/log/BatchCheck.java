package io.orderflow.broker.log;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Structural and CRC checks of one v2 record batch in a buffer. Used on every batch a producer sends, by
 * recovery on every batch of a log tail, and by reads the first time they cover a region of a segment.
 * Stateless and thread-safe.
 */
final class BatchCheck {
    private BatchCheck() {}

    /**
     * Why the batch at {@code position} is not valid, or {@code null} when it is. {@code limit} is the
     * end of the bytes that may belong to it.
     */
    static String problem(ByteBuffer buf, int position, int limit) {
        int available = limit - position;
        if (available < BatchHeader.SIZE) {
            return "only " + available + " bytes left, a batch header needs " + BatchHeader.SIZE;
        }
        int length = buf.getInt(position + BatchHeader.LENGTH_OFFSET);
        if (length < BatchHeader.MIN_BATCH_LENGTH) {
            return "batch length " + length + " is below the minimum " + BatchHeader.MIN_BATCH_LENGTH;
        }
        if ((long) length + BatchHeader.LOG_OVERHEAD > available) {
            return "batch length " + length + " runs past the " + available + " bytes available";
        }
        byte magic = buf.get(position + BatchHeader.MAGIC_OFFSET);
        if (magic != BatchHeader.CURRENT_MAGIC) {
            return "magic " + magic + " is not supported, only v2 record batches are";
        }
        int stored = buf.getInt(position + BatchHeader.CRC_OFFSET);
        int computed = crc(buf, position, length + BatchHeader.LOG_OVERHEAD);
        if (stored != computed) {
            return "CRC mismatch: stored " + Integer.toUnsignedString(stored, 16) + ", computed "
                    + Integer.toUnsignedString(computed, 16);
        }
        int lastOffsetDelta = buf.getInt(position + 23);
        int recordCount = buf.getInt(position + 57);
        if (lastOffsetDelta < 0 || recordCount < 0) {
            return "negative lastOffsetDelta " + lastOffsetDelta + " or record count " + recordCount;
        }
        return null;
    }

    static int crc(ByteBuffer buf, int position, int batchSize) {
        CRC32C crc = new CRC32C();
        ByteBuffer covered = buf.duplicate();
        covered.limit(position + batchSize).position(position + BatchHeader.ATTRIBUTES_OFFSET);
        crc.update(covered);
        return (int) crc.getValue();
    }
}

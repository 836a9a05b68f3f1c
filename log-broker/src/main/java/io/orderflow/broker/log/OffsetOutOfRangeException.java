package io.orderflow.broker.log;

/** A read or DeleteRecords named an offset outside the log. Maps to OFFSET_OUT_OF_RANGE. */
public final class OffsetOutOfRangeException extends LogException {
    private final long offset;
    private final long logStartOffset;
    private final long logEndOffset;

    public OffsetOutOfRangeException(String partition, long offset, long logStartOffset, long logEndOffset) {
        super("Offset " + offset + " is out of range for " + partition + ", which holds [" + logStartOffset + ", "
                + logEndOffset + ")");
        this.offset = offset;
        this.logStartOffset = logStartOffset;
        this.logEndOffset = logEndOffset;
    }

    public long offset() {
        return offset;
    }

    public long logStartOffset() {
        return logStartOffset;
    }

    public long logEndOffset() {
        return logEndOffset;
    }
}

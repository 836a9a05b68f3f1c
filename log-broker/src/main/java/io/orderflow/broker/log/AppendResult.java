package io.orderflow.broker.log;

/**
 * What an append stored: the offsets it was given, or, for a retried batch of an idempotent producer, the
 * offsets it was given the first time ({@code duplicate} is then true and nothing new was written).
 */
public record AppendResult(long firstOffset, long lastOffset, long logStartOffset, boolean duplicate) {
    /** The log end offset right after this append; what durability is awaited for. */
    public long endOffset() {
        return lastOffset + 1;
    }
}

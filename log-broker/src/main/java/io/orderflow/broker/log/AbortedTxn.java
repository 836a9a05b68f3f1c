package io.orderflow.broker.log;

/**
 * One aborted transaction of one partition, as a {@code read_committed} fetch reports it: the producer, the offset of
 * the transaction's first record here and the offset of its abort marker. A consumer skips that producer's
 * transactional batches from {@code firstOffset} until it reads the marker.
 */
public record AbortedTxn(long producerId, long firstOffset, long lastOffset) {
    public AbortedTxn {
        if (producerId < 0 || firstOffset < 0 || lastOffset < firstOffset) {
            throw new IllegalArgumentException(
                    "aborted transaction of producer " + producerId + " from " + firstOffset + " to " + lastOffset);
        }
    }
}

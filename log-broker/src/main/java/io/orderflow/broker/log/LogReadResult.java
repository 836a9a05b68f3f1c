package io.orderflow.broker.log;

import java.util.List;

/**
 * A read: whole batches from the requested offset (possibly none), and the log's bounds at the time.
 * {@code highWatermark} is the end of what consumers may see: under a sync-every-append policy, the end of
 * what is on disk. {@code lastStableOffset} is the end of what a {@code read_committed} consumer may see; a read
 * for one stops there and lists the {@code abortedTransactions} its batches may belong to (empty otherwise).
 */
public record LogReadResult(
        FileRegion records,
        long highWatermark,
        long lastStableOffset,
        long logStartOffset,
        long logEndOffset,
        List<AbortedTxn> abortedTransactions) {}

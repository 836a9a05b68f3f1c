package io.orderflow.broker.log;

/**
 * A read: whole batches from the requested offset (possibly none), and the log's bounds at the time.
 * {@code highWatermark} is the end of what consumers may see: under a sync-every-append policy, the end of
 * what is on disk.
 */
public record LogReadResult(FileRegion records, long highWatermark, long logStartOffset, long logEndOffset) {}

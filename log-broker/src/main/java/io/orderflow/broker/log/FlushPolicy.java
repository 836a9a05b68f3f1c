package io.orderflow.broker.log;

/**
 * When appended data is forced to disk, in Kafka's terms: {@code flush.messages} and {@code flush.ms}.
 *
 * <ul>
 *   <li>{@code flush.messages=1} (our default): every append's data is fsynced (fdatasync) before an
 *       {@code acks=all} producer is answered. The active segment's indexes are not: recovery rebuilds them from
 *       the data after an unclean stop, so fsyncing them would only add fsyncs; they are fsynced when the
 *       segment is sealed. Appends that arrive while an fsync runs share the next one
 *       (group commit), so the cost is one fsync per burst, not per batch. A crash or power loss loses
 *       nothing that was acknowledged, and consumers never read a record a crash could take back.
 *   <li>{@code flush.messages=N > 1}: fsync once N messages have accumulated. Risk: a power loss (not a
 *       process crash: the page cache survives that) loses up to N-1 acknowledged messages.
 *   <li>{@code flush.ms=T}: fsync at least every T ms. Risk: a power loss loses up to T ms of acknowledged
 *       messages.
 *   <li>Both at {@code Long.MAX_VALUE} (Kafka's default): never fsync except at segment roll and shutdown;
 *       the operating system decides. Risk: a power loss loses whatever was in the page cache.
 * </ul>
 *
 * Whatever the policy, a segment is fsynced when it is rolled and at clean shutdown.
 */
public record FlushPolicy(long messages, long ms) {

    public static final FlushPolicy EVERY_APPEND = new FlushPolicy(1, Long.MAX_VALUE);
    public static final FlushPolicy OPERATING_SYSTEM = new FlushPolicy(Long.MAX_VALUE, Long.MAX_VALUE);

    public FlushPolicy {
        if (messages < 1) {
            throw new InvalidConfigException(LogConfig.FLUSH_MESSAGES, messages, "must be at least 1");
        }
        if (ms < 0) {
            throw new InvalidConfigException(LogConfig.FLUSH_MS, ms, "must not be negative");
        }
    }

    /** True when an append is acknowledged only after it is on disk. */
    public boolean syncsEveryAppend() {
        return messages == 1 || ms == 0;
    }

    public boolean flushDue(long unflushedMessages, long msSinceLastFlush) {
        return unflushedMessages > 0 && (unflushedMessages >= messages || msSinceLastFlush >= ms);
    }
}

package io.orderflow.postgres;

/**
 * How an embedded PostgreSQL keeps what it commits.
 *
 * <p>The embedded library (zonky) starts the postmaster with {@code -F} (fsync off) and
 * {@code synchronous_commit=off}: a committed transaction then lives in the kernel's page cache and can vanish on a
 * power cut or an OS crash. Every mode but {@link #FRESH_UNSYNCED} overrides both on the command line, after the
 * library's own options, so the later {@code -c fsync=on} wins.
 */
public enum EmbeddedMode {
    /**
     * Durable, and the data outlives the server: one cluster under {@code <directory>/cluster}, created by
     * {@code initdb} on the first start and reused by every later one, through clean stops, {@code kill -9} and
     * crashes alike. What the platform runs: its orders survive a restart.
     */
    KEPT(true, true),
    /** Durable, on a fresh cluster that is deleted when the server stops. What the benchmarks run. */
    FRESH(true, false),
    /**
     * Not durable (fsync off, {@code synchronous_commit=off}), on a fresh cluster deleted when the server stops. For
     * tests only: their databases die with the test run anyway, and each commit skips an fsync.
     */
    FRESH_UNSYNCED(false, false);

    private final boolean durable;
    private final boolean kept;

    EmbeddedMode(boolean durable, boolean kept) {
        this.durable = durable;
        this.kept = kept;
    }

    /** Whether a commit is on disk before it is acknowledged. */
    public boolean durable() {
        return durable;
    }

    /** Whether the data survives the server's stop and is used by its next start. */
    public boolean kept() {
        return kept;
    }
}

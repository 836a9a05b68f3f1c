package io.orderflow.relay;

import java.time.Instant;

/**
 * A relay's state as health checks see it.
 *
 * @param role whether it is connected, and leading or standing by
 * @param brokerWaitingSince since when sends have been waiting for the broker, or null
 * @param lastError the last database or broker problem, or null once it has recovered
 */
public record RelayStatus(Role role, Instant brokerWaitingSince, String lastError) {

    public enum Role {
        /** No database session (starting, or the database is unreachable). */
        DISCONNECTED,
        /** Connected; another instance holds the leader lock. */
        STANDBY,
        /** Connected and publishing. */
        LEADER,
        /** Stopped for good. */
        STOPPED
    }
}

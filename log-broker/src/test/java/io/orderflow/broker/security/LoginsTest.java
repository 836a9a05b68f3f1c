package io.orderflow.broker.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.broker.log.ManualClock;
import org.junit.jupiter.api.Test;

/** How long failed logins wait, and what is counted. */
class LoginsTest {
    private final ManualClock clock = new ManualClock(0);
    private final Logins logins = new Logins(clock, 100);

    @Test
    void failuresFromOneHostWaitLongerEachTimeUpToThirtyTwoTimesTheBase() {
        long[] delays = new long[8];
        for (int i = 0; i < delays.length; i++) {
            delays[i] = logins.failed("SCRAM-SHA-512", "10.0.0.1", "conn-" + i, "wrong password");
        }
        assertThat(delays).containsExactly(100, 200, 400, 800, 1600, 3200, 3200, 3200);
    }

    @Test
    void anotherHostIsNotSlowedByTheFirstsFailures() {
        for (int i = 0; i < 5; i++) {
            logins.failed("SCRAM-SHA-512", "10.0.0.1", "conn-" + i, "wrong password");
        }
        assertThat(logins.failed("SCRAM-SHA-512", "10.0.0.2", "conn-x", "wrong password"))
                .isEqualTo(100);
    }

    @Test
    void aMinuteWithoutFailuresStartsTheHostOver() {
        logins.failed("PLAIN", "10.0.0.1", "c1", "r");
        logins.failed("PLAIN", "10.0.0.1", "c2", "r");
        clock.advance(Logins.WINDOW_MS + 1);
        assertThat(logins.failed("PLAIN", "10.0.0.1", "c3", "r")).isEqualTo(100);
    }

    @Test
    void successesAndFailuresAreCountedByMechanism() {
        logins.failed("PLAIN", "h", "c", "r");
        logins.succeeded("SCRAM-SHA-256");
        logins.succeeded("SCRAM-SHA-256");
        assertThat(logins.failures()).containsExactly(java.util.Map.entry("PLAIN", 1L));
        assertThat(logins.successes()).containsExactly(java.util.Map.entry("SCRAM-SHA-256", 2L));
    }
}

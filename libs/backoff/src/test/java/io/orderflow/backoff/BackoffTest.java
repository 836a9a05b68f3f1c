package io.orderflow.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {
    @Test
    void doublesFromMinUpToMax() {
        Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofMillis(500));
        assertThat(backoff.failed()).hasMillis(100);
        assertThat(backoff.failed()).hasMillis(200);
        assertThat(backoff.failed()).hasMillis(400);
        assertThat(backoff.failed()).hasMillis(500);
        assertThat(backoff.failed()).hasMillis(500);
    }

    @Test
    void aSuccessStartsAgainAtMin() {
        Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(5));
        backoff.failed();
        backoff.failed();
        assertThat(backoff.next()).hasMillis(400);
        backoff.succeeded();
        assertThat(backoff.failed()).hasMillis(100);
    }

    @Test
    void refusesAnEmptyOrInvertedRange() {
        assertThatThrownBy(() -> new Backoff(Duration.ZERO, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("min PT0S");
        assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("max PT1S");
    }
}

package io.orderflow.ops.redrive;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.consumer.RetryTopics;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The command's first retry delay names the same first retry topic as the services' configuration does. */
class RedriveDeadLettersTest {

    @Test
    void readsTheDurationsTheServicesConfigurationUses() {
        assertThat(RedriveDeadLetters.duration("1s")).isEqualTo(Duration.ofSeconds(1));
        assertThat(RedriveDeadLetters.duration("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(RedriveDeadLetters.duration("1m")).isEqualTo(Duration.ofMinutes(1));
        assertThat(RedriveDeadLetters.duration("PT10S")).isEqualTo(Duration.ofSeconds(10));
        assertThat(RetryTopics.of("inventory-service", List.of(RedriveDeadLetters.duration("1s")))
                        .retryTopic(0))
                .isEqualTo("inventory-service_retry_1000");
    }
}

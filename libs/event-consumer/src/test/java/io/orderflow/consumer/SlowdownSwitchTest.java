package io.orderflow.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SlowdownSwitchTest {

    @Test
    void switchedOffEveryRequestIsANotFoundProblemNamingTheSetting() {
        SlowdownSwitch.Answer set = SlowdownSwitch.set(null, false, "orderflow.x-service.drills-enabled", "50");
        SlowdownSwitch.Answer clear = SlowdownSwitch.clear(null, false, "orderflow.x-service.drills-enabled");

        for (SlowdownSwitch.Answer answer : new SlowdownSwitch.Answer[] {set, clear}) {
            assertThat(answer.status()).isEqualTo(404);
            assertThat(answer.mediaType()).isEqualTo("application/problem+json");
            assertThat(answer.body().get("detail").toString()).contains("orderflow.x-service.drills-enabled=true");
        }
    }
}

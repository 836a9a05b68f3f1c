package io.orderflow.relay;

import io.orderflow.relay.service.RelayConfig;
import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.time.Duration;

/**
 * The relay's default settings, as the service gets them with nothing configured: read from {@link RelayConfig}'s
 * declarations through SmallRye Config itself, so that tests run with exactly the defaults users get and no second
 * copy of them exists.
 */
final class RelayDefaults {
    private RelayDefaults() {}

    static RelaySettings settings() {
        // Quarkus's duration syntax (5s, 100ms), as the service reads it.
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .withConverter(Duration.class, 100, new DurationConverter())
                .withMapping(RelayConfig.class)
                .build();
        return config.getConfigMapping(RelayConfig.class).settings();
    }
}

package io.orderflow.relay;

import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The relay's default settings, as the service gets them with nothing configured: read from {@link RelayConfig}'s
 * declarations through SmallRye Config itself, so that tests run with exactly the defaults users get and no second
 * copy of them exists.
 */
final class RelayDefaults {
    private RelayDefaults() {}

    static RelayConfig settings() {
        return settings(Map.of());
    }

    /**
     * The defaults with some values replaced, named as users set them: {@code Map.of("batch-size", "50")} is
     * {@code orderflow.outbox-relay.batch-size=50}.
     */
    static RelayConfig settings(Map<String, String> overrides) {
        Map<String, String> properties = new HashMap<>();
        overrides.forEach((key, value) -> properties.put("orderflow.outbox-relay." + key, value));
        // Quarkus's duration syntax (5s, 100ms), as the service reads it.
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .withConverter(Duration.class, 100, new DurationConverter())
                .withSources(new PropertiesConfigSource(properties, "test overrides", 400))
                .withMapping(RelayConfig.class)
                .build();
        return config.getConfigMapping(RelayConfig.class);
    }
}

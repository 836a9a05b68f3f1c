package io.orderflow.platform;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.ops.replay.LauncherState;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The state file as the launcher writes it and its readers read it: {@code ./run-platform}'s own commands, and
 * {@code ops/bin/replay}, which finds the control port and each service's metrics there.
 */
class PlatformStateTest {

    private static final PlatformState STATE = new PlatformState(
            4242,
            URI.create("http://127.0.0.1:40123"),
            new PlatformState.Broker(
                    "localhost:9092",
                    URI.create("http://127.0.0.1:9404/metrics"),
                    4243,
                    Path.of("logs/broker.log"),
                    2,
                    3),
            List.of(
                    new PlatformState.Service(
                            "inventory-service", 4244, URI.create("http://127.0.0.1:8082"), Path.of("logs/i.log")),
                    new PlatformState.Service(
                            "analytics-service", 4245, URI.create("http://127.0.0.1:8084"), Path.of("logs/a.log"))));

    @Test
    void whatIsWrittenIsReadBack(@TempDir Path directory) {
        Path file = PlatformState.file(directory.resolve("postgres"));
        STATE.write(file);

        assertThat(PlatformState.read(file)).contains(STATE);
    }

    @Test
    void theReplayFindsTheControlPortAndEachServicesMetrics(@TempDir Path directory) throws Exception {
        Path file = PlatformState.file(directory.resolve("postgres"));
        STATE.write(file);

        LauncherState read = LauncherState.read(file);

        assertThat(read.control()).isEqualTo(STATE.control());
        assertThat(read.metrics("analytics-service")).contains(URI.create("http://127.0.0.1:8084/q/metrics"));
        assertThat(read.metrics("no-such-service")).isEmpty();
    }
}

package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An Error on any thread of a running broker stops its process at once, with one log line and exit code 3. */
class FatalErrorsTest {
    @TempDir
    Path dir;

    @Test
    void anErrorOnABrokerThreadStopsTheProcessWithExitCodeThreeAndOneLine() throws Exception {
        try (ChildBroker broker = ChildBroker.launch(
                dir.resolve("data"), List.of("-Xmx128m"), BrokerMainWithAnError.class.getName(), List.of())) {
            assertThat(broker.process().waitFor(60, TimeUnit.SECONDS))
                    .as("the broker's process stopped")
                    .isTrue();

            assertThat(broker.process().exitValue()).isEqualTo(FatalErrors.EXIT_CODE);
            assertThat(broker.output().lines().filter(line -> line.contains("Stopping the broker at once")))
                    .singleElement()
                    .satisfies(line -> assertThat(line)
                            .contains("thread=\"conn-7\"")
                            .contains("StackOverflowError: thrown by a test on a broker thread"));
        }
    }
}

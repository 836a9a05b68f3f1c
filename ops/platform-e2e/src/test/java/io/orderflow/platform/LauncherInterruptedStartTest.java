package io.orderflow.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./run-platform} stopped by SIGTERM in the middle of its start, as a user pressing Ctrl-C early does: every
 * process it had started is gone afterwards, and so is its state file.
 */
class LauncherInterruptedStartTest {

    private final LauncherProcesses launchers =
            new LauncherProcesses(Path.of("target", "launcher-interrupted", "postgres"));

    @TempDir
    Path brokerDirectory;

    @TempDir
    Path output;

    @AfterEach
    void stopWhatIsLeft() throws Exception {
        launchers.close();
    }

    @Test
    void sigtermWhileTheServicesStartLeavesNoProcessBehind() throws Exception {
        launchers.deletePidFiles();
        Path log = output.resolve("launcher.log");
        // Without the warm-ups: what is asked here is what a stop leaves behind, not how soon a service is fast.
        Process launcher = launchers.platform(log, brokerDirectory, "--no-warm-up");
        // order-service is up and outbox-relay starting: the moment a user pressing Ctrl-C early catches.
        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> Files.exists(launchers.logs().resolve("outbox-relay.pid")) || !launcher.isAlive());
        assertThat(launcher.isAlive()).as(LauncherProcesses.read(log)).isTrue();
        List<Long> started = launchers.servicePids();

        launcher.destroy(); // SIGTERM

        assertThat(launcher.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(started).isNotEmpty();
        assertThat(started).as("service processes left running").noneMatch(LauncherProcesses::alive);
        assertThat(launchers.postgresProcesses())
                .as("PostgreSQL processes left running")
                .isEmpty();
        assertThat(LauncherProcesses.read(log)).contains("orderflow platform stopped.");
        assertThat(launchers.state()).isEmpty();
    }
}

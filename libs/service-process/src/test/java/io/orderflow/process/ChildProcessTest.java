package io.orderflow.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Any command with any readiness check: what a broker's launcher uses, where readiness is not an HTTP path. */
class ChildProcessTest {
    @TempDir
    Path dir;

    private ChildProcess.Spec shell(String script) {
        return new ChildProcess.Spec(
                "shell",
                List.of("sh", "-c", script),
                dir.resolve("shell.log"),
                dir.resolve("shell.pid"),
                Duration.ofSeconds(5));
    }

    @Test
    void freePortsAreDistinctBindableAndBelowTheEphemeralRangeWhereOutgoingConnectionsTakeTheirs() throws Exception {
        int ephemeralLow = ChildProcesses.ephemeralRangeLow();
        List<Integer> ports = ChildProcesses.freeLoopbackPorts(20);
        assertThat(ports).doesNotHaveDuplicates().hasSize(20);
        if (ephemeralLow > 11_000) {
            assertThat(ports).allSatisfy(p -> assertThat(p).isBetween(10_000, ephemeralLow - 1));
        }
        for (int port : ports) {
            try (java.net.ServerSocket socket = new java.net.ServerSocket()) {
                socket.bind(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), port));
                assertThat(socket.getLocalPort()).isEqualTo(port);
            }
        }
    }

    @Test
    void returnsOnceTheCheckPassesWithItsPidRecordedAndItsOutputLogged() throws Exception {
        AtomicInteger checks = new AtomicInteger();
        try (ChildProcess process = ChildProcess.start(
                shell("echo started; exec sleep 60"),
                () -> checks.incrementAndGet() >= 3,
                "three checks",
                Duration.ofSeconds(30))) {
            assertThat(checks).hasValue(3);
            assertThat(process.isAlive()).isTrue();
            assertThat(Files.readString(dir.resolve("shell.pid"))).isEqualTo(Long.toString(process.pid()));
            assertThat(process.readyMillis()).isPositive();

            assertThat(process.stop(Duration.ofSeconds(5))).hasValue(143);
            assertThat(process.log()).contains("started");
        }
    }

    @Test
    void aCheckThatNeverPassesFailsTheStartNamingItAndStopsTheProcess() throws Exception {
        assertThatThrownBy(() -> ChildProcess.start(
                        shell("exec sleep 60"), () -> false, "answering ApiVersions", Duration.ofMillis(300)))
                .isInstanceOf(ServiceStartException.class)
                .hasMessageContaining("was not ready (answering ApiVersions)");
        long started = Long.parseLong(Files.readString(dir.resolve("shell.pid")).trim());
        assertThat(ProcessHandle.of(started).map(ProcessHandle::isAlive).orElse(false))
                .isFalse();
    }

    @Test
    void aProcessThatExitsWhileStartingFailsTheStartWithItsExitCodeAndOutput() {
        assertThatThrownBy(() -> ChildProcess.start(
                        shell("echo cannot bind the port; exit 4"), () -> false, "never", Duration.ofSeconds(30)))
                .isInstanceOf(ServiceStartException.class)
                .hasMessageContaining("exited with code 4")
                .hasMessageContaining("cannot bind the port");
    }
}

package io.orderflow.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.ops.drill.CrashConsumerDrill;
import io.orderflow.ops.drill.DrillReport;
import io.orderflow.ops.drill.DrillTarget;
import io.orderflow.ops.drill.ServiceControl;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher as a user runs it, in a process of its own from the repository's root, with the packaged services:
 * stopped by SIGTERM in the middle of its start, and started fully, asked for its {@code status} and {@code logs},
 * put through {@code ops/drill crash-consumer} over its control port, told that a service crashed, asked to start it
 * again, and stopped with {@code stop}. Every process it started is gone afterwards.
 */
class PlatformLauncherProcessTest {

    private static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();
    private static final Path POSTGRES_DIRECTORY =
            Path.of("target", "launcher", "postgres").toAbsolutePath(); // logs and state beside it, this test's own
    private static final Duration WITHIN = Duration.ofSeconds(120);
    private static final List<String> INSTANCES = List.of(
            "order-service",
            "outbox-relay",
            "inventory-service",
            "inventory-outbox-relay",
            "notification-service",
            "analytics-service",
            "lag-monitor");

    @TempDir
    Path brokerDirectory;

    @TempDir
    Path output;

    private final List<Process> launched = new ArrayList<>();

    @AfterEach
    void stopWhatIsLeft() throws Exception {
        for (Process process : launched) {
            process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        for (long pid : servicePids()) {
            // Only a service of this test: a pid file may outlive its process, and the pid be reused since.
            ProcessHandle.of(pid)
                    .filter(handle -> handle.info()
                            .commandLine()
                            .map(line -> line.contains("quarkus-run.jar"))
                            .orElse(false))
                    .ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    private Process launcher(Path log, String... arguments) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                ProcessHandle.current().info().command().orElseThrow(),
                "-cp",
                System.getProperty("java.class.path"),
                "io.orderflow.platform.PlatformLauncher"));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command)
                .directory(REPOSITORY.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        launched.add(process);
        return process;
    }

    private Process platform(Path log) throws IOException {
        return launcher(
                log,
                "--postgres-dir",
                POSTGRES_DIRECTORY.toString(),
                "--broker-dir",
                brokerDirectory.toString(),
                "--broker-port",
                "0",
                "--metrics-port",
                "0",
                "--order-service-port",
                "0",
                "--relay-port",
                "0",
                "--consumer-ports-from",
                "0");
    }

    /** Runs {@code status}, {@code stop} or {@code logs} to its end; the exit code, with the output in {@code log}. */
    private int command(Path log, String... arguments) throws Exception {
        List<String> all = new ArrayList<>(List.of(arguments));
        all.addAll(List.of("--postgres-dir", POSTGRES_DIRECTORY.toString()));
        Process process = launcher(log, all.toArray(String[]::new));
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return process.exitValue();
    }

    private static String read(Path file) throws IOException {
        return Files.isRegularFile(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    }

    private static Path logs() {
        return PlatformState.logs(POSTGRES_DIRECTORY);
    }

    private static List<Long> servicePids() throws IOException {
        if (!Files.isDirectory(logs())) {
            return List.of();
        }
        List<Long> pids = new ArrayList<>();
        try (Stream<Path> files = Files.list(logs())) {
            for (Path file : files.filter(f -> f.toString().endsWith(".pid")).toList()) {
                pids.add(Long.parseLong(read(file).trim()));
            }
        }
        return pids;
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /** Processes whose command line names this test's PostgreSQL directory: the postmaster and its workers. */
    private static List<ProcessHandle> postgresProcesses() {
        return ProcessHandle.allProcesses()
                .filter(handle -> handle.info()
                        .commandLine()
                        .map(line -> line.contains(POSTGRES_DIRECTORY.toString()) && line.contains("postgres"))
                        .orElse(false))
                .filter(handle -> handle.pid() != ProcessHandle.current().pid())
                .toList();
    }

    private static void deletePidFiles() throws IOException {
        if (Files.isDirectory(logs())) {
            try (Stream<Path> files = Files.list(logs())) {
                for (Path file :
                        files.filter(f -> f.toString().endsWith(".pid")).toList()) {
                    Files.delete(file);
                }
            }
        }
    }

    private static java.net.URI url(PlatformState state, String service) {
        return state.services().stream()
                .filter(candidate -> candidate.name().equals(service))
                .findFirst()
                .orElseThrow()
                .url();
    }

    @Test
    void sigtermWhileTheServicesStartLeavesNoProcessBehind() throws Exception {
        deletePidFiles();
        Path log = output.resolve("launcher.log");
        Process launcher = platform(log);
        // order-service is up and outbox-relay starting: the moment a user pressing Ctrl-C early catches.
        await().atMost(WITHIN)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> Files.exists(logs().resolve("outbox-relay.pid")) || !launcher.isAlive());
        assertThat(launcher.isAlive()).as(read(log)).isTrue();
        List<Long> started = servicePids();

        launcher.destroy(); // SIGTERM

        assertThat(launcher.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(started).isNotEmpty();
        assertThat(started).as("service processes left running").noneMatch(PlatformLauncherProcessTest::alive);
        assertThat(postgresProcesses()).as("PostgreSQL processes left running").isEmpty();
        assertThat(read(log)).contains("orderflow platform stopped.");
        assertThat(PlatformState.file(POSTGRES_DIRECTORY)).doesNotExist();
    }

    @Test
    void statusLogsKillStartAndStopAnswerFromAnotherTerminalAndACrashedServiceIsReported() throws Exception {
        Path log = output.resolve("launcher.log");
        Process launcher = platform(log);
        await().atMost(WITHIN).until(() -> read(log).contains(PlatformLauncher.READY) || !launcher.isAlive());
        assertThat(read(log)).contains(PlatformLauncher.READY);

        Path status = output.resolve("status.log");
        assertThat(command(status, "status")).as(read(status)).isZero();
        for (String instance : INSTANCES) {
            assertThat(read(status)).containsPattern("(?m)^  " + instance + " +\\d+ +running +ready ");
        }

        Path logs = output.resolve("logs.log");
        Process following =
                launcher(logs, "logs", "inventory-service", "--postgres-dir", POSTGRES_DIRECTORY.toString());
        await().atMost(WITHIN).until(() -> read(logs).contains("inventory-service"));
        assertThat(following.isAlive()).as("logs follows the file").isTrue();
        following.destroy();
        Path unknown = output.resolve("unknown.log");
        assertThat(command(unknown, "logs", "no-such-service")).isEqualTo(2);
        assertThat(read(unknown)).contains("no-such-service", "analytics-service", "order-service");

        PlatformState state =
                PlatformState.read(PlatformState.file(POSTGRES_DIRECTORY)).orElseThrow();

        // ops/drill crash-consumer's short version, through the launcher's control port as the command runs it.
        DrillTarget target = new DrillTarget(
                url(state, "order-service"),
                url(state, "inventory-service"),
                url(state, "notification-service"),
                url(state, "analytics-service"),
                url(state, "lag-monitor"),
                "unused: the crash drill speaks HTTP only");
        DrillReport crash = new CrashConsumerDrill(
                        target,
                        ServiceControl.launcher(state.control()),
                        "inventory-service",
                        10,
                        Duration.ofSeconds(12))
                .run();
        assertThat(crash.passed()).as(crash.render()).isTrue();
        assertThat(crash.render())
                .contains("killed inventory-service with SIGKILL", "no order lost", "no double effect");
        state = PlatformState.read(PlatformState.file(POSTGRES_DIRECTORY)).orElseThrow();
        PlatformState.Service analytics = state.services().stream()
                .filter(service -> service.name().equals("analytics-service"))
                .findFirst()
                .orElseThrow();
        Path kill = output.resolve("kill.log");
        assertThat(command(kill, "kill", "analytics-service")).as(read(kill)).isZero();
        assertThat(alive(analytics.pid())).isFalse();
        await().atMost(WITHIN)
                .until(() -> read(log).contains("analytics-service (pid " + analytics.pid() + ") exited with code"));
        Path afterCrash = output.resolve("status-after-crash.log");
        assertThat(command(afterCrash, "status")).isEqualTo(1);
        assertThat(read(afterCrash)).containsPattern("(?m)^  analytics-service +\\d+ +exited ");

        Path start = output.resolve("start.log");
        assertThat(command(start, "start", "analytics-service")).as(read(start)).isZero();
        assertThat(read(start)).contains("started analytics-service");
        Path restarted = output.resolve("status-restarted.log");
        assertThat(command(restarted, "status")).as(read(restarted)).isZero();
        assertThat(read(restarted))
                .containsPattern("(?m)^  analytics-service +\\d+ +running +ready +" + analytics.url());
        Path refused = output.resolve("start-running.log");
        assertThat(command(refused, "start", "order-service")).isEqualTo(1);
        assertThat(read(refused)).contains("order-service is running");
        state = PlatformState.read(PlatformState.file(POSTGRES_DIRECTORY)).orElseThrow();

        Path stop = output.resolve("stop.log");
        assertThat(command(stop, "stop")).as(read(stop)).isZero();

        assertThat(launcher.isAlive()).isFalse();
        assertThat(state.services()).noneMatch(service -> alive(service.pid()));
        assertThat(postgresProcesses()).isEmpty();
        Path stopped = output.resolve("status-stopped.log");
        assertThat(command(stopped, "status")).isEqualTo(3);
        assertThat(read(stopped)).contains("not running");
    }
}

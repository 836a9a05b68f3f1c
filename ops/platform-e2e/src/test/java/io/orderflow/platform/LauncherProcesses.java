package io.orderflow.platform;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The launcher as a user runs it ({@code ./run-platform}): a JVM of its own, started from the repository's root with
 * this test's class path, on one PostgreSQL directory (its state file and service logs beside it). {@link #close}
 * kills every launcher it started and every service process those left behind. Not thread-safe.
 */
final class LauncherProcesses implements AutoCloseable {

    private static final Path REPOSITORY = Path.of("..", "..").toAbsolutePath().normalize();

    private final Path postgresDirectory;
    private final Map<String, String> environment;
    private final List<Process> launched = new ArrayList<>();

    LauncherProcesses(Path postgresDirectory) {
        this(postgresDirectory, Map.of());
    }

    /** Launchers whose environment has {@code environment} besides this JVM's: the services inherit it. */
    LauncherProcesses(Path postgresDirectory, Map<String, String> environment) {
        this.postgresDirectory = postgresDirectory.toAbsolutePath().normalize();
        this.environment = Map.copyOf(environment);
    }

    /** {@code ./run-platform ARGUMENTS}, its output going to {@code log}. */
    Process start(Path log, String... arguments) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                ProcessHandle.current().info().command().orElseThrow(),
                "-cp",
                System.getProperty("java.class.path"),
                "io.orderflow.platform.PlatformLauncher"));
        command.addAll(List.of(arguments));
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(REPOSITORY.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().putAll(environment);
        Process process = builder.start();
        launched.add(process);
        return process;
    }

    /** The whole platform, every port chosen by the system, the broker's log in {@code brokerDirectory}. */
    Process platform(Path log, Path brokerDirectory, String... more) throws IOException {
        List<String> arguments = new ArrayList<>(List.of(
                "--postgres-dir",
                postgresDirectory.toString(),
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
                "0",
                // No cache trained at every stop of a test platform; AotCachesTest covers the caches.
                "--no-aot-cache"));
        arguments.addAll(List.of(more));
        return start(log, arguments.toArray(String[]::new));
    }

    /** Runs a command ({@code status}, {@code stop}, {@code logs}, ...) to its end; its exit code, output in {@code log}. */
    int command(Path log, String... arguments) throws Exception {
        List<String> all = new ArrayList<>(List.of(arguments));
        all.addAll(List.of("--postgres-dir", postgresDirectory.toString()));
        Process process = start(log, all.toArray(String[]::new));
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return process.exitValue();
    }

    Path postgresDirectory() {
        return postgresDirectory;
    }

    Optional<PlatformState> state() {
        return PlatformState.read(PlatformState.file(postgresDirectory));
    }

    Path logs() {
        return PlatformState.logs(postgresDirectory);
    }

    /** The pids in the services' pid files (written as each starts, deleted as each stops cleanly). */
    List<Long> servicePids() throws IOException {
        return pidFiles().stream()
                .map(file -> Long.parseLong(read(file).trim()))
                .toList();
    }

    void deletePidFiles() throws IOException {
        for (Path file : pidFiles()) {
            Files.delete(file);
        }
    }

    private List<Path> pidFiles() throws IOException {
        if (!Files.isDirectory(logs())) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(logs())) {
            return files.filter(file -> file.toString().endsWith(".pid")).toList();
        }
    }

    /** Processes whose command line names this PostgreSQL directory: the postmaster and its workers. */
    List<ProcessHandle> postgresProcesses() {
        return ProcessHandle.allProcesses()
                .filter(handle -> handle.info()
                        .commandLine()
                        .map(line -> line.contains(postgresDirectory.toString()) && line.contains("postgres"))
                        .orElse(false))
                .filter(handle -> handle.pid() != ProcessHandle.current().pid())
                .toList();
    }

    static String read(Path file) {
        try {
            return Files.isRegularFile(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    @Override
    public void close() throws Exception {
        for (Process process : launched) {
            // Its children first, while they are still its own: a launcher killed in the middle of its start has not
            // written every pid file yet (the broker's among them), and SIGKILL leaves it no shutdown hook.
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        for (long pid : servicePids()) {
            // Only a service or the broker: a pid file may outlive its process, and the pid be reused since.
            ProcessHandle.of(pid)
                    .filter(handle -> handle.info()
                            .commandLine()
                            .map(line -> line.contains("quarkus-run.jar") || line.contains(BrokerProcess.MAIN_CLASS))
                            .orElse(false))
                    .ifPresent(ProcessHandle::destroyForcibly);
        }
    }
}

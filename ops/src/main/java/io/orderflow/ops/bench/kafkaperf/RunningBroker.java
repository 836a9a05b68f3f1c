package io.orderflow.ops.bench.kafkaperf;

import io.orderflow.process.ChildProcesses;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;

/**
 * A broker JVM started by a {@link BrokerLauncher} (for the benchmarks, and for the compatibility module's tests),
 * and what the benchmarks read from it: how long it took to answer its first request, its resident memory
 * ({@code VmRSS}, and the kernel's peak {@code VmHWM}, from {@code /proc/<pid>/status}) and the CPU time it has
 * used. Its stdout and stderr go to {@link #logFile()}.
 *
 * <p>Not thread-safe.
 */
public final class RunningBroker implements AutoCloseable {
    public static final String HOST = "127.0.0.1";
    private static final Duration STARTUP_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(60);

    private final String name;
    private final Process process;
    private final int port;
    private final Path logFile;
    private final long startupNanos;

    private RunningBroker(String name, Process process, int port, Path logFile, long startupNanos) {
        this.name = name;
        this.process = process;
        this.port = port;
        this.logFile = logFile;
        this.startupNanos = startupNanos;
    }

    /**
     * Starts {@code command} and returns once the broker answers an ApiVersions request on {@code port}; the
     * start-up time runs from just before the JVM is spawned to that answer.
     */
    static RunningBroker launch(String name, List<String> command, int port, Path logFile) throws IOException {
        long t0 = System.nanoTime();
        Process process = ChildProcesses.start(new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(logFile.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile())));
        long deadline = t0 + STARTUP_TIMEOUT.toNanos();
        while (!ApiVersionsProbe.answers(HOST, port, 200)) {
            if (!process.isAlive()) {
                ChildProcesses.forget(process);
                throw new IOException(
                        name + " exited with code " + process.exitValue() + " during start-up; see " + logFile);
            }
            if (System.nanoTime() > deadline) {
                process.destroyForcibly();
                ChildProcesses.forget(process);
                throw new IOException(name + " did not answer ApiVersions on " + HOST + ":" + port + " within "
                        + STARTUP_TIMEOUT + "; see " + logFile);
            }
            sleep(5);
        }
        return new RunningBroker(name, process, port, logFile, System.nanoTime() - t0);
    }

    public String bootstrapServers() {
        return HOST + ":" + port;
    }

    public double startupMillis() {
        return startupNanos / 1e6;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public Path logFile() {
        return logFile;
    }

    /** Resident memory now ({@code VmRSS}), in MiB. */
    public double rssMiB() {
        return statusKiB("VmRSS:") / 1024.0;
    }

    /** The highest resident memory since the broker started ({@code VmHWM}), in MiB. */
    public double peakRssMiB() {
        return statusKiB("VmHWM:") / 1024.0;
    }

    /** User plus system CPU time used so far, in seconds. */
    public double cpuSeconds() {
        return process.toHandle()
                        .info()
                        .totalCpuDuration()
                        .orElse(Duration.ZERO)
                        .toNanos()
                / 1e9;
    }

    private long statusKiB(String field) {
        Path status = Path.of("/proc", Long.toString(process.pid()), "status");
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith(field)) {
                    return Long.parseLong(
                            line.substring(field.length()).replace("kB", "").trim());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + status + " of " + name, e);
        }
        throw new IllegalStateException("No " + field + " in " + status + " of " + name);
    }

    /** SIGTERM, then waits for the broker to exit; kills it if it has not after a minute. */
    @Override
    public void close() {
        try {
            if (stop(SHUTDOWN_TIMEOUT).isEmpty()) {
                System.out.printf("  %s did not stop within %s of SIGTERM; killed%n", name, SHUTDOWN_TIMEOUT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * SIGTERM, then waits up to {@code grace} for the broker to exit; if it has not, kills it: see
     * {@link ChildProcesses#stop}.
     *
     * @return the broker's exit code if it exited within {@code grace} of SIGTERM (or had already exited), empty
     *     if it had to be killed
     * @throws InterruptedException if interrupted while waiting; the broker has then been killed
     */
    public OptionalInt stop(Duration grace) throws InterruptedException {
        return ChildProcesses.stop(process, grace);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for a broker to start", e);
        }
    }
}

package io.orderflow.ops.bench.kafkaperf;

import io.orderflow.process.ChildProcess;
import io.orderflow.process.ServiceStartException;
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

    private final ChildProcess process;
    private final int port;

    private RunningBroker(ChildProcess process, int port) {
        this.process = process;
        this.port = port;
    }

    /**
     * Starts {@code command} and returns once the broker answers an ApiVersions request on {@code port}; the
     * start-up time runs from just before the JVM is spawned to that answer. {@code logFile} starts empty: it holds
     * this broker's output only, which the benchmarks search for warnings.
     *
     * @throws ServiceStartException if it exits first or does not answer within two minutes
     */
    static RunningBroker launch(String name, List<String> command, int port, Path logFile) throws IOException {
        Files.deleteIfExists(logFile);
        ChildProcess process = ChildProcess.start(
                new ChildProcess.Spec(name, command, logFile, null, SHUTDOWN_TIMEOUT),
                () -> ApiVersionsProbe.answers(HOST, port, 200),
                "answering ApiVersions on " + HOST + ":" + port,
                STARTUP_TIMEOUT);
        return new RunningBroker(process, port);
    }

    public String bootstrapServers() {
        return HOST + ":" + port;
    }

    public double startupMillis() {
        return process.readyMillis();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public Path logFile() {
        return process.logFile();
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
        return process.cpuSeconds();
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
            throw new UncheckedIOException("Cannot read " + status + " of " + process.name(), e);
        }
        throw new IllegalStateException("No " + field + " in " + status + " of " + process.name());
    }

    /** SIGKILL: no shutdown, no flush; returns once the process is gone (or at once if this thread is interrupted). */
    public void kill() {
        process.killNine();
    }

    /** SIGTERM, then waits for the broker to exit; kills it if it has not after a minute. */
    @Override
    public void close() {
        process.close();
    }

    /**
     * SIGTERM, then waits up to {@code grace} for the broker to exit; if it has not, kills it: see
     * {@link ChildProcess#stop}.
     *
     * @return the broker's exit code if it exited within {@code grace} of SIGTERM (or had already exited), empty
     *     if it had to be killed
     * @throws InterruptedException if interrupted while waiting; the broker has then been killed
     */
    public OptionalInt stop(Duration grace) throws InterruptedException {
        return process.stop(grace);
    }
}

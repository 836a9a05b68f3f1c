package io.orderflow.process;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A child process that has come up: started with its output appended to a log file, returned only once its readiness
 * check passes, and stopped with SIGTERM then SIGKILL. What a Quarkus service ({@link ServiceProcess}, ready when its
 * health path answers) and a broker (ready when it answers ApiVersions) have in common.
 *
 * <p><b>Start.</b> {@link #start} polls the check every {@link #POLL} (returning early if the process exits) and
 * fails with {@link ServiceStartException}, carrying the tail of the log, if the process exits first or the check
 * has not passed within the timeout (the process is then stopped). The time from spawning to the first passing check
 * is {@link #readyMillis()}, a figure the benchmarks print.
 *
 * <p><b>Stop and crash.</b> {@link #close()} sends SIGTERM and SIGKILL after the spec's grace period;
 * {@link #killNine()} is the crash a test or drill inflicts. {@link #isAlive()} and {@link #exitCode()} tell whether
 * it died on its own. Every process is registered with {@link ChildProcesses}, whose shutdown hook stops what is left.
 *
 * <p>Thread-safe: {@link #close()} is idempotent; the rest reads immutable state or the process.
 */
public final class ChildProcess implements AutoCloseable {
    static final Duration POLL = Duration.ofMillis(10);

    /**
     * What to run: {@code command} with stdin from {@code /dev/null} and stdout and stderr appended to
     * {@code logFile}; with a {@code pidFile} (may be null) its pid is written there as soon as it is spawned.
     */
    public record Spec(String name, List<String> command, Path logFile, Path pidFile, Duration stopGrace) {
        public Spec {
            Objects.requireNonNull(name, "name");
            command = List.copyOf(command);
            Objects.requireNonNull(logFile, "logFile");
            Objects.requireNonNull(stopGrace, "stopGrace");
        }
    }

    private final Spec spec;
    private final Process process;
    private final double readyMillis;

    private ChildProcess(Spec spec, Process process, double readyMillis) {
        this.spec = spec;
        this.process = process;
        this.readyMillis = readyMillis;
    }

    /**
     * Starts {@code spec} and returns once {@code ready} is true; {@code readiness} describes the check for the
     * message of a start that timed out (e.g. "/q/health/ready answering 200").
     */
    public static ChildProcess start(Spec spec, BooleanSupplier ready, String readiness, Duration timeout) {
        long startedAt = System.nanoTime();
        Process process;
        try {
            Files.createDirectories(spec.logFile().toAbsolutePath().getParent());
            process = ChildProcesses.start(new ProcessBuilder(spec.command())
                    .redirectErrorStream(true)
                    .redirectOutput(
                            ProcessBuilder.Redirect.appendTo(spec.logFile().toFile()))
                    .redirectInput(
                            ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile())));
            if (spec.pidFile() != null) {
                Files.writeString(spec.pidFile(), Long.toString(process.pid()));
            }
        } catch (IOException e) {
            throw new ServiceStartException("Cannot start " + spec.name() + ": " + String.join(" ", spec.command()), e);
        }
        ChildProcess starting = new ChildProcess(spec, process, Double.NaN);
        long deadline = startedAt + timeout.toNanos();
        while (!ready.getAsBoolean()) {
            if (!process.isAlive()) {
                ChildProcesses.forget(process);
                throw new ServiceStartException(spec.name() + " exited with code " + process.exitValue()
                        + " while starting; the end of " + spec.logFile() + ":\n" + starting.tail(30));
            }
            if (System.nanoTime() > deadline) {
                starting.close();
                throw new ServiceStartException(spec.name() + " was not ready (" + readiness + ") within "
                        + timeout.toSeconds() + " s; the end of " + spec.logFile() + ":\n" + starting.tail(30));
            }
            try {
                process.waitFor(POLL.toMillis(), TimeUnit.MILLISECONDS); // returns early if it exits
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                starting.close();
                throw new ServiceStartException("Interrupted while waiting for " + spec.name(), e);
            }
        }
        return new ChildProcess(spec, process, (System.nanoTime() - startedAt) / 1e6);
    }

    public String name() {
        return spec.name();
    }

    public long pid() {
        return process.pid();
    }

    /** From spawning the process to the first passing readiness check. */
    public double readyMillis() {
        return readyMillis;
    }

    public Path logFile() {
        return spec.logFile();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** The exit code once the process has ended; empty while it runs. */
    public OptionalInt exitCode() {
        return process.isAlive() ? OptionalInt.empty() : OptionalInt.of(process.exitValue());
    }

    /** Completes with the exit code when the process ends, however it ends. */
    public CompletableFuture<Integer> onExit() {
        return process.onExit().thenApply(Process::exitValue);
    }

    /** User plus system CPU time used so far, in seconds (zero if the OS does not say). */
    public double cpuSeconds() {
        return process.toHandle()
                        .info()
                        .totalCpuDuration()
                        .orElse(Duration.ZERO)
                        .toNanos()
                / 1e9;
    }

    /** Everything the process wrote to its log so far. */
    public String log() {
        try {
            return Files.readString(spec.logFile(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(cannot read " + spec.logFile() + ": " + e.getMessage() + ")";
        }
    }

    /** The last {@code lines} lines of its log. */
    public String tail(int lines) {
        List<String> all = log().lines().toList();
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }

    /** SIGKILL: no shutdown hook, no flush, no goodbye to anyone. Returns once the process is gone. */
    public void killNine() {
        process.destroyForcibly();
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            ChildProcesses.forget(process);
        }
    }

    /**
     * SIGTERM, then waits up to {@code grace} for the process to exit; if it has not, kills it: see
     * {@link ChildProcesses#stop}.
     *
     * @return the exit code if it exited within {@code grace} of SIGTERM (or had already exited), empty if it had to
     *     be killed
     * @throws InterruptedException if interrupted while waiting; the process has then been killed
     */
    public OptionalInt stop(Duration grace) throws InterruptedException {
        return ChildProcesses.stop(process, grace);
    }

    /** SIGTERM, then SIGKILL if it has not stopped after the spec's grace period. Idempotent. */
    @Override
    public void close() {
        if (!process.isAlive()) {
            ChildProcesses.forget(process);
            return;
        }
        try {
            if (stop(spec.stopGrace()).isEmpty()) {
                System.err.printf("%s did not stop within %s of SIGTERM; killed%n", spec.name(), spec.stopGrace());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

package io.orderflow.foreignclients;

import io.orderflow.process.ChildProcesses;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

/**
 * One run of a foreign client (a kcat, a Node script, an older Java client) as a child process: its command line, its
 * stdin written and closed at start, its stdout and stderr in files under the test's directory so they can be read
 * while it runs and shown when an assertion fails.
 *
 * <p>Not thread-safe; owned by one test.
 */
final class ClientProcess implements AutoCloseable {
    private static final Duration STOP_GRACE = Duration.ofSeconds(30);

    private final String name;
    private final List<String> command;
    private final Process process;
    private final Path stdout;
    private final Path stderr;

    private ClientProcess(String name, List<String> command, Process process, Path stdout, Path stderr) {
        this.name = name;
        this.command = command;
        this.process = process;
        this.stdout = stdout;
        this.stderr = stderr;
    }

    /** Starts {@code command} in {@code dir} with {@code env} added, writes {@code stdin} to it and closes it. */
    static ClientProcess start(String name, List<String> command, Path dir, Map<String, String> env, String stdin) {
        try {
            Files.createDirectories(dir);
            Path out = dir.resolve(name + ".out");
            Path err = dir.resolve(name + ".err");
            ProcessBuilder builder = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile());
            builder.environment().putAll(env);
            Process process = ChildProcesses.start(builder);
            try (OutputStream in = process.getOutputStream()) {
                in.write(stdin.getBytes(StandardCharsets.UTF_8));
            } catch (IOException exitedEarly) {
                // what it printed says why
            }
            return new ClientProcess(name, List.copyOf(command), process, out, err);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start " + String.join(" ", command), e);
        }
    }

    /**
     * Runs a producer: {@code lines} on its stdin, one per line; it must exit 0 within two minutes, having had every
     * record acknowledged.
     */
    static ClientProcess produce(
            String name, List<String> command, Path dir, Map<String, String> env, List<String> lines) {
        return startProducer(name, command, dir, env, lines).awaitSuccess(Duration.ofMinutes(2));
    }

    /** Starts a producer with {@code lines} on its stdin, one per line, and returns without waiting for it. */
    static ClientProcess startProducer(
            String name, List<String> command, Path dir, Map<String, String> env, List<String> lines) {
        return start(name, command, dir, env, String.join("\n", lines) + "\n");
    }

    /**
     * The output of a short command (a version probe, an install) if it exits 0 within {@code timeout}; empty
     * otherwise, with what it printed echoed to the test's output.
     */
    static Optional<String> output(List<String> command, Path dir, Duration timeout) {
        try {
            Process p = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) || p.exitValue() != 0) {
                System.out.println("$ " + String.join(" ", command) + "\n" + out);
                return Optional.empty();
            }
            return Optional.of(out);
        } catch (IOException e) {
            System.out.println("$ " + String.join(" ", command) + ": " + e.getMessage());
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    String name() {
        return name;
    }

    /** Fails, showing the output, unless the process printed exactly {@code line} on a line of its own. */
    ClientProcess assertPrinted(String line) {
        if (!stdoutLines().contains(line)) {
            throw new AssertionError(name + " did not print \"" + line + "\"\n" + transcript());
        }
        return this;
    }

    List<String> stdoutLines() {
        return read(stdout).lines().toList();
    }

    List<String> stderrLines() {
        return read(stderr).lines().toList();
    }

    /** The records printed so far, in the order printed. */
    List<ConsumedRecord> records() {
        return stdoutLines().stream()
                .flatMap(l -> ConsumedRecord.parse(l).stream())
                .toList();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Waits for the process to end by itself; fails, showing its output, unless it exits 0 in time. */
    ClientProcess awaitSuccess(Duration timeout) {
        int exit = awaitExit(timeout);
        if (exit != 0) {
            throw new AssertionError(name + " exited with " + exit + "\n" + transcript());
        }
        return this;
    }

    /** Waits for the process to end by itself; fails, showing its output, unless it exits non-zero in time. */
    ClientProcess awaitFailure(Duration timeout) {
        if (awaitExit(timeout) == 0) {
            throw new AssertionError(name + " exited with 0, though it should have failed\n" + transcript());
        }
        return this;
    }

    private int awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                ChildProcesses.stop(process, Duration.ofSeconds(5));
                throw new AssertionError(name + " did not finish within " + timeout + "\n" + transcript());
            }
            ChildProcesses.forget(process);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return process.exitValue();
    }

    /**
     * SIGTERM, as an operator stops a consumer; fails, showing its output, unless it exits by itself after it with 0,
     * or with 143 (128 + SIGTERM), which a JVM returns once its shutdown hooks have run.
     */
    void stop() {
        OptionalInt exit;
        try {
            exit = ChildProcesses.stop(process, STOP_GRACE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        if (exit.isEmpty() || (exit.getAsInt() != 0 && exit.getAsInt() != 143)) {
            throw new AssertionError(name
                    + (exit.isEmpty()
                            ? " ignored SIGTERM for " + STOP_GRACE
                            : " exited with " + exit.getAsInt() + " on SIGTERM")
                    + "\n" + transcript());
        }
    }

    /** The command and everything it printed, for a failure message. */
    String transcript() {
        return "$ " + String.join(" ", command) + "\n--- " + name + " stdout ---\n" + read(stdout) + "--- " + name
                + " stderr ---\n" + read(stderr);
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            try {
                ChildProcesses.stop(process, Duration.ofSeconds(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e.getMessage() + ")";
        }
    }
}

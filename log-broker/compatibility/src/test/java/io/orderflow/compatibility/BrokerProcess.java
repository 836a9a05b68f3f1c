package io.orderflow.compatibility;

import io.orderflow.process.BrokerLauncher;
import io.orderflow.process.OrderflowBrokerLauncher;
import io.orderflow.process.RunningBroker;
import io.orderflow.process.ServiceStartException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;

/**
 * Our broker as a separate child process, started from the packaged {@code log-broker.jar} and its
 * {@code lib/} directory as {@code ops/bin/run-broker} starts it (plus {@code -Xmx256m -XX:+UseSerialGC}), by the
 * launcher the benchmarks use ({@link OrderflowBrokerLauncher}, from service-process).
 *
 * <p>Why a process and not an in-process {@code Broker}: this module's classpath holds Apache Kafka's
 * server-side jars (kafka-tools brings kafka-server, kafka-storage, the group coordinator...). Running our
 * broker in a JVM of its own, on a classpath of exactly {@code log-broker.jar:lib/*}, proves that it needs none
 * of them, and that what the tools talk to is the artifact we ship.
 *
 * <p>Lifecycle: {@link #start} picks a free loopback port, launches the broker there (one PLAINTEXT listener, or the
 * listener given) with its data in {@code workDir/data} and its stdout and stderr in {@code workDir/broker.log}, and
 * returns once it answers an ApiVersions request (over TLS on a TLS listener). {@link #close} sends SIGTERM and waits
 * for the broker's own clean shutdown, failing if it does not report one. {@link #log()} is the broker's output so
 * far, for failure messages.
 *
 * <p>Not thread-safe; one instance per test class.
 */
public final class BrokerProcess implements AutoCloseable {
    private static final OrderflowBrokerLauncher LAUNCHER = new OrderflowBrokerLauncher(
            Path.of("..", "..", "log-broker", "target"), List.of("-Xmx256m", "-XX:+UseSerialGC"), 1, List.of());
    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);

    private final RunningBroker broker;

    private BrokerProcess(RunningBroker broker) {
        this.broker = broker;
    }

    /** Starts a broker on a free port with its data under {@code workDir} and its default settings. */
    public static BrokerProcess start(Path workDir) {
        return new BrokerProcess(start(LAUNCHER, workDir, workDir.resolve("broker.log")));
    }

    /**
     * Starts a broker on a free port with its data under {@code workDir} whose one listener is {@code listener} instead
     * of PLAINTEXT: its protocol (e.g. {@code SASL_SSL}), its broker settings (key store, {@code
     * scram.bootstrap.credentials}, authorizer, {@code super.users}...) and how the start-up probe trusts its
     * certificate.
     */
    public static BrokerProcess start(Path workDir, OrderflowBrokerLauncher.Listener listener) {
        return new BrokerProcess(start(LAUNCHER.withListener(listener), workDir, workDir.resolve("broker.log")));
    }

    /** The {@code bootstrap.servers} value for clients and tools. */
    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    /** The broker's stdout and stderr so far. */
    public String log() {
        return output(broker.logFile());
    }

    /** SIGTERM, then waits for the broker's clean shutdown; fails if it hangs or does not report one. */
    @Override
    public void close() {
        OptionalInt exitCode;
        try {
            exitCode = broker.stop(SHUTDOWN_TIMEOUT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            exitCode = OptionalInt.empty();
        }
        if (exitCode.isEmpty()) {
            throw new IllegalStateException(
                    "The broker did not stop within " + SHUTDOWN_TIMEOUT + " of SIGTERM; its output:\n" + log());
        }
        if (!log().contains("stopped cleanly")) {
            throw new IllegalStateException("The broker exited with code " + exitCode.getAsInt()
                    + " without a clean shutdown; its output:\n" + log());
        }
    }

    /**
     * Starts {@code launcher}'s broker with its data and configuration under {@code workDir} and its output in
     * {@code logFile}; if it does not come up, fails with what it printed (the temporary {@code workDir} is gone by
     * the time anyone reads the test report).
     */
    static RunningBroker start(BrokerLauncher launcher, Path workDir, Path logFile) {
        try {
            return launcher.start(workDir, logFile);
        } catch (IOException | ServiceStartException e) {
            throw new IllegalStateException(
                    launcher.name() + " did not start (" + e.getMessage() + "); its output:\n" + output(logFile), e);
        }
    }

    private static String output(Path logFile) {
        try {
            return Files.readString(logFile, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(cannot read " + logFile + ": " + e.getMessage() + ")";
        }
    }
}

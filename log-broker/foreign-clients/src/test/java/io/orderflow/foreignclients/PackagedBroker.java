package io.orderflow.foreignclients;

import io.orderflow.process.LocalCertificates;
import io.orderflow.process.OrderflowBrokerLauncher;
import io.orderflow.process.RunningBroker;
import io.orderflow.process.ServiceStartException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Our broker as the separate process users run: {@code log-broker.jar} and its {@code lib/} from the log-broker
 * module's build, started by the benchmarks' launcher with its default durability, four partitions for
 * auto-created topics (kcat cannot create topics) and no initial rebalance delay. It listens with
 * {@code PLAINTEXT} ({@link #start}) or with {@code SASL_SSL} ({@link #startSaslSsl}): TLS with a certificate of
 * {@link LocalCa}'s, and one SCRAM-SHA-512 user created at start.
 */
final class PackagedBroker implements AutoCloseable {
    static final int PARTITIONS = 4;
    static final String USER = "orderflow-client";
    static final String MECHANISM = "SCRAM-SHA-512";

    private static final OrderflowBrokerLauncher LAUNCHER = new OrderflowBrokerLauncher(
            Path.of("..", "..", "log-broker", "target"),
            List.of("-Xmx256m", "-XX:+UseSerialGC"),
            PARTITIONS,
            List.of());

    private final RunningBroker broker;
    private final Connection connection;

    private PackagedBroker(RunningBroker broker, Connection connection) {
        this.broker = broker;
        this.connection = connection;
    }

    /** The broker with a PLAINTEXT listener. */
    static PackagedBroker start(Path dir) {
        return start(dir, LAUNCHER, Optional.empty());
    }

    /** The broker with a PLAINTEXT listener and {@code KEY=VALUE} broker settings beyond the defaults. */
    static PackagedBroker startWith(Path dir, List<String> settings) {
        return start(
                dir,
                new OrderflowBrokerLauncher(
                        Path.of("..", "..", "log-broker", "target"),
                        List.of("-Xmx256m", "-XX:+UseSerialGC"),
                        PARTITIONS,
                        settings),
                Optional.empty());
    }

    /**
     * The broker with a SASL_SSL listener (SCRAM-SHA-256/512 and PLAIN offered, as by default) and the user
     * {@value #USER} with a random SCRAM-SHA-512 password; {@link #connection()} logs in as that user.
     */
    static PackagedBroker startSaslSsl(Path dir) {
        LocalCertificates certificates = LocalCa.certificates();
        byte[] random = new byte[12];
        new SecureRandom().nextBytes(random);
        SaslSsl login = new SaslSsl(
                MECHANISM, USER, Base64.getUrlEncoder().withoutPadding().encodeToString(random), certificates.caPem());
        List<String> settings = new ArrayList<>(certificates.brokerSettings());
        settings.add(
                "scram.bootstrap.credentials=" + MECHANISM + "=[name=" + USER + ",password=" + login.password() + "]");
        try {
            return start(
                    dir,
                    LAUNCHER.withListener(
                            new OrderflowBrokerLauncher.Listener("SASL_SSL", settings, certificates.clientSockets())),
                    Optional.of(login));
        } catch (IOException e) {
            throw new IllegalStateException("Cannot read the local CA's trust store", e);
        }
    }

    private static PackagedBroker start(Path dir, OrderflowBrokerLauncher launcher, Optional<SaslSsl> login) {
        Path log = dir.resolve("broker.log");
        try {
            Files.createDirectories(dir);
            RunningBroker broker = launcher.start(dir, log);
            return new PackagedBroker(broker, new Connection(broker.bootstrapServers(), login));
        } catch (IOException | ServiceStartException e) {
            throw new IllegalStateException("The broker did not start (" + e.getMessage() + "):\n" + read(log), e);
        }
    }

    /** How clients reach it: the bootstrap address and, over SASL_SSL, the login. */
    Connection connection() {
        return connection;
    }

    /** Everything the broker logged so far. */
    String log() {
        return read(broker.logFile());
    }

    @Override
    public void close() throws InterruptedException {
        OptionalInt exit = broker.stop(Duration.ofSeconds(30));
        if (exit.isEmpty()) {
            throw new IllegalStateException("The broker ignored SIGTERM for 30 s:\n" + log());
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(cannot read " + file + ")";
        }
    }
}

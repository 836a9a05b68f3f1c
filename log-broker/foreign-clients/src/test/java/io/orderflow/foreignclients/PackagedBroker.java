package io.orderflow.foreignclients;

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
 * Our broker as the separate process users run: {@code log-broker.jar} and its {@code lib/} from the log-broker
 * module's build, started by the benchmarks' launcher with its default durability, four partitions for
 * auto-created topics (kcat cannot create topics) and no initial rebalance delay.
 */
final class PackagedBroker implements AutoCloseable {
    static final int PARTITIONS = 4;

    private static final OrderflowBrokerLauncher LAUNCHER = new OrderflowBrokerLauncher(
            Path.of("..", "..", "log-broker", "target"),
            List.of("-Xmx256m", "-XX:+UseSerialGC"),
            PARTITIONS,
            List.of());

    private final RunningBroker broker;

    private PackagedBroker(RunningBroker broker) {
        this.broker = broker;
    }

    static PackagedBroker start(Path dir) {
        Path log = dir.resolve("broker.log");
        try {
            Files.createDirectories(dir);
            return new PackagedBroker(LAUNCHER.start(dir, log));
        } catch (IOException | ServiceStartException e) {
            throw new IllegalStateException("The broker did not start (" + e.getMessage() + "):\n" + read(log), e);
        }
    }

    String bootstrap() {
        return broker.bootstrapServers();
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

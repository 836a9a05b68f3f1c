package io.orderflow.ops.replay;

import io.orderflow.process.ApacheKafkaLauncher;
import io.orderflow.process.BrokerLauncher;
import io.orderflow.process.OrderflowBrokerLauncher;
import io.orderflow.process.RunningBroker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The two brokers a replay must work on, each a child JVM started by service-process's launchers: ours from its
 * packaged jar ({@code log-broker/target}), Apache Kafka from kafka_2.13 on this test classpath. One partition per
 * auto-created topic on both; tests create theirs with a count. Data and output under {@code target/brokers/}.
 */
enum TestBroker {
    OURS(new OrderflowBrokerLauncher(
            Path.of("..", "..", "log-broker", "target"), List.of("-Xmx256m", "-XX:+UseSerialGC"), 1, List.of())),
    APACHE_KAFKA(ApacheKafkaLauncher.onClasspath(System.getProperty("java.class.path"), List.of("-Xmx512m"), 1));

    private final BrokerLauncher launcher;

    TestBroker(BrokerLauncher launcher) {
        this.launcher = launcher;
    }

    /** Starts a fresh broker; returns once it answers requests. */
    RunningBroker start() {
        Path runDir;
        try {
            Files.createDirectories(Path.of("target", "brokers"));
            runDir = Files.createTempDirectory(Path.of("target", "brokers"), name().toLowerCase(java.util.Locale.ROOT));
            return launcher.start(runDir, runDir.resolve("broker.log"));
        } catch (IOException e) {
            throw new UncheckedIOException(launcher.name() + " did not start", e);
        }
    }
}

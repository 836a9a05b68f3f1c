package io.orderflow.compatibility;

import io.orderflow.process.ApacheKafkaLauncher;
import io.orderflow.process.RunningBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Apache Kafka 4.4.0 itself (kafka_2.13, a test dependency of this module), one node in KRaft combined mode, as a
 * child process: the cluster our services must also run against with nothing changed but the bootstrap address.
 * Started by the launcher the benchmarks use ({@link ApacheKafkaLauncher}, from service-process), as Kafka's
 * quickstart does it: storage formatted with a random cluster id ({@code kafka.tools.StorageTool format
 * --standalone}), then {@code kafka.Kafka server.properties}, on free loopback ports with one partition per topic by
 * default (Kafka's own default) and its data in {@code workDir/data}. The classpath is this test JVM's, which holds
 * kafka_2.13 and its dependencies; the heap is at most 512 MiB. Output goes to {@code workDir/kafka.log}, the
 * formatting's to {@code workDir/kafka-format.log}.
 *
 * <p>Not thread-safe; one per test class.
 */
public final class ApacheKafkaProcess implements AutoCloseable {
    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);

    private final RunningBroker kafka;

    private ApacheKafkaProcess(RunningBroker kafka) {
        this.kafka = kafka;
    }

    /** Starts Kafka with its data and configuration under {@code workDir}; returns once it answers requests. */
    public static ApacheKafkaProcess start(Path workDir) {
        ApacheKafkaLauncher launcher =
                ApacheKafkaLauncher.onClasspath(System.getProperty("java.class.path"), List.of("-Xmx512m"), 1);
        return new ApacheKafkaProcess(BrokerProcess.start(launcher, workDir, workDir.resolve("kafka.log")));
    }

    /** The {@code bootstrap.servers} value for clients and tools. */
    public String bootstrapServers() {
        return kafka.bootstrapServers();
    }

    /** SIGTERM, then waits up to 30 s for Kafka to exit; kills it if it has not. */
    @Override
    public void close() throws InterruptedException {
        kafka.stop(SHUTDOWN_TIMEOUT);
    }
}

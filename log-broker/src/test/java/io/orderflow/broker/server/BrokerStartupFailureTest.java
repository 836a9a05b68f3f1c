package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.orderflow.broker.log.DataDirectoryInUseException;
import io.orderflow.broker.log.PartitionLog;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A start-up that fails (a port in use) says which port and data directory, and closes what it had opened: the
 * logs get their clean-shutdown markers back, the Kafka listener's port is free, and none of the broker's threads
 * is left. The same data directory then opens at once, on another port, with its data.
 */
class BrokerStartupFailureTest {
    private static final String LOOPBACK = "127.0.0.1";
    private static final List<String> BROKER_THREADS = List.of("log-flusher-", "broker-scheduler", "broker-acceptor");

    @TempDir
    Path dataDir;

    private Set<Thread> threadsBefore;

    @BeforeEach
    void writeSomeDataAndStopCleanly() {
        try (Broker broker = Broker.start(TestBroker.config(dataDir, Map.of()), Clock.systemUTC())) {
            broker.logs().createTopic("kept", 1, Map.of());
            PartitionLog partition = broker.logs().partition("kept", 0).orElseThrow();
            MemoryRecords records = MemoryRecords.withRecords(
                    Compression.NONE,
                    new SimpleRecord("k".getBytes(StandardCharsets.UTF_8), "first".getBytes(StandardCharsets.UTF_8)),
                    new SimpleRecord("k".getBytes(StandardCharsets.UTF_8), "second".getBytes(StandardCharsets.UTF_8)));
            partition
                    .awaitDurable(partition.append(records.buffer()).endOffset())
                    .join();
        }
        threadsBefore = Set.copyOf(Thread.getAllStackTraces().keySet());
    }

    @Test
    void aKafkaPortInUseFailsTheStartNamingThePortAndTheDataDirectoryAndLeavesNothingOpen() throws IOException {
        try (ServerSocket occupied = new ServerSocket(0, 50, InetAddress.getByName(LOOPBACK))) {
            int port = occupied.getLocalPort();

            assertThatThrownBy(() -> Broker.start(config(port, -1), Clock.systemUTC()))
                    .isInstanceOfSatisfying(BrokerStartException.class, e -> {
                        assertThat(e.step()).isEqualTo("bind the Kafka listener PLAINTEXT to " + LOOPBACK + ":" + port);
                        assertThat(e.dataDir()).isEqualTo(dataDir.toAbsolutePath());
                        assertThat(e.getMessage())
                                .contains(
                                        LOOPBACK + ":" + port,
                                        dataDir.toAbsolutePath().toString());
                    })
                    .hasRootCauseInstanceOf(BindException.class);
        }

        assertThat(dataDir.resolve("kept-0").resolve("clean-shutdown"))
                .as("the failed start closed the partition it had opened")
                .exists();
        assertThat(dataDir.resolve("__consumer_offsets-0").resolve("clean-shutdown"))
                .exists();
        awaitNoNewBrokerThreads();
        startsAgainOnAFreePortAndSeesTheData();
    }

    @Test
    void aMetricsPortInUseFailsTheStartAndReleasesTheKafkaListenerItHadBound() throws IOException {
        int kafkaPort = freePort();
        try (ServerSocket occupied = new ServerSocket(0, 50, InetAddress.getByName(LOOPBACK))) {
            int metricsPort = occupied.getLocalPort();

            assertThatThrownBy(() -> Broker.start(config(kafkaPort, metricsPort), Clock.systemUTC()))
                    .isInstanceOf(BrokerStartException.class)
                    .hasMessageContaining("bind the metrics endpoint to " + LOOPBACK + ":" + metricsPort)
                    .hasMessageContaining(dataDir.toAbsolutePath().toString());
        }

        try (ServerSocket listenerPortAgain = new ServerSocket(kafkaPort, 50, InetAddress.getByName(LOOPBACK))) {
            assertThat(listenerPortAgain.getLocalPort()).isEqualTo(kafkaPort);
        }
        assertThat(dataDir.resolve("kept-0").resolve("clean-shutdown")).exists();
        awaitNoNewBrokerThreads();
        startsAgainOnAFreePortAndSeesTheData();
    }

    @Test
    void aDataDirectoryInUseByAnotherBrokerFailsTheStartAndTheFirstBrokerKeepsItsData() {
        try (Broker first = Broker.start(config(0, -1), Clock.systemUTC())) {
            assertThatThrownBy(() -> Broker.start(config(0, -1), Clock.systemUTC()))
                    .isInstanceOfSatisfying(
                            BrokerStartException.class,
                            e -> assertThat(e.step()).isEqualTo("lock the data directory " + dataDir.toAbsolutePath()))
                    .hasRootCauseInstanceOf(DataDirectoryInUseException.class)
                    .rootCause()
                    .hasMessageContaining(dataDir.toAbsolutePath().toString())
                    .hasMessageContaining("in use by another broker");

            assertThat(LogContents.values(first, "kept", 0)).containsExactly("first", "second");
        }
        awaitNoNewBrokerThreads();
        startsAgainOnAFreePortAndSeesTheData();
    }

    private void startsAgainOnAFreePortAndSeesTheData() {
        try (Broker broker = Broker.start(config(0, -1), Clock.systemUTC())) {
            PartitionLog kept = broker.logs().partition("kept", 0).orElseThrow();
            assertThat(kept.recoveredCleanly()).isTrue();
            assertThat(LogContents.values(broker, "kept", 0)).containsExactly("first", "second");
        }
    }

    /** Threads the broker names, started since the set-up's broker stopped, must all end. */
    private void awaitNoNewBrokerThreads() {
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(Thread.getAllStackTraces().keySet())
                        .filteredOn(t -> !threadsBefore.contains(t))
                        .extracting(Thread::getName)
                        .noneMatch(name -> BROKER_THREADS.stream().anyMatch(name::startsWith)));
    }

    private BrokerConfig config(int port, int metricsPort) {
        return TestBroker.config(
                dataDir, Map.of("port", Integer.toString(port), "metrics.port", Integer.toString(metricsPort)));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
            return socket.getLocalPort();
        }
    }
}

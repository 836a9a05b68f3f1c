package io.orderflow.testing;

import io.orderflow.broker.server.Broker;
import io.orderflow.broker.server.BrokerConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * Our log broker, running inside the test JVM and reached over TCP on a loopback port, for services' integration
 * tests: they get a bootstrap address and talk to it with stock Kafka clients, exactly as they would to Apache Kafka.
 *
 * <p>The port is fixed for the fixture's life, so {@link #stop()} followed by {@link #start()} looks to clients like
 * a broker that went away and came back (same address, same data directory): what a restarted broker is.
 *
 * <p>Defaults suit tests: no metrics listener, topics auto-created with one partition unless {@code settings} say
 * otherwise (any {@link BrokerConfig} key). Not thread-safe: one test drives it.
 */
public final class InProcessBroker implements AutoCloseable {

    private final Path dataDirectory;
    private final int port;
    private final Map<String, String> settings;
    private Broker broker;

    private InProcessBroker(Path dataDirectory, int port, Map<String, String> settings) {
        this.dataDirectory = dataDirectory;
        this.port = port;
        this.settings = Map.copyOf(settings);
    }

    /** Starts a broker on a free loopback port with its data under {@code dataDirectory}. */
    public static InProcessBroker start(Path dataDirectory) {
        return start(dataDirectory, Map.of());
    }

    /** Starts a broker on a free loopback port, with {@code settings} (broker keys) over the test defaults. */
    public static InProcessBroker start(Path dataDirectory, Map<String, String> settings) {
        InProcessBroker broker = new InProcessBroker(dataDirectory, freePort(), settings);
        broker.start();
        return broker;
    }

    /** Starts the broker again after {@link #stop()}, on the same port and data. No-op if it is running. */
    public synchronized void start() {
        if (broker == null) {
            broker = Broker.start(config(), Clock.systemUTC());
        }
    }

    /** Stops the broker cleanly; clients see their connections closed and the port refusing. */
    public synchronized void stop() {
        if (broker != null) {
            broker.close();
            broker = null;
        }
    }

    public synchronized boolean isRunning() {
        return broker != null;
    }

    /** {@code host:port} for {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    public Path dataDirectory() {
        return dataDirectory;
    }

    /** Creates {@code topic} with {@code partitions} partitions through the Admin API, as an operator would. */
    public void createTopic(String topic, int partitions) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
    }

    @Override
    public void close() {
        stop();
    }

    private BrokerConfig config() {
        Map<String, String> values = new HashMap<>(Map.of(
                "port", Integer.toString(port),
                "listen.host", "127.0.0.1",
                "advertised.host", "127.0.0.1",
                "log.dirs", dataDirectory.toString(),
                "metrics.port", "-1",
                "group.initial.rebalance.delay.ms", "0"));
        values.putAll(settings);
        return BrokerConfig.from(values);
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port for the broker", e);
        }
    }
}

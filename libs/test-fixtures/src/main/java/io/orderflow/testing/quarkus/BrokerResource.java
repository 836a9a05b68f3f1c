package io.orderflow.testing.quarkus;

import io.orderflow.testing.InProcessBroker;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * Our broker for a service's {@code @QuarkusTest}s, in the test JVM but reached over TCP like any broker: started
 * before the application with a fresh data directory under {@code target/}, and given to it as
 * {@code kafka.bootstrap.servers}. {@link #bootstrapServers()} tells the tests' own clients where it is. The init
 * argument {@code topics} ({@code "orders:3,inventory:3"}) names topics to create first, with their partitions.
 */
public class BrokerResource implements QuarkusTestResourceLifecycleManager {

    private static volatile InProcessBroker broker;
    private String topics = "";

    @Override
    public void init(Map<String, String> initArgs) {
        topics = initArgs.getOrDefault("topics", "");
    }

    /** The running broker's address, for the tests' producers and consumers. */
    public static String bootstrapServers() {
        return broker.bootstrapServers();
    }

    @Override
    public Map<String, String> start() {
        try {
            Path dir = Files.createTempDirectory(Files.createDirectories(Path.of("target")), "broker-");
            broker = InProcessBroker.start(dir);
            createTopics();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Map.of("kafka.bootstrap.servers", broker.bootstrapServers());
    }

    private void createTopics() {
        List<NewTopic> wanted = new ArrayList<>();
        for (String topic : topics.split(",")) {
            if (!topic.isBlank()) {
                String[] nameAndPartitions = topic.trim().split(":");
                wanted.add(new NewTopic(nameAndPartitions[0], Integer.parseInt(nameAndPartitions[1]), (short) 1));
            }
        }
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            admin.createTopics(wanted).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot create the topics " + topics, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating the topics " + topics, e);
        }
    }

    @Override
    public void stop() {
        if (broker != null) {
            broker.close();
        }
    }
}

package io.orderflow.ops.bench.orders;

import io.orderflow.contracts.Topics;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;

/**
 * Creates the {@code orders} topic, and {@code inventory} beside it where inventory-service's answers flow, with the
 * Admin API, as an operator would, before the relays start: each with the same partitions, as the platform creates
 * them. Stateless.
 */
public final class OrdersTopic {
    public static final String NAME = Topics.ORDERS;
    /** inventory-service's answers, read by order-service's saga consumer. */
    public static final String INVENTORY = Topics.INVENTORY;

    private static final long TIMEOUT_SECONDS = 60;

    private OrdersTopic() {}

    /** Creates {@value #NAME} with {@code partitions} partitions (replication 1) and waits until each has a leader. */
    public static void create(String bootstrapServers, int partitions)
            throws ExecutionException, InterruptedException, TimeoutException {
        create(bootstrapServers, partitions, List.of(NAME));
    }

    /** Creates each of {@code topics} with {@code partitions} partitions (replication 1); waits for their leaders. */
    public static void create(String bootstrapServers, int partitions, List<String> topics)
            throws ExecutionException, InterruptedException, TimeoutException {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            admin.createTopics(topics.stream()
                            .map(topic -> new NewTopic(topic, partitions, (short) 1))
                            .toList())
                    .all()
                    .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
            for (String name : topics) {
                while (true) {
                    TopicDescription topic = admin.describeTopics(List.of(name))
                            .allTopicNames()
                            .get(TIMEOUT_SECONDS, TimeUnit.SECONDS)
                            .get(name);
                    if (topic.partitions().size() == partitions
                            && topic.partitions().stream().allMatch(p -> p.leader() != null)) {
                        break;
                    }
                    if (System.nanoTime() > deadline) {
                        throw new TimeoutException("Topic " + name + " on " + bootstrapServers + " has "
                                + topic.partitions().size() + " partitions, not all with a leader, after "
                                + TIMEOUT_SECONDS + " s; expected " + partitions);
                    }
                    Thread.sleep(50); // polling the controller until every partition has its leader
                }
            }
        }
    }
}

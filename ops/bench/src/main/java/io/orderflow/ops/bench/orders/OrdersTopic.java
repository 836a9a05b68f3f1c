package io.orderflow.ops.bench.orders;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;

/** Creates the {@code orders} topic with the Admin API, as an operator would, before the relay starts. Stateless. */
public final class OrdersTopic {
    public static final String NAME = "orders";
    private static final long TIMEOUT_SECONDS = 60;

    private OrdersTopic() {}

    /** Creates {@value #NAME} with {@code partitions} partitions (replication 1) and waits until each has a leader. */
    public static void create(String bootstrapServers, int partitions)
            throws ExecutionException, InterruptedException, TimeoutException {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            admin.createTopics(List.of(new NewTopic(NAME, partitions, (short) 1)))
                    .all()
                    .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
            while (true) {
                TopicDescription topic = admin.describeTopics(List.of(NAME))
                        .allTopicNames()
                        .get(TIMEOUT_SECONDS, TimeUnit.SECONDS)
                        .get(NAME);
                if (topic.partitions().size() == partitions
                        && topic.partitions().stream().allMatch(p -> p.leader() != null)) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException("Topic " + NAME + " on " + bootstrapServers + " has "
                            + topic.partitions().size() + " partitions, not all with a leader, after "
                            + TIMEOUT_SECONDS + " s; expected " + partitions);
                }
                Thread.sleep(50);
            }
        }
    }
}

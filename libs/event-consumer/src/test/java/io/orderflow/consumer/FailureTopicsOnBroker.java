package io.orderflow.consumer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/** The tests' retry and dead-letter topics on a broker, one partition each, plus any source topics they name. */
final class FailureTopicsOnBroker {

    private FailureTopicsOnBroker() {}

    static void create(String bootstrapServers, RetryTopics failureTopics, NewTopic... sources) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            List<NewTopic> topics = new ArrayList<>(List.of(sources));
            failureTopics.retryTopicNames().forEach(name -> topics.add(new NewTopic(name, 1, (short) 1)));
            topics.add(new NewTopic(failureTopics.deadLetterTopic(), 1, (short) 1));
            admin.createTopics(topics).all().get(30, TimeUnit.SECONDS);
        }
    }
}

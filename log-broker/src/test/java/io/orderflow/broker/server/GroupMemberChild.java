package io.orderflow.broker.server;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A group member in its own JVM, for {@link GroupMemberCrashTest} to kill with SIGKILL. For every poll it prints
 * {@code GOT <value>} per record, commits synchronously, then prints {@code COMMITTED}; so everything printed
 * before the last {@code COMMITTED} line was committed. Exits when its parent goes away.
 */
public final class GroupMemberChild {
    private GroupMemberChild() {}

    public static void main(String[] args) {
        String bootstrap = args[0];
        String group = args[1];
        String topic = args[2];
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "10");
        p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000");
        p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "500");
        ProcessHandle.current()
                .parent()
                .ifPresent(parent ->
                        parent.onExit().thenRun(() -> Runtime.getRuntime().halt(3)));
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            while (true) {
                var records = consumer.poll(Duration.ofMillis(200));
                if (records.isEmpty()) {
                    continue;
                }
                for (ConsumerRecord<String, String> r : records) {
                    System.out.println("GOT " + r.value());
                }
                consumer.commitSync();
                System.out.println("COMMITTED");
                System.out.flush();
            }
        }
    }
}

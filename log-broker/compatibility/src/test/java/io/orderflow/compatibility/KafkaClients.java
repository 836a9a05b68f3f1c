package io.orderflow.compatibility;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The stock kafka-clients 4.4.0 admin, producer and consumer, in this JVM, for the set-up and checks around the
 * CLI tools: creating topics and producing data directly is much faster than starting a tool's JVM for it.
 */
final class KafkaClients {
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

    private KafkaClients() {}

    static void createTopic(String bootstrap, String name, int partitions) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1)))
                    .all()
                    .get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Cannot create topic " + name + " with " + partitions + " partitions", e);
        }
    }

    /** Sends every record with {@code acks=all} and returns once all of them are acknowledged. */
    static void produce(String bootstrap, List<ProducerRecord<String, String>> records) {
        Map<String, Object> config = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ProducerConfig.ACKS_CONFIG,
                "all",
                ProducerConfig.LINGER_MS_CONFIG,
                5);
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            List<Future<?>> sent = new ArrayList<>();
            for (ProducerRecord<String, String> record : records) {
                sent.add(producer.send(record));
            }
            for (Future<?> ack : sent) {
                ack.get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Cannot produce " + records.size() + " records", e);
        }
    }

    /**
     * A consumer in {@code group} that starts at the earliest offset when the group has no committed offset
     * and commits only when told to; it speaks the client's default group protocol, the classic one.
     */
    static KafkaConsumer<String, String> groupConsumer(String bootstrap, String group) {
        return new KafkaConsumer<>(groupConfig(bootstrap, group), new StringDeserializer(), new StringDeserializer());
    }

    /**
     * As {@link #groupConsumer(String, String)}, joining through {@code protocol}: {@code group.protocol=classic}
     * (JoinGroup, SyncGroup, Heartbeat, the assignment computed by the leader) or {@code group.protocol=consumer}
     * (KIP-848's ConsumerGroupHeartbeat, the assignment computed by the broker's default assignor).
     */
    static KafkaConsumer<String, String> groupConsumer(String bootstrap, String group, GroupProtocol protocol) {
        return new KafkaConsumer<>(
                groupConfig(bootstrap, group, protocol), new StringDeserializer(), new StringDeserializer());
    }

    /** As {@link #groupConsumer(String, String, GroupProtocol)}, with {@code client.id} {@code clientId}. */
    static KafkaConsumer<String, String> groupMember(
            String bootstrap, String group, GroupProtocol protocol, String clientId) {
        Map<String, Object> config = groupConfig(bootstrap, group, protocol);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        return new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer());
    }

    private static Map<String, Object> groupConfig(String bootstrap, String group, GroupProtocol protocol) {
        Map<String, Object> config = new HashMap<>(groupConfig(bootstrap, group));
        config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol.name().toLowerCase(Locale.ROOT));
        return config;
    }

    private static Map<String, Object> groupConfig(String bootstrap, String group) {
        return Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG,
                group,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false);
    }

    /**
     * Polls every member in turn until each holds at least one partition of {@code topic}, none holds a partition
     * another holds, and together they hold all {@code partitions} of it: the group has (re)balanced, as its members
     * see it. Fails after 30 s.
     */
    static void pollUntilBalanced(List<KafkaConsumer<String, String>> members, String topic, int partitions) {
        Set<TopicPartition> all = new HashSet<>();
        for (int p = 0; p < partitions; p++) {
            all.add(new TopicPartition(topic, p));
        }
        await(members.size() + " members sharing the " + partitions + " partitions of " + topic)
                .atMost(CALL_TIMEOUT)
                .pollInSameThread()
                .pollInterval(Duration.ofMillis(1))
                .until(() -> {
                    List<Set<TopicPartition>> assignments = new ArrayList<>();
                    for (KafkaConsumer<String, String> member : members) {
                        member.poll(Duration.ofMillis(50));
                        assignments.add(member.assignment());
                    }
                    Set<TopicPartition> held = new HashSet<>();
                    int count = 0;
                    for (Set<TopicPartition> assignment : assignments) {
                        if (assignment.isEmpty()) {
                            return false;
                        }
                        held.addAll(assignment);
                        count += assignment.size();
                    }
                    return count == held.size() && held.equals(all);
                });
    }

    /** Polls until at least {@code count} records have arrived (failing after 30 s) and returns them all. */
    static List<ConsumerRecord<String, String>> pollAtLeast(KafkaConsumer<String, String> consumer, int count) {
        List<ConsumerRecord<String, String>> received = new ArrayList<>();
        await("" + count + " records")
                .atMost(CALL_TIMEOUT)
                .pollInSameThread()
                .pollInterval(Duration.ofMillis(1))
                .until(
                        () -> {
                            consumer.poll(Duration.ofMillis(200)).forEach(received::add);
                            return received.size();
                        },
                        size -> size >= count);
        return received;
    }

    /** A consumer of byte values in a group of its own, from the earliest offset, reading committed records only. */
    static org.apache.kafka.clients.consumer.KafkaConsumer<String, byte[]> readCommittedConsumer(String bootstrap) {
        return new org.apache.kafka.clients.consumer.KafkaConsumer<>(
                Map.of(
                        org.apache.kafka.clients.consumer.ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrap,
                        org.apache.kafka.clients.consumer.ConsumerConfig.GROUP_ID_CONFIG,
                        "reader-" + java.util.UUID.randomUUID(),
                        org.apache.kafka.clients.consumer.ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                        "earliest",
                        org.apache.kafka.clients.consumer.ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                        "read_committed"),
                new org.apache.kafka.common.serialization.StringDeserializer(),
                new org.apache.kafka.common.serialization.ByteArrayDeserializer());
    }
}

package io.orderflow.foreignclients;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A stock Java client of an older release, in a child JVM whose classpath is that release's
 * {@code kafka-clients} jar and nothing of 4.x, with the same two roles as the KafkaJS script:
 *
 * <ul>
 *   <li>{@code produce <bootstrap> <topic>}: "key value" lines from stdin, sent by an idempotent {@code acks=all}
 *       producer; prints {@code sent N} once all are acknowledged.
 *   <li>{@code consume <bootstrap> <topic> <group>}: a group member from the earliest uncommitted offset; prints
 *       {@code # assigned <partitions>} after each rebalance and {@code <partition> <offset> <key> <value>} per
 *       record, commits after each poll, and on SIGTERM commits, leaves the group and exits 0.
 * </ul>
 *
 * With {@code SASL_MECHANISM}, {@code SASL_USERNAME}, {@code SASL_PASSWORD} and {@code SSL_CA_LOCATION} in the
 * environment (see {@link SaslSsl}) both connect with {@code SASL_SSL}, trusting that PEM file's CA; without them, in
 * plain text. Compiled against the oldest release the suite runs (see the module's pom), whose API every newer one
 * keeps.
 */
public final class JavaClientScenario {
    private JavaClientScenario() {}

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "produce" -> produce(args[1], args[2]);
            case "consume" -> consume(args[1], args[2], args[3]);
            default -> throw new IllegalArgumentException("produce|consume, not " + args[0]);
        }
    }

    /** {@code bootstrap.servers} and, when the environment names a login, the SASL_SSL settings. */
    private static Properties connection(String bootstrap) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        String mechanism = System.getenv("SASL_MECHANISM");
        if (mechanism != null) {
            p.put("security.protocol", "SASL_SSL");
            p.put("sasl.mechanism", mechanism);
            p.put(
                    "sasl.jaas.config",
                    "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                            + System.getenv("SASL_USERNAME") + "\" password=\"" + System.getenv("SASL_PASSWORD")
                            + "\";");
            p.put("ssl.truststore.type", "PEM");
            p.put("ssl.truststore.location", System.getenv("SSL_CA_LOCATION"));
        }
        return p;
    }

    private static void produce(String bootstrap, String topic) throws Exception {
        Properties p = connection(bootstrap);
        p.put("acks", "all");
        p.put("enable.idempotence", "true");
        p.put("client.id", "orderflow-java-client");
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                KafkaProducer<String, String> producer =
                        new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            String line;
            while ((line = in.readLine()) != null) {
                if (!line.isBlank()) {
                    int space = line.indexOf(' ');
                    sent.add(producer.send(
                            new ProducerRecord<>(topic, line.substring(0, space), line.substring(space + 1))));
                }
            }
            for (Future<RecordMetadata> f : sent) {
                f.get();
            }
        }
        System.out.println("sent " + sent.size());
    }

    private static void consume(String bootstrap, String topic, String group) throws Exception {
        Properties p = connection(bootstrap);
        p.put("group.id", group);
        p.put("client.id", "orderflow-java-client-" + group);
        p.put("auto.offset.reset", "earliest");
        p.put("enable.auto.commit", "false");
        p.put("session.timeout.ms", "10000");
        p.put("heartbeat.interval.ms", "500");
        KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
        Thread main = Thread.currentThread();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            consumer.wakeup();
            try {
                main.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        try {
            consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    System.out.println("# assigned "
                            + partitions.stream()
                                    .map(TopicPartition::partition)
                                    .sorted()
                                    .map(String::valueOf)
                                    .collect(Collectors.joining(" ")));
                    System.out.flush();
                }
            });
            while (true) {
                var records = consumer.poll(Duration.ofMillis(200));
                for (ConsumerRecord<String, String> r : records) {
                    System.out.println(r.partition() + " " + r.offset() + " " + r.key() + " " + r.value());
                }
                System.out.flush();
                if (!records.isEmpty()) {
                    consumer.commitSync();
                }
            }
        } catch (WakeupException stopping) {
            consumer.commitSync();
        } finally {
            consumer.close();
        }
    }
}

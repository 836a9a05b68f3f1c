package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A group member killed with SIGKILL mid-stream: its session expires, the survivor takes over its partitions
 * from the committed offsets, nothing committed is read again and nothing is skipped.
 */
class GroupMemberCrashTest {
    private static final String TOPIC = "orders";
    private static final int RECORDS = 300;

    @TempDir
    Path dataDir;

    @Test
    void survivorResumesFromTheCrashedMembersCommittedOffsets() throws Exception {
        try (TestBroker broker = TestBroker.start(dataDir, Map.of("group.initial.rebalance.delay.ms", "0"))) {
            broker.createTopic(TOPIC, 4, Map.of());
            try (KafkaProducer<String, String> producer = broker.producer()) {
                for (int i = 0; i < RECORDS; i++) {
                    producer.send(new ProducerRecord<>(TOPIC, "key-" + (i % 11), "v" + i));
                }
                producer.flush();
            }

            Process child = new ProcessBuilder(
                            ProcessHandle.current().info().command().orElse("java"),
                            "-cp",
                            System.getProperty("java.class.path"),
                            GroupMemberChild.class.getName(),
                            broker.bootstrap(),
                            "g",
                            TOPIC)
                    .redirectErrorStream(false)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            List<String> pending = new ArrayList<>();
            Set<String> committedByCrashed = new HashSet<>();
            try (BufferedReader out =
                    new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while (committedByCrashed.size() < RECORDS / 3 && (line = out.readLine()) != null) {
                    if (line.startsWith("GOT ")) {
                        pending.add(line.substring(4));
                    } else if (line.equals("COMMITTED")) {
                        committedByCrashed.addAll(pending);
                        pending.clear();
                    }
                }
                child.destroyForcibly();
                assertThat(child.onExit().get(30, TimeUnit.SECONDS).exitValue()).isEqualTo(137);
            }
            assertThat(committedByCrashed).hasSizeGreaterThanOrEqualTo(RECORDS / 3);

            Set<String> survivor = new HashSet<>();
            List<String> survivorInOrder = new ArrayList<>();
            Properties p = new Properties();
            p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
            p.put(ConsumerConfig.GROUP_ID_CONFIG, "g");
            p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            try (KafkaConsumer<String, String> consumer =
                    new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
                consumer.subscribe(List.of(TOPIC));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
                while (survivor.size() + committedByCrashed.size() < RECORDS && System.nanoTime() < deadline) {
                    consumer.poll(Duration.ofMillis(200)).forEach(r -> {
                        survivor.add(r.value());
                        survivorInOrder.add(r.value());
                    });
                    consumer.commitSync();
                }
            }

            Set<String> all = new HashSet<>(committedByCrashed);
            all.addAll(survivor);
            assertThat(all).as("nothing skipped").hasSize(RECORDS);
            Set<String> reread = new HashSet<>(survivor);
            reread.retainAll(committedByCrashed);
            assertThat(reread).as("nothing committed is read again").isEmpty();
            assertThat(survivorInOrder)
                    .as("the survivor reads each record once")
                    .doesNotHaveDuplicates();
        }
    }
}

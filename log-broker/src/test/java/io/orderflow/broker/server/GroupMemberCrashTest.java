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
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A group member killed with SIGKILL mid-stream: its session expires, the survivor takes over its partitions
 * from the committed offsets, nothing committed is read again and nothing is skipped. The member's last commit
 * may or may not have reached the broker before the kill; the records it covers count as read either way.
 */
class GroupMemberCrashTest {
    private static final String TOPIC = "orders";
    private static final int RECORDS = 300;
    private static final int PARTITIONS = 4;

    @TempDir
    Path dataDir;

    @Test
    void survivorResumesFromTheCrashedMembersCommittedOffsets() throws Exception {
        try (TestBroker broker = TestBroker.start(dataDir, Map.of("group.initial.rebalance.delay.ms", "0"))) {
            broker.createTopic(TOPIC, PARTITIONS, Map.of());
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
                    read(line, pending, committedByCrashed);
                }
                // SIGKILL through the handle: Process.destroyForcibly would also close our end of its stdout.
                child.toHandle().destroyForcibly();
                assertThat(child.onExit().get(30, TimeUnit.SECONDS).exitValue()).isEqualTo(137);
                // The child ran on until the kill: what it printed meanwhile is still in the pipe.
                while ((line = out.readLine()) != null) {
                    read(line, pending, committedByCrashed);
                }
            }
            assertThat(committedByCrashed).hasSizeGreaterThanOrEqualTo(RECORDS / 3);
            // Records the crashed member got but whose commit it did not confirm: the kill may have come before
            // or after the broker stored that commit, so the survivor reads them again or not. Either is right.
            Set<String> unconfirmed = new HashSet<>(pending);

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
                while (!(coversEveryRecord(committedByCrashed, unconfirmed, survivor) && caughtUp(consumer))
                        && System.nanoTime() < deadline) {
                    consumer.poll(Duration.ofMillis(200)).forEach(r -> {
                        survivor.add(r.value());
                        survivorInOrder.add(r.value());
                    });
                    consumer.commitSync();
                }
            }

            // The survivor read from the committed offsets to the end of every partition, so a record neither
            // member read would be missing here.
            assertThat(coversEveryRecord(committedByCrashed, unconfirmed, survivor))
                    .as("nothing skipped")
                    .isTrue();
            Set<String> reread = new HashSet<>(survivor);
            reread.retainAll(committedByCrashed);
            assertThat(reread).as("nothing committed is read again").isEmpty();
            assertThat(survivorInOrder)
                    .as("the survivor reads each record once")
                    .doesNotHaveDuplicates();
        }
    }

    /** A line of {@link GroupMemberChild}: a record it got, or the confirmation that it committed those so far. */
    private static void read(String line, List<String> pending, Set<String> committed) {
        if (line.startsWith("GOT ")) {
            pending.add(line.substring(4));
        } else if (line.equals("COMMITTED")) {
            committed.addAll(pending);
            pending.clear();
        }
    }

    private static boolean coversEveryRecord(Set<String> committed, Set<String> unconfirmed, Set<String> survivor) {
        Set<String> all = new HashSet<>(committed);
        all.addAll(unconfirmed);
        all.addAll(survivor);
        return all.size() == RECORDS;
    }

    /** Owns all the topic's partitions and has read each to its end. */
    private static boolean caughtUp(KafkaConsumer<String, String> consumer) {
        Set<TopicPartition> assigned = consumer.assignment();
        if (assigned.size() < PARTITIONS) {
            return false;
        }
        Map<TopicPartition, Long> ends = consumer.endOffsets(assigned);
        return assigned.stream().allMatch(tp -> consumer.position(tp) >= ends.get(tp));
    }
}

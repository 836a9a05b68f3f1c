package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker with a 64 MiB heap, as its launchers start it, under 32 connections whose frames claim 100 MiB each and
 * keep sending, and 32 more that each send a whole 8 MiB frame at once: together many times its heap. Its request
 * memory (a quarter of the heap) reads one large frame at a time and closes the ones that could never fit; a
 * producer and a consumer beside them are served throughout, and the JVM never runs out of memory (with {@code
 * -XX:+ExitOnOutOfMemoryError} it would have exited).
 */
class SmallHeapBrokerTest {
    private static final int FLOODS = 32;
    private static final int LARGE_FRAME = 8 * 1024 * 1024;
    private static final Set<Socket> OPEN = ConcurrentHashMap.newKeySet();

    @TempDir
    Path dir;

    @Test
    void framesThatClaimOrSendManyTimesTheHeapLeaveItServingOthers() throws Exception {
        ExecutorService attackers = Executors.newVirtualThreadPerTaskExecutor();
        AtomicBoolean attacking = new AtomicBoolean(true);
        try (ChildBroker broker = ChildBroker.start(dir.resolve("data"), List.of("-Xmx64m"), List.of())) {
            List<CompletableFuture<Void>> floods = new ArrayList<>();
            for (int i = 0; i < FLOODS; i++) {
                floods.add(CompletableFuture.runAsync(
                        () -> flood(broker.port(), 100 * 1024 * 1024, attacking), attackers));
                floods.add(CompletableFuture.runAsync(() -> flood(broker.port(), LARGE_FRAME, attacking), attackers));
            }

            String bootstrap = "127.0.0.1:" + broker.port();
            try (KafkaProducer<String, String> producer = producer(bootstrap);
                    KafkaConsumer<String, String> consumer = consumer(bootstrap)) {
                TopicPartition partition = new TopicPartition("beside-the-floods", 0);
                consumer.assign(List.of(partition));
                for (int i = 0; i < 20; i++) {
                    producer.send(new ProducerRecord<>(partition.topic(), 0, "k" + i, "v" + i))
                            .get(30, TimeUnit.SECONDS);
                    assertThat(broker.answersApiVersions()).isTrue();
                }
                List<String> read = new ArrayList<>();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (read.size() < 20 && System.nanoTime() < deadline) {
                    ConsumerRecords<String, String> records = consumer.poll(java.time.Duration.ofMillis(500));
                    records.forEach(record -> read.add(record.value()));
                }
                assertThat(read).hasSize(20).startsWith("v0").endsWith("v19");
            }

            attacking.set(false);
            for (Socket socket : OPEN) {
                socket.close(); // those the broker has not read yet wait for room in its request memory
            }
            CompletableFuture.allOf(floods.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            assertThat(broker.process().isAlive()).isTrue();
            assertThat(broker.answersApiVersions()).isTrue();
            assertThat(broker.output()).doesNotContain("OutOfMemoryError");
        } finally {
            attacking.set(false);
            attackers.shutdownNow();
        }
    }

    /**
     * Sends frames that claim {@code claimed} bytes and then sends them (garbage, so each is refused once read), over
     * and over on new connections, until {@code attacking} is cleared.
     */
    private static void flood(int port, int claimed, AtomicBoolean attacking) {
        byte[] chunk = new byte[64 * 1024];
        while (attacking.get()) {
            try (Socket socket = new Socket("127.0.0.1", port)) {
                // A connection opened just as the attack stops escapes the closing of OPEN: it gives up waiting for
                // the broker's answer after longer than the broker waits for request memory (10 s).
                socket.setSoTimeout(15_000);
                OPEN.add(socket);
                OutputStream out = socket.getOutputStream();
                out.write(ByteBuffer.allocate(4).putInt(claimed).array());
                for (long sent = 0; sent < claimed && attacking.get(); sent += chunk.length) {
                    out.write(chunk, 0, (int) Math.min(chunk.length, claimed - sent));
                }
                out.flush();
                socket.getInputStream().read();
                OPEN.remove(socket);
            } catch (IOException closedByTheBroker) {
                // expected: the broker closes every one of these connections (or it timed out); open the next
            }
        }
    }

    private static KafkaProducer<String, String> producer(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    private static KafkaConsumer<String, String> consumer(String bootstrap) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
    }
}

package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.orderflow.frames.WireClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.quota.ClientQuotaFilterComponent;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client quotas set through the Admin API and enforced on real clients over TCP: a producer held to its byte
 * rate, a consumer to its, a client over its request-time share muted for its throttle time, and the quotas
 * themselves stored durably and refused as Kafka refuses them. Rates are measured from the client's side, the way
 * a user would check them.
 */
class ClientQuotaThrottlingTest {
    private static final int RECORD_BYTES = 1024;

    @TempDir
    Path dir;

    private TestBroker broker;

    @AfterEach
    void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private static void setQuota(Admin admin, String entityType, String name, String key, double value)
            throws Exception {
        admin.alterClientQuotas(List.of(new ClientQuotaAlteration(
                        new ClientQuotaEntity(Map.of(entityType, name)),
                        List.of(new ClientQuotaAlteration.Op(key, value)))))
                .all()
                .get(30, TimeUnit.SECONDS);
    }

    private static double metric(Map<org.apache.kafka.common.MetricName, ? extends Metric> metrics, String name) {
        return metrics.entrySet().stream()
                .filter(e -> e.getKey().name().equals(name)
                        && e.getKey().tags().containsKey("client-id")
                        && !e.getKey().tags().containsKey("node-id"))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .filter(v -> !Double.isNaN(v))
                .max()
                .orElse(0);
    }

    /** What the client sent to the broker itself, in bytes: the requests the quota charges (and their size prefix). */
    private static double sentToBroker(KafkaProducer<?, ?> producer) {
        return producer.metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals("outgoing-byte-total")
                        && e.getKey().group().equals("producer-node-metrics")
                        && e.getKey().tags().get("node-id").equals("node-1"))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .findFirst()
                .orElseThrow();
    }

    /**
     * 200 KiB/s with two 1 s windows: a new producer may send one window's worth at once (the rate assumes a quiet
     * window before it), is then held until that second is over, and from then on gets its quota per second. Measured
     * from the moment it has had two seconds' worth acknowledged to the moment it has had eight, it gets 200 KiB/s
     * within 10 %, counted as the quota counts: the request bytes the producer sent to the broker (kafka-clients'
     * {@code outgoing-byte-total} of the broker's node).
     */
    @Test
    void aProducerIsHeldToItsByteRateWithinTenPercent() throws Exception {
        broker = TestBroker.start(dir, Map.of("quota.window.num", "2", "quota.window.size.seconds", "1"));
        broker.createTopic("metered", 1, Map.of());
        double rate = 200 * 1024;
        try (Admin admin = broker.admin()) {
            setQuota(admin, "client-id", "metered-producer", "producer_byte_rate", rate);
        }
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "metered-producer");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "2");
        p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, String.valueOf(256 * 1024));
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, String.valueOf(16 * 1024));
        AtomicLong acked = new AtomicLong();
        AtomicBoolean running = new AtomicBoolean(true);
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            Thread sender = Thread.ofPlatform().start(() -> {
                byte[] value = new byte[RECORD_BYTES];
                while (running.get()) {
                    producer.send(new ProducerRecord<>("metered", value), (m, e) -> {
                        if (e == null) {
                            acked.addAndGet(RECORD_BYTES);
                        }
                    });
                }
            });
            try {
                await().atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(2))
                        .until(() -> acked.get() >= 2 * rate);
                long startNanos = System.nanoTime();
                double startSent = sentToBroker(producer);
                await().atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(2))
                        .until(() -> acked.get() >= 8 * rate);
                double seconds = (System.nanoTime() - startNanos) / 1e9;
                double measured = (sentToBroker(producer) - startSent) / seconds;

                assertThat(measured)
                        .as("request bytes per second sent to the broker")
                        .isBetween(rate * 0.9, rate * 1.1);
                assertThat(metric(producer.metrics(), "produce-throttle-time-avg"))
                        .isPositive();
            } finally {
                running.set(false);
                sender.join(30_000);
            }
        }
    }

    /**
     * A consumer with {@code consumer_byte_rate} reads every record, in order and once, while its fetches are
     * throttled: the refused answers come back empty with {@code throttle_time_ms}, and the client asks again.
     */
    @Test
    void aThrottledConsumerReadsEveryRecordOnceAtItsByteRate() throws Exception {
        broker = TestBroker.start(dir, Map.of("quota.window.num", "2", "quota.window.size.seconds", "1"));
        broker.createTopic("metered", 1, Map.of());
        int records = 3_000;
        try (KafkaProducer<String, String> producer = broker.producer()) {
            String value = "v".repeat(RECORD_BYTES);
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>("metered", 0, "k" + i, value));
            }
            producer.flush();
        }
        double rate = 512 * 1024;
        try (Admin admin = broker.admin()) {
            setQuota(admin, "client-id", "metered-consumer", "consumer_byte_rate", rate);
        }
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        c.put(ConsumerConfig.CLIENT_ID_CONFIG, "metered-consumer");
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<Long> offsets = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(List.of(new TopicPartition("metered", 0)));
            long start = System.nanoTime();
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                    offsets.add(r.offset());
                }
                return offsets.size() >= records;
            });
            double seconds = (System.nanoTime() - start) / 1e9;

            assertThat(offsets).hasSize(records);
            for (int i = 0; i < records; i++) {
                assertThat(offsets.get(i)).isEqualTo(i);
            }
            assertThat(metric(consumer.metrics(), "fetch-throttle-time-max")).isPositive();
            // About 3 MiB at 512 KiB/s after a first window at full speed: at least 4 s, where it takes well under
            // one second unthrottled.
            assertThat(seconds).isGreaterThan(4.0);
        }
    }

    /**
     * A client over its {@code request_percentage} gets {@code throttle_time_ms} (at most one quota window) and is
     * not read for that long: its next request, sent at once, is answered no sooner than the throttle allows.
     */
    @Test
    void aClientOverItsRequestShareIsMutedForItsThrottleTime() throws Exception {
        broker = TestBroker.start(dir);
        broker.createTopic("metered", 1, Map.of());
        try (Admin admin = broker.admin()) {
            setQuota(admin, "client-id", "wire-client", "request_percentage", 0.01);
        }
        try (WireClient client = WireClient.connect(broker.broker().port())) {
            MetadataRequest metadata = new MetadataRequest(
                    new MetadataRequestData()
                            .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("metered"))),
                    (short) 12);
            int throttle = 0;
            long sentNanos = 0;
            for (int i = 0; throttle == 0; i++) {
                assertThat(i).as("requests before the first throttle").isLessThan(10_000);
                sentNanos = System.nanoTime();
                RequestHeader header = client.send(metadata, i);
                throttle = ((MetadataResponse) client.receive(header)).throttleTimeMs();
            }
            RequestHeader next = client.send(metadata, 20_000);
            MetadataResponse answer = (MetadataResponse) client.receive(next);
            long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentNanos);

            assertThat(throttle).isBetween(1, 1_000);
            assertThat(waitedMs).isGreaterThanOrEqualTo(throttle);
            assertThat(answer.topicMetadata()).hasSize(1);
        }
    }

    @Test
    void quotasAreDescribedKeptAcrossARestartAndRefusedAsKafkaRefusesThem() throws Exception {
        broker = TestBroker.start(dir);
        ClientQuotaEntity billing = new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, "billing"));
        ClientQuotaEntity bad = new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, "bad"));
        try (Admin admin = broker.admin()) {
            var result = admin.alterClientQuotas(List.of(
                    new ClientQuotaAlteration(
                            billing,
                            List.of(
                                    new ClientQuotaAlteration.Op("producer_byte_rate", 1_048_576.0),
                                    new ClientQuotaAlteration.Op("request_percentage", 25.0))),
                    new ClientQuotaAlteration(bad, List.of(new ClientQuotaAlteration.Op("producer_byte_rate", -1.0)))));
            result.values().get(billing).get(30, TimeUnit.SECONDS);
            assertThatThrownBy(() -> result.values().get(bad).get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(InvalidRequestException.class)
                    .hasMessageContaining("Quota producer_byte_rate must be greater than 0");
            admin.alterClientQuotas(
                            List.of(new ClientQuotaAlteration(
                                    billing, List.of(new ClientQuotaAlteration.Op("producer_byte_rate", 1.0)))),
                            new org.apache.kafka.clients.admin.AlterClientQuotasOptions().validateOnly(true))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        broker.restart();
        try (Admin admin = broker.admin()) {
            var described = admin.describeClientQuotas(ClientQuotaFilter.containsOnly(
                            List.of(ClientQuotaFilterComponent.ofEntity(ClientQuotaEntity.CLIENT_ID, "billing"))))
                    .entities()
                    .get(30, TimeUnit.SECONDS);
            assertThat(described)
                    .isEqualTo(Map.of(billing, Map.of("producer_byte_rate", 1_048_576.0, "request_percentage", 25.0)));
            assertThat(admin.describeClientQuotas(ClientQuotaFilter.all())
                            .entities()
                            .get(30, TimeUnit.SECONDS))
                    .containsOnlyKeys(billing);
        }
    }
}

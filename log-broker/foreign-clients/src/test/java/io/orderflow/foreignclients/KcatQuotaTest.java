package io.orderflow.foreignclients;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * librdkafka (through kcat) under client quotas set by kafka-clients 2.8's Admin: a producer and a consumer with a
 * byte-rate quota on their {@code client.id} are throttled (kcat prints each throttle time it is given), take the
 * time their quota says, and lose nothing. The broker runs two 1 s quota windows, so a new client's first burst is
 * one second's worth.
 */
class KcatQuotaTest {
    private static final int RATE = 64 * 1024;
    private static final int RECORDS = 256;
    private static final Pattern THROTTLED = Pattern.compile("throttled request for (\\d+)ms");

    @TempDir
    Path dir;

    @Test
    void aProducerAndAConsumerAreThrottledToTheirByteRatesAndLoseNothing() throws Exception {
        Kcat kcat = Kcat.fromPath();
        try (PackagedBroker broker = PackagedBroker.startWith(
                dir.resolve("broker"), List.of("quota.window.num=2", "quota.window.size.seconds=1"))) {
            try (Admin admin = Admin.create(Map.of(
                    AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                    broker.connection().bootstrap()))) {
                admin.alterClientQuotas(List.of(
                                quota("kcat-metered-producer", "producer_byte_rate"),
                                quota("kcat-metered-consumer", "consumer_byte_rate")))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }
            List<String> lines = new ArrayList<>();
            String value = "v".repeat(1024);
            for (int i = 0; i < RECORDS; i++) {
                lines.add("k" + i + " " + value);
            }

            long start = System.nanoTime();
            ClientProcess producer = ClientProcess.startProducer(
                            "kcat-metered-producer",
                            List.of(
                                    "kcat",
                                    "-b",
                                    broker.connection().bootstrap(),
                                    "-P",
                                    "-t",
                                    "metered",
                                    "-K",
                                    " ",
                                    "-X",
                                    "client.id=kcat-metered-producer",
                                    "-X",
                                    "acks=all",
                                    "-X",
                                    "enable.idempotence=true"),
                            dir,
                            Map.of(),
                            lines)
                    .awaitSuccess(Duration.ofMinutes(2));
            double produceSeconds = (System.nanoTime() - start) / 1e9;

            start = System.nanoTime();
            ClientProcess reader = ClientProcess.start(
                            "kcat-metered-consumer",
                            List.of(
                                    "kcat",
                                    "-b",
                                    broker.connection().bootstrap(),
                                    "-C",
                                    "-t",
                                    "metered",
                                    "-o",
                                    "beginning",
                                    "-e",
                                    "-u",
                                    "-f",
                                    "%p %o %k %s\\n",
                                    "-X",
                                    "client.id=kcat-metered-consumer"),
                            dir,
                            Map.of(),
                            "")
                    .awaitSuccess(Duration.ofMinutes(2));
            double consumeSeconds = (System.nanoTime() - start) / 1e9;

            assertThat(reader.records()).as(reader::transcript).hasSize(RECORDS);
            assertThat(reader.records().stream().map(ConsumedRecord::key))
                    .as(reader::transcript)
                    .containsExactlyInAnyOrderElementsOf(
                            lines.stream().map(l -> l.split(" ")[0]).toList());
            for (int partition = 0; partition < PackagedBroker.PARTITIONS; partition++) {
                int p = partition;
                assertThat(reader.records().stream()
                                .filter(r -> r.partition() == p)
                                .map(r -> Integer.parseInt(r.key().substring(1))))
                        .as("keys of partition %d in the order they were produced", p)
                        .isSorted();
            }
            assertThat(producer.stderrLines()).as(producer::transcript).anyMatch(KcatQuotaTest::throttled);
            assertThat(reader.stderrLines()).as(reader::transcript).anyMatch(KcatQuotaTest::throttled);
            // 256 KiB at 64 KiB/s after a first second's worth at full speed: about 3 s each, where either takes well
            // under a second unthrottled.
            assertThat(produceSeconds).isGreaterThan(2.0);
            assertThat(consumeSeconds).isGreaterThan(2.0);
        }
    }

    /** kcat's line for a throttle time it was given: "% Broker host:port (1) throttled request for 1024ms". */
    private static boolean throttled(String line) {
        Matcher m = THROTTLED.matcher(line);
        return m.find() && Integer.parseInt(m.group(1)) > 0;
    }

    private static ClientQuotaAlteration quota(String clientId, String key) {
        return new ClientQuotaAlteration(
                new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, clientId)),
                List.of(new ClientQuotaAlteration.Op(key, (double) RATE)));
    }
}

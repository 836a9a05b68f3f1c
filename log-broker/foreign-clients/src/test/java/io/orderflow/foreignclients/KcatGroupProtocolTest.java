package io.orderflow.foreignclients;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * librdkafka and the KIP-848 consumer group protocol: {@code group.protocol=consumer} came with librdkafka 2.4.0 (early
 * access) and is generally available from 2.12.0. The librdkafka that Debian bookworm's kcat runs on, 2.0.2, predates
 * both: it does not know the setting, so a kcat group member given it exits before it joins anything, and librdkafka
 * joins groups with the classic protocol only (JoinGroup, SyncGroup, Heartbeat), as it does in {@link KcatTest} and
 * {@link KcatSaslSslTest} against our broker, which serves both protocols.
 */
class KcatGroupProtocolTest {
    @TempDir
    Path dir;

    @Test
    void librdkafkaBefore24RefusesGroupProtocolConsumerAndJoinsWithTheClassicProtocol() throws Exception {
        Kcat kcat = Kcat.fromPath();
        Assumptions.assumeFalse(
                kcat.librdkafkaAtLeast(2, 4),
                kcat.name() + " may know group.protocol=consumer (librdkafka 2.4 and later); this test proves that"
                        + " older ones refuse it. Prove instead that it consumes in a group with it.");

        assertThat(kcat.configurationProperties(dir))
                .as("the configuration properties of librdkafka %s (kcat -X list)", kcat.librdkafkaVersion())
                .contains("group.id", "group.instance.id", "group.protocol.type", "partition.assignment.strategy")
                .doesNotContain("group.protocol", "group.remote.assignor");

        try (PackagedBroker broker = PackagedBroker.start(dir.resolve("broker"))) {
            List<String> lines = ClientScenario.lines(0, 20);
            kcat.produce(broker.connection(), "orders", lines, dir);

            ClientProcess refused = kcat.groupMember(
                            broker.connection(),
                            "orders",
                            "kip-848",
                            "group-protocol-consumer",
                            dir,
                            List.of("group.protocol=consumer"))
                    .awaitFailure(Duration.ofSeconds(30));
            // kcat prints librdkafka's rd_kafka_conf_set error and exits 1 before it connects.
            assertThat(refused.stderrLines())
                    .as(refused::transcript)
                    .anySatisfy(line ->
                            assertThat(line).contains("ERROR: No such configuration property: \"group.protocol\""));
            assertThat(refused.records()).as(refused::transcript).isEmpty();

            // Without the setting, the same member joins the same group with the classic protocol and reads it all.
            try (ClientProcess classic = kcat.groupMember(broker.connection(), "orders", "kip-848", "classic", dir)) {
                await("the classic member reading all " + lines.size() + " records")
                        .atMost(Duration.ofSeconds(60))
                        .untilAsserted(() -> assertThat(classic.records())
                                .as(classic::transcript)
                                .hasSize(lines.size()));
                Set<Integer> every =
                        IntStream.range(0, PackagedBroker.PARTITIONS).boxed().collect(Collectors.toSet());
                assertThat(kcat.assignment(classic)).as(classic::transcript).contains(every);
                classic.stop();
            }
        }
    }
}

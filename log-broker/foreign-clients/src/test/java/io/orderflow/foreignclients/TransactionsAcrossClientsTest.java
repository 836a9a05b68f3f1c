package io.orderflow.foreignclients;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Transactions between client families nobody here wrote: KafkaJS's transactional producer commits and aborts
 * transactions (at KafkaJS's own, older versions of InitProducerId, AddPartitionsToTxn, EndTxn and Produce), and two
 * readers that read committed data by default, librdkafka (kcat, {@code isolation.level=read_committed}) and KafkaJS's
 * consumer ({@code readUncommitted: false}), must each read exactly the committed records, none of the aborted ones.
 */
class TransactionsAcrossClientsTest {
    private static final String TOPIC = "tx-across";

    @TempDir
    Path dir;

    @Test
    void committedRecordsAreReadAndAbortedOnesAreNotByLibrdkafkaAndKafkaJs() throws Exception {
        KafkaJs kafkaJs = KafkaJs.installed();
        Kcat kcat = Kcat.fromPath();
        List<String> lines = new ArrayList<>();
        List<String> committed = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            boolean commit = i % 3 != 1;
            String value = (commit ? "committed-" : "aborted-") + i;
            lines.add((commit ? "commit" : "abort") + " key-" + (i % 5) + " " + value);
            if (commit) {
                committed.add(value);
            }
        }
        try (PackagedBroker broker = PackagedBroker.start(dir.resolve("broker"))) {
            kafkaJs.transact(broker.connection(), TOPIC, lines, dir);

            ClientProcess librdkafka =
                    kcat.readAll(broker.connection(), TOPIC, dir).awaitSuccess(Duration.ofSeconds(60));
            assertThat(librdkafka.records())
                    .as(librdkafka::transcript)
                    .extracting(ConsumedRecord::value)
                    .containsExactlyInAnyOrderElementsOf(committed);

            ClientProcess member = kafkaJs.groupMember(broker.connection(), TOPIC, "tx-readers", "reader", dir);
            try {
                Awaitility.await()
                        .atMost(Duration.ofSeconds(60))
                        .until(() -> member.records().size() >= committed.size());
                assertThat(member.records())
                        .as(member::transcript)
                        .extracting(ConsumedRecord::value)
                        .containsExactlyInAnyOrderElementsOf(committed);
            } finally {
                member.stop();
            }
        }
    }
}

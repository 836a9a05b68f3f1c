package io.orderflow.foreignclients;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** librdkafka through kcat: the scenario, and kcat's own way to read a topic from the beginning without a group. */
class KcatTest {
    @TempDir
    Path dir;

    @Test
    void producesConsumesInAGroupOfTwoCommitsAndReplays() throws Exception {
        new ClientScenario(Kcat.fromPath(), dir).run();
    }

    @Test
    void readsATopicFromTheBeginningToItsEndWithoutAGroup() throws Exception {
        Kcat kcat = Kcat.fromPath();
        try (PackagedBroker broker = PackagedBroker.start(dir.resolve("broker"))) {
            kcat.produce(broker.bootstrap(), "orders", ClientScenario.lines(0, 60), dir);

            ClientProcess reader =
                    kcat.readAll(broker.bootstrap(), "orders", dir).awaitSuccess(Duration.ofSeconds(60));

            assertThat(reader.records()).as(reader::transcript).hasSize(60);
            ClientScenario.assertKeysKeepTheirPartitionAndOrder(reader.records(), reader::transcript);
            assertThat(reader.stderrLines())
                    .as(reader::transcript)
                    .noneMatch(l -> l.contains("ERROR") || l.contains("Disconnected"));
        }
    }
}

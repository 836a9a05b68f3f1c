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
            readsToTheEnd(kcat, broker, dir);
        }
    }

    /** 60 records produced, then {@code kcat -C -o beginning -e} reads exactly those and exits, without an error. */
    static void readsToTheEnd(Kcat kcat, PackagedBroker broker, Path dir) {
        kcat.produce(broker.connection(), "orders", ClientScenario.lines(0, 60), dir);

        ClientProcess reader = kcat.readAll(broker.connection(), "orders", dir).awaitSuccess(Duration.ofSeconds(60));

        assertThat(reader.records()).as(reader::transcript).hasSize(60);
        ClientScenario.assertKeysKeepTheirPartitionAndOrder(reader.records(), reader::transcript);
        assertThat(reader.stderrLines())
                .as(reader::transcript)
                .noneMatch(l -> l.contains("ERROR") || l.contains("Disconnected"));
    }
}

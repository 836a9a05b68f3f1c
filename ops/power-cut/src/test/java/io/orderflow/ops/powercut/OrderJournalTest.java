package io.orderflow.ops.powercut;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OrderJournalTest {

    @TempDir
    Path directory;

    @Test
    void readsBackWhatWasWrittenAndReplacesAnOlderJournalWhole() throws Exception {
        OrderJournal.Run run = new OrderJournal.Run("drill-", "sku-1", 1_000, 1_765_000_000_000L);
        OrderJournal journal = new OrderJournal(
                run,
                List.of(
                        new OrderJournal.Order(
                                "drill-a", "sku-1", "o-1", List.of("CREATED", "CONFIRMED"), List.of("PAID")),
                        new OrderJournal.Order("drill-b", "sku-sold-out", null, List.of(), List.of("CREATED"))));
        Path file = directory.resolve("journal.json");
        new OrderJournal(run, List.of()).write(file);

        journal.write(file);

        assertThat(OrderJournal.read(file)).isEqualTo(journal);
        assertThat(OrderJournal.read(file).placed())
                .extracting(OrderJournal.Order::orderId)
                .containsExactly("o-1");
        assertThat(OrderJournal.read(file).orders().getFirst().lastAcknowledged())
                .isEqualTo("CONFIRMED");
        assertThat(OrderJournal.read(file).unanswered()).isEqualTo(2);
        try (var files = Files.list(directory)) {
            assertThat(files).containsExactly(file);
        }
    }
}

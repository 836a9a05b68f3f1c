package io.orderflow.ops.bench.orders;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OrdersTableTest {

    @Test
    void printsMediansWithRangeRatioAndTargetsForEachBroker() {
        OrdersTable table = OrdersTable.forRate(2000);
        table.add(run(OrdersTable.OURS, 1980, 40));
        table.add(run(OrdersTable.OURS, 2000, 60));
        table.add(run(OrdersTable.OURS, 1500, 120));
        table.add(run(OrdersTable.KAFKA, 2000, 20));
        table.add(run(OrdersTable.KAFKA, 2000, 30));
        table.add(run(OrdersTable.KAFKA, 2000, 25));

        String printed = print(table, 3);

        assertThat(printed)
                .contains(
                        "| accepted (201) (orders/s) | 2,000 | 1,980 (1,500-2,000) | 0.99 | >= 2,000 | **no** | yes |");
        assertThat(printed)
                .contains(
                        "| commit-to-readable p99 (from occurredAt) (ms) | 25 (20-30) | 60 (40-120) | 2.40 | < 100 | yes"
                                + " | yes |");
    }

    @Test
    void aFailedStartShowsAsFewerRunsAndIsListed() {
        OrdersTable table = OrdersTable.forRate(2000);
        table.add(run(OrdersTable.KAFKA, 2000, 20));
        table.fail(OrdersTable.OURS, 1, "IOException: order-service exited with code 1 during start-up");

        String printed = print(table, 2);

        assertThat(printed)
                .contains("| accepted (201) (orders/s) | 2,000 [1 of 2 runs] | n/a |  | >= 2,000 |  | yes |");
        assertThat(printed).contains("- orderflow log-broker, run 1: IOException: order-service exited");
    }

    private static RunResult run(String broker, double accepted, double readableP99) {
        return new RunResult(
                broker,
                2000,
                accepted,
                2000 * 60 - accepted * 60,
                3,
                20,
                10,
                readableP99,
                200,
                2,
                30,
                0,
                40,
                12,
                50,
                0,
                300,
                Map.of("order-service", 1.0));
    }

    private static String print(OrdersTable table, int runs) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        table.print(new PrintStream(out, true, StandardCharsets.UTF_8), runs);
        return out.toString(StandardCharsets.UTF_8);
    }
}

package io.orderflow.ops.bench.platform;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.ops.load.LatencySamples;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PlatformTableTest {

    /**
     * A measurement: every part's delay growing by {@code growth} ms/s (and each group's lag by as many records/s),
     * everything done at {@code p99Ms} (processed by all three, confirmed, mailed), drained after the window.
     */
    private static RunFigures figures(String broker, int offered, double accepted, double growth, long p99Ms) {
        return figures(broker, offered, accepted, growth, p99Ms, 500);
    }

    private static RunFigures figures(
            String broker, int offered, double accepted, double growth, long p99Ms, double drainMillis) {
        Map<String, DelayTrend> delay = new LinkedHashMap<>();
        OrderTimings.PARTS.forEach(part -> delay.put(part.name(), new DelayTrend(growth, 100)));
        return figures(broker, offered, accepted, delay, p99Ms, drainMillis);
    }

    private static RunFigures figures(
            String broker,
            int offered,
            double accepted,
            Map<String, DelayTrend> delay,
            long p99Ms,
            double drainMillis) {
        return figures(broker, offered, accepted, delay, p99Ms, drainMillis, -12.5);
    }

    private static RunFigures figures(
            String broker,
            int offered,
            double accepted,
            Map<String, DelayTrend> delay,
            long p99Ms,
            double drainMillis,
            double pendingMailsGrowth) {
        Map<String, RunFigures.Backlog> lag = new LinkedHashMap<>();
        PlatformBenchmark.GROUPS.keySet().forEach(group -> lag.put(group, new RunFigures.Backlog(100, 50, 1.5, 60)));
        LatencySamples samples = new LatencySamples();
        for (int i = 1; i <= 100; i++) {
            samples.add(i * p99Ms * 1000 / 99);
        }
        Map<String, LatencySamples.Summary> processed = new LinkedHashMap<>();
        PlatformBenchmark.CONSUMERS.forEach(consumer -> processed.put(consumer, samples.summary()));
        processed.put(OrderTimings.ALL, samples.summary());
        processed.put(OrderTimings.CONFIRMED, samples.summary());
        processed.put(OrderTimings.MAILED, samples.summary());
        Map<String, Double> cores = Map.of("broker", 0.1, "order-service", 0.3, "machine busy", 0.5);
        Map<String, Double> perOrder = Map.of(
                "broker", 0.2, "order-service", 0.6, "inventory-outbox-relay", 0.05, "smtp", 0.3, "machine busy", 1.0);
        return new RunFigures(
                broker,
                offered,
                accepted,
                10,
                50,
                lag,
                new RunFigures.Mails(new RunFigures.Backlog(4_000, 2_000, pendingMailsGrowth, 12), 290, 0, 0),
                processed,
                delay,
                stages(samples),
                new RunFigures.Missing(0, 0, 0),
                drainMillis,
                cores,
                batches(),
                Map.of("outbox-relay (orders)", new ProduceRequests(150, 2_000)),
                perOrder,
                new RunFigures.BrokerMemory(300, 350));
    }

    private static Map<String, ConsumerBatches> batches() {
        Map<String, ConsumerBatches> batches = new LinkedHashMap<>();
        List.of("inventory-service", "notification-service", "analytics-service", "order-service")
                .forEach(consumer -> batches.put(consumer, new ConsumerBatches(100, 2_000, 3, 120, 2_000)));
        return batches;
    }

    private static Map<String, LatencySamples.Summary> stages(LatencySamples samples) {
        Map<String, LatencySamples.Summary> stages = new LinkedHashMap<>();
        OrderTimings.STAGES.forEach(stage -> stages.put(stage, samples.summary()));
        return stages;
    }

    private static String print(PlatformTable table) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        table.print(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void theHighestRateSustainedIsTheTopOfTheLadderSustainedInEveryRunFromTheBottom() {
        PlatformTable table = new PlatformTable(List.of(300, 450, 600), List.of("ours", "kafka"), 2);
        for (int run = 0; run < 2; run++) {
            table.add(figures("ours", 300, 300, 0, 900));
            table.add(figures("kafka", 300, 300, 0, 1000));
            table.add(figures("ours", 450, 449, 0, 1200));
            table.add(figures("kafka", 600, 599, 0, 1500));
        }
        table.add(figures("kafka", 450, 450, 0, 1300));
        table.add(figures("kafka", 450, 400, 0, 1300)); // accepted under 95% of the offered rate
        table.add(figures("ours", 600, 598, 0, 1500));
        table.add(figures("ours", 600, 598, 40, 9000)); // a group's delay grew: not kept up

        assertThat(table.highestSustained("ours")).contains(450);
        assertThat(table.highestSustained("kafka"))
                .as("600 was sustained above 450, which was not: noise, not capacity")
                .contains(300);
        assertThat(print(table))
                .contains("| sustained: everything kept up, >= 95% accepted | 1 of 2 runs | 2 of 2 runs | |")
                .contains("- Apache Kafka 4.4.0: 300/s (median accepted 300/s); also sustained [600] above a rate it"
                        + " did not: noise, measure with more --runs")
                .contains("- orderflow log-broker: 450/s (median accepted 449/s)")
                .contains("- throughput, ours >= Kafka: met (450/s against 300/s)")
                .contains("at 300/s (the highest rate both sustained): met (900 ms against 1,000 ms)")
                .contains("- 2,000 orders/s with everything keeping up, on our broker: **not met** (450/s"
                        + " sustained; Kafka: 300/s)");
    }

    @Test
    void aGroupWhoseDelayGrowsOrThatDoesNotDrainDidNotKeepUp() {
        assertThat(figures("ours", 300, 300, 0, 900).sustained()).isTrue();
        assertThat(figures("ours", 300, 300, 19, 900).sustained()).isTrue();
        assertThat(figures("ours", 300, 300, 20, 900).keptUp())
                .as("delay growing by 20 ms/s: lag growing by 2% of the rate")
                .isFalse();
        assertThat(figures("ours", 300, 300, 0, 900, Double.NaN).keptUp())
                .as("not every order processed within the drain")
                .isFalse();
        assertThat(figures("ours", 300, 284, 0, 900).sustained())
                .as("kept up, but accepted under 95% of the offered rate")
                .isFalse();
    }

    @Test
    void inventorysRelayTheSagaConsumerAndTheMailsMustKeepUpAsTheGroupsDo() {
        for (OrderTimings.Part behind : OrderTimings.PARTS) {
            Map<String, DelayTrend> delay = new LinkedHashMap<>();
            OrderTimings.PARTS.forEach(part -> delay.put(part.name(), new DelayTrend(part == behind ? 25 : 0, 100)));

            assertThat(figures("ours", 300, 300, delay, 900, 500).sustained())
                    .as(behind.name() + "'s delay growing by 25 ms/s")
                    .isFalse();
        }
        Map<String, DelayTrend> tooFewMails = new LinkedHashMap<>();
        OrderTimings.PARTS.forEach(part -> tooFewMails.put(
                part.name(),
                part.name().equals(OrderTimings.MAILS) ? new DelayTrend(Double.NaN, 3) : new DelayTrend(0, 100)));
        assertThat(figures("ours", 300, 300, tooFewMails, 900, 500).keptUp())
                .as("3 mails in the window: nothing tells that the mails kept up")
                .isFalse();
        Map<String, DelayTrend> steady = new LinkedHashMap<>();
        OrderTimings.PARTS.forEach(part -> steady.put(part.name(), new DelayTrend(0, 100)));
        assertThat(figures("ours", 300, 300, steady, 900, 500, 5.9).keptUp())
                .as("pending mails growing by 5.9/s at 300 orders/s: below 2% of the rate")
                .isTrue();
        assertThat(figures("ours", 300, 300, steady, 900, 500, 6.1).keptUp())
                .as("pending mails growing by 6.1/s at 300 orders/s: a sender that stalls and bursts in the drain")
                .isFalse();
    }

    @Test
    void eachRateHasAColumnPerBrokerWithTheRatioOursOverKafka() {
        PlatformTable table = new PlatformTable(List.of(300), List.of("ours", "kafka"), 1);
        table.add(figures("ours", 300, 300, 0, 900));
        table.add(figures("kafka", 300, 300, 0, 1800));

        assertThat(print(table))
                .contains("Offered 300 orders/s")
                .contains("| measure | Apache Kafka 4.4.0 | orderflow log-broker | ours / Kafka |")
                .contains(
                        "| accepted -> processed by all three, p50 / p99 / max (ms) | 909 / 1,800 / 1,818 | 455 / 900 / 909"
                                + " | 0.50 / 0.50 / 0.50 |")
                .contains("| accepted -> confirmed, p50 / p99 / max (ms) | 909 / 1,800 / 1,818 |")
                .contains("| accepted -> mail accepted by SMTP, p50 / p99 / max (ms) | 909 / 1,800 / 1,818 |")
                .contains(
                        "| processed by notification-service -> mail accepted, p50 / p99 (ms) | 909 / 1,800 | 455 / 900"
                                + " | 0.50 / 0.50 |")
                .contains("| delay growth, accepted -> mail accepted by SMTP (ms/s; kept up below 20) | 0 | 0 |  |")
                .contains("| lag growth, order-service on inventory (records/s) | 1.50 | 1.50 |  |")
                .contains(
                        "| pending mails, growth / max (bounded below 2% of the rate a second) (mails/s / mails) | -12.5 / 4,000 | -12.5 / 4,000 |  |")
                .contains(
                        "| order-service batches: records / time each (records / ms) | 20 / 30 | 20 / 30 | 1.00 / 1.00 |")
                .contains("| CPU per accepted order, inventory-outbox-relay (ms) | 0.05 | 0.05 | 1.00 |")
                .contains("| CPU per accepted order, smtp (ms) | 0.30 | 0.30 | 1.00 |")
                .contains(
                        "- accepted -> confirmed p99 at 300/s, the saga's whole loop (no target): 900 ms against 1,800"
                                + " ms, ours / Kafka 0.50")
                .contains("| broker RSS, peak (MiB) | 350 | 350 | 1.00 |")
                .contains("| CPU per accepted order, whole machine (ms) | 1 | 1 | 1.00 |")
                .contains("both sustained the highest rate measured, so a higher one would tell them apart");
    }

    @Test
    void aFailedMeasurementIsListedAndOneBrokerAloneIsNotCompared() {
        PlatformTable table = new PlatformTable(List.of(300), List.of("ours"), 1);
        table.add(figures("ours", 300, 300, 0, 900));
        table.fail("ours", 450, 1, "inventory-service exited during the run");

        assertThat(table.highestSustained("kafka")).isEqualTo(Optional.empty());
        assertThat(print(table))
                .contains("- ours against Kafka: not compared (one broker measured)")
                .contains("- 2,000 orders/s with everything keeping up, on our broker: **not met** (300/s"
                        + " sustained; Kafka: none)")
                .contains("- orderflow log-broker at 450/s, run 1: inventory-service exited during the run")
                .contains("| accepted (orders/s) | n/a | 300 |  |");
    }

    @Test
    void whenEveryMeasurementOfOneBrokerFailedTheTableSaysSoRatherThanComparing() {
        PlatformTable table = new PlatformTable(List.of(300), List.of("ours", "kafka"), 1);
        table.add(figures("ours", 300, 300, 0, 900));
        table.fail("kafka", 300, 1, "java.io.IOException: No Apache Kafka jars");

        assertThat(print(table))
                .contains("- ours against Kafka: not compared (every measurement of Apache Kafka 4.4.0 failed)")
                .contains("- Apache Kafka 4.4.0 at 300/s, run 1: java.io.IOException: No Apache Kafka jars");
        assertThat(table.failures()).hasSize(1);
    }
}

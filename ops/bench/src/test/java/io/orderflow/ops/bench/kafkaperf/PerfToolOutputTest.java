package io.orderflow.ops.bench.kafkaperf;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The parsers against output captured from kafka-tools 4.4.0. */
class PerfToolOutputTest {

    @Test
    void producerSummaryIsTheLastLineWithPercentiles() {
        String stdout = """
                199144 records sent, 39812.9 records/sec (38.88 MB/sec), 622.3 ms avg latency, 1026.0 ms max latency.
                200000 records sent, 39729.837108 records/sec (38.80 MB/sec), 621.96 ms avg latency, 1026.00 ms max \
                latency, 588 ms 50th, 908 ms 95th, 968 ms 99th, 998 ms 99.9th.
                """;

        ProducerPerfResult result = ProducerPerfResult.parse(stdout).orElseThrow();

        assertThat(result.records()).isEqualTo(200_000);
        assertThat(result.recordsPerSecond()).isEqualTo(39729.837108);
        assertThat(result.mbPerSecond()).isEqualTo(38.80);
        assertThat(result.avgLatencyMs()).isEqualTo(621.96);
        assertThat(result.p99LatencyMs()).isEqualTo(968);
    }

    @Test
    void producerProgressLinesAloneAreNoResult() {
        assertThat(ProducerPerfResult.parse(
                        "139483 records sent, 27857.6 records/sec (27.20 MB/sec), 819.5 ms avg latency, 1243.0 ms max"
                                + " latency."))
                .isEmpty();
    }

    @Test
    void consumerResultIsTheLineUnderTheHeader() {
        String stdout = """
                start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, \
                rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec
                2026-11-29 08:53:27:091, 2026-11-29 08:53:29:768, 195.3125, 72.9595, 200000, 74710.4968, 1075, \
                1602, 121.9179, 124843.9451
                """;

        ConsumerPerfResult result = ConsumerPerfResult.parse(stdout).orElseThrow();

        assertThat(result.records()).isEqualTo(200_000);
        assertThat(result.mbPerSecond()).isEqualTo(72.9595);
        assertThat(result.recordsPerSecond()).isEqualTo(74710.4968);
        assertThat(result.rebalanceMs()).isEqualTo(1075);
        assertThat(result.fetchMbPerSecond()).isEqualTo(121.9179);
        assertThat(result.fetchRecordsPerSecond()).isEqualTo(124843.9451);
        assertThat(ConsumerPerfResult.exitedEarly(stdout)).isFalse();
    }

    @Test
    void consumerHeaderWithoutResultIsNoResult() {
        assertThat(ConsumerPerfResult.parse(
                        "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec\n"))
                .isEmpty();
    }

    @Test
    void endToEndLatencyReadsAverageAndPercentiles() {
        String stdout = """
                0\t138.643603
                1000\t8.771446
                2000\t0.634865
                Avg latency: 3.7279 ms
                Percentiles: 50th = 1, 99th = 23, 99.9th = 101
                """;

        EndToEndLatencyResult result = EndToEndLatencyResult.parse(stdout).orElseThrow();

        assertThat(result.avgMs()).isEqualTo(3.7279);
        assertThat(result.p50Ms()).isEqualTo(1);
        assertThat(result.p99Ms()).isEqualTo(23);
        assertThat(result.p999Ms()).isEqualTo(101);
    }

    @Test
    void endToEndLatencyWithoutSummaryIsNoResult() {
        assertThat(EndToEndLatencyResult.parse("0\t138.643603\n")).isEmpty();
    }
}

package io.orderflow.ops.bench.kafkaperf;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResultTableTest {
    private static final Measure PRODUCE = new Measure("produce 1 KiB", "MB/s", new Measure.AtLeastTimesKafka(1.0));
    private static final Measure RSS = new Measure("resident memory, idle", "MiB", new Measure.AtMost(150, "MiB"));

    @Test
    void medianOfOddAndEvenCounts() {
        assertThat(ResultTable.median(List.of(3.0, 1.0, 2.0))).isEqualTo(2.0);
        assertThat(ResultTable.median(List.of(4.0, 1.0, 2.0, 3.0))).isEqualTo(2.5);
    }

    @Test
    void printsMediansRatioAndWhetherTheTargetIsMet() {
        ResultTable table = new ResultTable("kafka", "ours", 3);
        for (double v : new double[] {100, 90, 110}) {
            table.record(PRODUCE, "kafka", v);
        }
        for (double v : new double[] {80, 95, 85}) {
            table.record(PRODUCE, "ours", v);
        }

        assertThat(print(table)).contains("| produce 1 KiB (MB/s) | 100 | 85 | 0.85 | >= 1.0x Kafka | **no** |");
    }

    @Test
    void anAbsoluteTargetIsJudgedOnOursAlone() {
        ResultTable table = new ResultTable("kafka", "ours", 1);
        table.record(RSS, "ours", 83.5);

        assertThat(print(table)).contains("| resident memory, idle (MiB) | n/a | 83.5 |  | <= 150 MiB | yes |");
    }

    @Test
    void missingRunsAndFailuresAreShown() {
        ResultTable table = new ResultTable("kafka", "ours", 3);
        table.record(PRODUCE, "kafka", 100);
        table.fail("ours", 1, "ConsumerPerformance failed, exit code 1: FIND_COORDINATOR");

        String printed = print(table);

        assertThat(printed).contains("| 100 (1 of 3 runs) | n/a |");
        assertThat(printed).contains("- ours, run 1: ConsumerPerformance failed, exit code 1: FIND_COORDINATOR");
    }

    private static String print(ResultTable table) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        table.print(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return bytes.toString(StandardCharsets.UTF_8);
    }
}

package io.orderflow.ops.bench.kafkaperf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class KafkaPerfOptionsTest {

    @Test
    void defaultsMeasureBothBrokersThreeTimesAtBothRecordSizes() {
        KafkaPerfOptions options = KafkaPerfOptions.parse();

        assertThat(options.records()).isEqualTo(1_000_000);
        assertThat(options.latencyRecords()).isEqualTo(10_000);
        assertThat(options.runs()).isEqualTo(3);
        assertThat(options.recordSizes()).containsExactly(1024, 100);
        assertThat(options.idleSettle()).isEqualTo(Duration.ofSeconds(5));
        assertThat(options.brokers()).containsExactly("kafka", "ours");
        assertThat(options.ourSettings()).isEmpty();
        assertThat(options.kafkaSettings()).isEmpty();
        assertThat(options.ourBroker()).isEqualTo(Path.of("log-broker/target"));
        assertThat(options.command()).isEqualTo("ops/bin/bench/kafka-perf");
    }

    @Test
    void optionsTakeTheirValueAfterASpaceOrAnEqualsSignAndCountsMayGroupThousands() {
        KafkaPerfOptions options = KafkaPerfOptions.parse(
                "--records",
                "3,000,000,000",
                "--latency-records=500",
                "--runs",
                "1",
                "--sizes",
                "100",
                "--brokers",
                "ours",
                "--our-settings",
                "log.flush.interval.messages=9223372036854775807",
                "--kafka-settings=log.flush.interval.messages=1",
                "--our-broker",
                "ops/bench/target/kafka-perf/ours");

        assertThat(options.records()).isEqualTo(3_000_000_000L);
        assertThat(options.latencyRecords()).isEqualTo(500);
        assertThat(options.runs()).isEqualTo(1);
        assertThat(options.recordSizes()).containsExactly(100);
        assertThat(options.brokers()).containsExactly("ours");
        assertThat(options.ourSettings()).containsExactly("log.flush.interval.messages=9223372036854775807");
        assertThat(options.kafkaSettings()).containsExactly("log.flush.interval.messages=1");
        assertThat(options.ourBroker()).isEqualTo(Path.of("ops/bench/target/kafka-perf/ours"));
        assertThat(options.command())
                .as("the command as typed: the script's own --our-broker left out")
                .isEqualTo("ops/bin/bench/kafka-perf --records 3,000,000,000 --latency-records 500 --runs 1 --sizes 100"
                        + " --brokers ours --our-settings log.flush.interval.messages=9223372036854775807"
                        + " --kafka-settings log.flush.interval.messages=1");
    }

    @Test
    void anUnknownOptionIsRefusedByNameWithTheUsage() {
        assertThatThrownBy(() -> KafkaPerfOptions.parse("--records", "10", "--recrods", "20"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[recrods]")
                .hasMessageContaining("Usage: ops/bin/bench/kafka-perf");
    }

    @Test
    void countsMustBePositiveWholeNumbers() {
        assertThatThrownBy(() -> KafkaPerfOptions.parse("--runs", "0"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--runs must be positive");
        assertThatThrownBy(() -> KafkaPerfOptions.parse("--records", "1e6"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--records takes a whole number, got '1e6'");
        assertThatThrownBy(() -> KafkaPerfOptions.parse("--runs", "3000000000"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--runs is out of range");
        assertThatThrownBy(() -> KafkaPerfOptions.parse("--idle-seconds", "-1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--idle-seconds must not be negative");
        assertThatThrownBy(() -> KafkaPerfOptions.parse("--sizes", "1024,-1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--sizes takes positive whole numbers");
    }

    @Test
    void onlyOurBrokerAndKafkaCanBeMeasuredAndSettingsArePairs() {
        assertThatThrownBy(() -> KafkaPerfOptions.parse("--brokers", "ours,redpanda"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got 'redpanda'");
        assertThatThrownBy(() -> KafkaPerfOptions.parse("--kafka-settings", "log.flush.interval.messages"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--kafka-settings takes KEY=VALUE pairs");
        assertThatThrownBy(() -> KafkaPerfOptions.parse("--records"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Option --records needs a value");
    }
}

package io.orderflow.ops.bench.kafkaperf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.orderflow.ops.bench.BenchCommandLine;
import io.orderflow.ops.bench.CommandLineChecks;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParameterException;

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
        assertThat(options.security()).isEqualTo(Security.PLAINTEXT);
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
    void securityIsPlaintextOrSaslSslAndShowsInTheCommand() {
        KafkaPerfOptions options = KafkaPerfOptions.parse("--runs", "1", "--security", "sasl_ssl");

        assertThat(options.security()).isEqualTo(Security.SASL_SSL);
        assertThat(options.security().option()).isEqualTo("sasl_ssl");
        assertThat(options.command()).isEqualTo("ops/bin/bench/kafka-perf --runs 1 --security sasl_ssl");
        assertThat(KafkaPerfOptions.parse("--security=SASL_SSL", "--security", "plaintext")
                        .security())
                .as("the last one wins, in either case")
                .isEqualTo(Security.PLAINTEXT);
        assertThatThrownBy(() -> KafkaPerfOptions.parse("--security", "ssl"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("Invalid value for option '--security': takes plaintext or sasl_ssl, got 'ssl'");
    }

    @Test
    void anUnknownOptionIsRefusedByName() {
        assertThatThrownBy(() -> KafkaPerfOptions.parse("--records", "10", "--recrods", "20"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("Unknown options: '--recrods', '20'");
    }

    @Test
    void countsMustBePositiveWholeNumbers() {
        assertThatThrownBy(() -> KafkaPerfOptions.parse("--runs", "0"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("option '--runs': '0' is not a whole number above 0");
        assertThatThrownBy(() -> KafkaPerfOptions.parse("--records", "1e6"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("option '--records': '1e6' is not a whole number");
        assertThatThrownBy(() -> KafkaPerfOptions.parse("--runs", "3000000000"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("option '--runs': '3000000000' is out of range");
        assertThatThrownBy(() -> KafkaPerfOptions.parse("--idle-seconds", "-1"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("option '--idle-seconds': '-1' is not a whole number, 0 or more");
        assertThatThrownBy(() -> KafkaPerfOptions.parse("--sizes", "1024,-1"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("option '--sizes' (BYTES): '-1' is not a whole number above 0");
    }

    @Test
    void onlyOurBrokerAndKafkaCanBeMeasuredAndSettingsArePairs() {
        assertThatThrownBy(() -> KafkaPerfOptions.parse("--brokers", "ours,redpanda"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("option '--brokers' (BROKER): takes ours and/or kafka, got 'redpanda'");
        assertThatThrownBy(() -> KafkaPerfOptions.parse("--kafka-settings", "log.flush.interval.messages"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("option '--kafka-settings' (K=V): takes KEY=VALUE pairs");
        assertThatThrownBy(() -> KafkaPerfOptions.parse("--records"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("Missing required parameter for option '--records'");
    }

    @Test
    void helpNamesEveryOptionWithItsDefaultAndAnUnknownOptionEndsTheCommandWithExitCode2() {
        assertThat(CommandLineChecks.helpNamesEveryOptionWithItsDefault(
                        BenchCommandLine.of(new KafkaPerfOptions(), () -> {
                            throw new AssertionError("the benchmark must not run");
                        })))
                .contains("Usage: ops/bin/bench/kafka-perf", "(default: 1000000)", "ours, kafka or both")
                .contains("--security=MODE", "(default: plaintext)")
                .contains("Where the script put what is measured", "--our-broker=DIR");
        assertThat(CommandLineChecks.refused(
                        BenchCommandLine.of(new KafkaPerfOptions(), () -> {
                            throw new AssertionError("the benchmark must not run");
                        }),
                        "--recrods",
                        "20"))
                .contains("Unknown options: '--recrods', '20'", "Possible solutions: --records");
    }
}

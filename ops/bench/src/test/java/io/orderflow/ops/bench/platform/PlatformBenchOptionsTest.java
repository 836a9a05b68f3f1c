package io.orderflow.ops.bench.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.orderflow.ops.bench.BenchCommandLine;
import io.orderflow.ops.bench.CommandLineChecks;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParameterException;

class PlatformBenchOptionsTest {

    @Test
    void defaultsMeasureBothBrokersOnALadderOfRates() {
        PlatformBenchOptions options = PlatformBenchOptions.parse();

        assertThat(options.rates()).containsExactly(600, 1200, 2000);
        assertThat(options.window().brokers()).containsExactly("ours", "kafka");
        assertThat(options.window().warmup()).isEqualTo(Duration.ofSeconds(120));
        assertThat(options.window().duration()).isEqualTo(Duration.ofSeconds(60));
        assertThat(options.drain()).isEqualTo(Duration.ofSeconds(120));
        assertThat(options.runs()).isEqualTo(1);
        assertThat(options.window().partitions()).isEqualTo(6);
        assertThat(options.ourSettings()).isEmpty();
        assertThat(options.kafkaSettings()).isEmpty();
        assertThat(options.command()).isEqualTo("ops/bin/bench/platform");
    }

    @Test
    void ratesAreMeasuredLowestFirstAndTheCommandShownLeavesOutTheScriptsPlumbing() {
        PlatformBenchOptions options = PlatformBenchOptions.parse(
                "--services",
                "ops/bench/target/x/services",
                "--kafka-lib",
                "k",
                "--rates",
                "600,200",
                "--runs=2",
                "--brokers",
                "kafka",
                "--kafka-settings",
                "log.flush.interval.messages=1",
                "--our-settings=log.flush.interval.ms=10");

        assertThat(options.rates()).containsExactly(200, 600);
        assertThat(options.runs()).isEqualTo(2);
        assertThat(options.window().brokers()).isEqualTo(List.of("kafka"));
        assertThat(options.services()).isEqualTo(Path.of("ops/bench/target/x/services"));
        assertThat(options.kafkaSettings()).containsExactly("log.flush.interval.messages=1");
        assertThat(options.ourSettings()).containsExactly("log.flush.interval.ms=10");
        assertThat(options.command())
                .isEqualTo("ops/bin/bench/platform --rates 600,200 --runs 2 --brokers kafka"
                        + " --kafka-settings log.flush.interval.messages=1 --our-settings log.flush.interval.ms=10");
    }

    @Test
    void aRateListedTwiceIsMeasuredOnceAndThousandsMayBeGrouped() {
        PlatformBenchOptions options = PlatformBenchOptions.parse("--rates", "600,300,600", "--max-in-flight", "1,024");

        assertThat(options.rates()).containsExactly(300, 600);
        assertThat(options.window().maxInFlight()).isEqualTo(1024);
    }

    @Test
    void refusesWhatItCannotRunNamingIt() {
        assertThatThrownBy(() -> PlatformBenchOptions.parse("--rates", "300,0"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("option '--rates' (N): '0' is not a whole number above 0");
        assertThatThrownBy(() -> PlatformBenchOptions.parse("--rates", "fast"))
                .hasMessageContaining("option '--rates' (N): 'fast' is not a whole number");
        assertThatThrownBy(() -> PlatformBenchOptions.parse("--rate", "600"))
                .hasMessageContaining("Unknown options: '--rate', '600'");
        assertThatThrownBy(() -> PlatformBenchOptions.parse("--brokers", "redpanda"))
                .hasMessageContaining("'redpanda'");
        assertThatThrownBy(() -> PlatformBenchOptions.parse("--kafka-settings", "fsync"))
                .hasMessageContaining("KEY=VALUE pairs, got 'fsync'");
        assertThatThrownBy(() -> PlatformBenchOptions.parse("--runs"))
                .hasMessageContaining("Missing required parameter for option '--runs'");
        assertThatThrownBy(() -> PlatformBenchOptions.parse("--partitions", "1,5"))
                .as("a comma only between groups of three digits")
                .hasMessageContaining("option '--partitions': '1,5' is not a whole number");
    }

    @Test
    void helpNamesEveryOptionWithItsDefaultAndAnUnknownOptionEndsTheCommandWithExitCode2() {
        assertThat(CommandLineChecks.helpNamesEveryOptionWithItsDefault(
                        BenchCommandLine.of(new PlatformBenchOptions(), () -> {
                            throw new AssertionError("the benchmark must not run");
                        })))
                .contains("Usage: ops/bin/bench/platform", "(default: 600,1200,2000)", "--skip-build");
        assertThat(CommandLineChecks.refused(
                        BenchCommandLine.of(new PlatformBenchOptions(), () -> {
                            throw new AssertionError("the benchmark must not run");
                        }),
                        "--rate",
                        "600"))
                .contains("Unknown options: '--rate', '600'", "Possible solutions: --rates");
    }
}

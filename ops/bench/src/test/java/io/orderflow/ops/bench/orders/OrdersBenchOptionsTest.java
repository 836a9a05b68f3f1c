package io.orderflow.ops.bench.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.orderflow.ops.bench.BenchCommandLine;
import io.orderflow.ops.bench.CommandLineChecks;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParameterException;

class OrdersBenchOptionsTest {

    @Test
    void defaultsAreTheIssuesWorkload() {
        OrdersBenchOptions options = OrdersBenchOptions.parse();

        assertThat(options.rate()).isEqualTo(2000);
        assertThat(options.window().duration()).isEqualTo(Duration.ofSeconds(60));
        assertThat(options.window().warmup()).isEqualTo(Duration.ofSeconds(120));
        assertThat(options.runs()).isEqualTo(3);
        assertThat(options.window().brokers()).containsExactly("ours", "kafka");
        assertThat(options.window().partitions()).isEqualTo(6);
        assertThat(options.synchronousCommit()).isEqualTo("on");
        assertThat(options.idempotencyKeys()).isFalse();
        assertThat(options.command()).isEqualTo("ops/bin/bench/orders");
    }

    @Test
    void theCommandShownLeavesOutTheScriptsPlumbing() {
        OrdersBenchOptions options = OrdersBenchOptions.parse(
                "--work-dir", "ops/bench/target/x", "--relay", "r", "--rate", "1500", "--runs=1", "--brokers", "kafka");

        assertThat(options.rate()).isEqualTo(1500);
        assertThat(options.runs()).isEqualTo(1);
        assertThat(options.window().brokers()).isEqualTo(List.of("kafka"));
        assertThat(options.workDir()).isEqualTo(Path.of("ops/bench/target/x"));
        assertThat(options.command()).isEqualTo("ops/bin/bench/orders --rate 1500 --runs 1 --brokers kafka");
    }

    @Test
    void rejectsWhatItCannotRun() {
        assertThatThrownBy(() -> OrdersBenchOptions.parse("--rate", "0"))
                .hasMessageContaining("option '--rate': '0' is not a whole number above 0");
        assertThatThrownBy(() -> OrdersBenchOptions.parse("--brokers", "redpanda"))
                .hasMessageContaining("'redpanda'");
        assertThatThrownBy(() -> OrdersBenchOptions.parse("--rate", "fast")).hasMessageContaining("'fast'");
        assertThatThrownBy(() -> OrdersBenchOptions.parse("--rates", "5"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("Unknown options: '--rates', '5'");
        assertThatThrownBy(() -> OrdersBenchOptions.parse("--synchronous-commit", "maybe"))
                .hasMessageContaining("'maybe'");
    }

    @Test
    void helpNamesEveryOptionWithItsDefaultAndAnUnknownOptionEndsTheCommandWithExitCode2() {
        assertThat(CommandLineChecks.helpNamesEveryOptionWithItsDefault(
                        BenchCommandLine.of(new OrdersBenchOptions(), () -> {
                            throw new AssertionError("the benchmark must not run");
                        })))
                .contains("Usage: ops/bin/bench/orders", "(default: 2000)", "--skip-build")
                .contains("on, off, local, remote_write, remote_apply");
        assertThat(CommandLineChecks.refused(
                        BenchCommandLine.of(new OrdersBenchOptions(), () -> {
                            throw new AssertionError("the benchmark must not run");
                        }),
                        "--rates",
                        "5"))
                .contains("Unknown options: '--rates', '5'", "Possible solutions: --rate");
    }

    @Test
    void theOrderCeilingNamesEveryOptionWithItsDefaultAndRefusesAnUnknownOne() {
        assertThat(CommandLineChecks.helpNamesEveryOptionWithItsDefault(OrderTransactionCeiling.commandLine()))
                .contains("Usage: ops/bin/bench/order-ceiling", "(default: 2,8,32)");
        assertThat(CommandLineChecks.refused(OrderTransactionCeiling.commandLine(), "--connection", "4"))
                .contains("Unknown options: '--connection', '4'");
        assertThat(CommandLineChecks.refused(OrderTransactionCeiling.commandLine(), "--synchronous-commit", "maybe"))
                .contains("Invalid value for option '--synchronous-commit'", "got 'maybe'");
    }
}

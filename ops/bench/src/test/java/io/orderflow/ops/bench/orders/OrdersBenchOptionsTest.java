package io.orderflow.ops.bench.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class OrdersBenchOptionsTest {

    @Test
    void defaultsAreTheIssuesWorkload() {
        OrdersBenchOptions options = OrdersBenchOptions.parse();

        assertThat(options.rate()).isEqualTo(2000);
        assertThat(options.duration()).isEqualTo(Duration.ofSeconds(60));
        assertThat(options.warmup()).isEqualTo(Duration.ofSeconds(120));
        assertThat(options.runs()).isEqualTo(3);
        assertThat(options.brokers()).containsExactly("ours", "kafka");
        assertThat(options.partitions()).isEqualTo(6);
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
        assertThat(options.brokers()).isEqualTo(List.of("kafka"));
        assertThat(options.workDir()).isEqualTo(Path.of("ops/bench/target/x"));
        assertThat(options.command()).isEqualTo("ops/bin/bench/orders --rate 1500 --runs 1 --brokers kafka");
    }

    @Test
    void rejectsWhatItCannotRun() {
        assertThatThrownBy(() -> OrdersBenchOptions.parse("--rate", "0"))
                .hasMessageContaining("--rate must be positive, got 0");
        assertThatThrownBy(() -> OrdersBenchOptions.parse("--brokers", "redpanda"))
                .hasMessageContaining("'redpanda'");
        assertThatThrownBy(() -> OrdersBenchOptions.parse("--rate", "fast")).hasMessageContaining("'fast'");
        assertThatThrownBy(() -> OrdersBenchOptions.parse("--rates", "5")).hasMessageContaining("[rates]");
        assertThatThrownBy(() -> OrdersBenchOptions.parse("--synchronous-commit", "maybe"))
                .hasMessageContaining("'maybe'");
    }
}

package io.orderflow.ops.bench.consumers;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.ops.bench.CommandLineChecks;
import org.junit.jupiter.api.Test;

/** {@code ops/bin/bench/consumers}' command line, without running it. */
class ConsumersBenchmarkTest {

    @Test
    void helpNamesEveryOptionWithItsDefault() {
        assertThat(CommandLineChecks.helpNamesEveryOptionWithItsDefault(ConsumersBenchmark.commandLine()))
                .contains("Usage: ops/bin/bench/consumers", "(default: 20000)")
                .contains("inventory-service, notification-service, analytics-service");
    }

    @Test
    void anUnknownOptionAndAServiceItDoesNotMeasureAreRefusedNamingThem() {
        assertThat(CommandLineChecks.refused(ConsumersBenchmark.commandLine(), "--order", "100"))
                .contains("Unknown options: '--order', '100'", "Possible solutions: --orders");
        assertThat(CommandLineChecks.refused(ConsumersBenchmark.commandLine(), "--services", "inventory-service,order"))
                .contains("Invalid value for option '--services'", "got 'order'");
    }
}

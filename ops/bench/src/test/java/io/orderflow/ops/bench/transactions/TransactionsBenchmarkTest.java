package io.orderflow.ops.bench.transactions;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.ops.bench.CommandLineChecks;
import org.junit.jupiter.api.Test;

/** {@code ops/bin/bench/transactions}' command line, without running it. */
class TransactionsBenchmarkTest {

    @Test
    void helpNamesEveryOptionWithItsDefault() {
        assertThat(CommandLineChecks.helpNamesEveryOptionWithItsDefault(TransactionsBenchmark.commandLine()))
                .contains("Usage: ops/bin/bench/transactions", "(default: 1,10,100)", "(default: 10)");
    }

    @Test
    void aTransactionOfNoRecordsIsRefusedNamingTheOption() {
        assertThat(CommandLineChecks.refused(TransactionsBenchmark.commandLine(), "--sizes", "1,0"))
                .contains("Invalid value for option '--sizes'");
        assertThat(CommandLineChecks.refused(TransactionsBenchmark.commandLine(), "--second", "3"))
                .contains("Unknown options: '--second', '3'");
    }
}

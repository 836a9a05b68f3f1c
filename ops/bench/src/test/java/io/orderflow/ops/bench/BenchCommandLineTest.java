package io.orderflow.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.ops.load.WholeNumber;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The benchmarks' shared command-line behaviour: the command shown beside the figures is the options as given, minus
 * the script's plumbing; a later occurrence of an option wins; counts may group thousands, only in threes; and the
 * small benchmarks (fsync, storage) print every option with its default and refuse an unknown one.
 */
class BenchCommandLineTest {

    @Command(name = "ops/bin/bench/example")
    static final class Example {
        @Spec
        CommandSpec spec;

        @Option(names = "--runs", defaultValue = "3", converter = WholeNumber.Positive.class)
        int runs;

        @Option(names = "--sizes", split = ",", converter = WholeNumber.Positive.class)
        List<Integer> sizes = new ArrayList<>();

        @ArgGroup(validate = false)
        Plumbing plumbing = new Plumbing();

        static final class Plumbing {
            @Option(names = "--work-dir", defaultValue = "target/example")
            Path workDir;
        }
    }

    @Test
    void theCommandShownIsTheOptionsAsGivenInOrderWithoutThePlumbing() {
        Example example = new Example();

        BenchCommandLine.of(example)
                .parseArgs("--work-dir", "w", "--runs=1,000", "--sizes", "100,200", "--runs", "2", "--sizes=300");

        assertThat(example.runs).as("a later occurrence wins").isEqualTo(2);
        assertThat(example.sizes).containsExactly(100, 200, 300);
        assertThat(example.plumbing.workDir).isEqualTo(Path.of("w"));
        assertThat(BenchCommandLine.command(example.spec))
                .isEqualTo("ops/bin/bench/example --runs 1,000 --sizes 100,200 --runs 2 --sizes 300");
    }

    @Test
    void withoutOptionsTheCommandIsTheScriptAlone() {
        Example example = new Example();

        BenchCommandLine.of(example).parseArgs();

        assertThat(BenchCommandLine.command(example.spec)).isEqualTo("ops/bin/bench/example");
        assertThat(example.plumbing.workDir).isEqualTo(Path.of("target/example"));
    }

    @Test
    void countsGroupThousandsOnlyInThrees() {
        WholeNumber.Positive positive = new WholeNumber.Positive();

        assertThat(positive.convert("2,000")).isEqualTo(2000);
        assertThat(positive.convert("2_000")).isEqualTo(2000);
        assertThat(new WholeNumber.PositiveLong().convert("3,000,000,000")).isEqualTo(3_000_000_000L);
        assertThat(CommandLineChecks.refused(BenchCommandLine.of(new Example()), "--runs", "20,00"))
                .contains("Invalid value for option '--runs': '20,00' is not a whole number");
    }

    @Test
    void fsyncNamesEveryOptionWithItsDefaultAndRefusesAnUnknownOne() {
        assertThat(CommandLineChecks.helpNamesEveryOptionWithItsDefault(FsyncLatencyBenchmark.commandLine()))
                .contains("Usage: ops/bin/bench/fsync", "--appends=N", "(default: 3000)");
        assertThat(CommandLineChecks.refused(FsyncLatencyBenchmark.commandLine(), "--append", "10"))
                .contains("Unknown options: '--append', '10'", "Possible solutions: --appends");
        assertThat(CommandLineChecks.refused(FsyncLatencyBenchmark.commandLine(), "--size", "0"))
                .contains("Invalid value for option '--size': '0' is not a whole number above 0");
    }

    @Test
    void storageNamesEveryOptionWithItsDefaultAndRefusesAnUnknownOne() {
        assertThat(CommandLineChecks.helpNamesEveryOptionWithItsDefault(StorageBenchmark.commandLine()))
                .contains("Usage: ops/bin/bench/storage", "--recovery-mib=N", "(default: 1024)");
        assertThat(CommandLineChecks.refused(StorageBenchmark.commandLine(), "--records", "10"))
                .contains("Unknown options: '--records', '10'");
        assertThat(CommandLineChecks.refused(StorageBenchmark.commandLine(), "--mib", "lots"))
                .contains("Invalid value for option '--mib': 'lots' is not a whole number");
    }
}

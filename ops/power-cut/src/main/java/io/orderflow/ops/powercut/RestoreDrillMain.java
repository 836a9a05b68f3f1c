package io.orderflow.ops.powercut;

import io.orderflow.ops.drill.DrillReport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ops/bin/drill restore [options]}: the {@link RestoreDrill}, on a platform of its own (free ports). Prints the
 * report; exit code 0 when the drill passed, 1 when it failed, 2 for a bad command line.
 */
@Command(
        name = "ops/bin/drill restore",
        mixinStandardHelpOptions = true,
        description = "Starts the whole platform, backs it up under orders going through their lifecycle, goes on,"
                + " stops it, restores the backup on new directories, starts it and checks every invariant over"
                + " what was acknowledged before the backup.")
public final class RestoreDrillMain implements Callable<Integer> {

    @Option(names = "--rate", defaultValue = "10", description = "orders a second (default: ${DEFAULT-VALUE})")
    private int rate;

    @Option(
            names = "--interval",
            defaultValue = "20",
            paramLabel = "SECONDS",
            description = "seconds of orders before the backup, and after it (default: ${DEFAULT-VALUE})")
    private int interval;

    @Option(
            names = "--work-dir",
            defaultValue = ".orderflow/restore-drill",
            description = "where the platforms, the backup and the logs go (default: ${DEFAULT-VALUE})")
    private Path work;

    public static void main(String[] args) {
        System.exit(new CommandLine(new RestoreDrillMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        DrillReport report;
        try {
            report = new RestoreDrill(Path.of("."), work, rate, Duration.ofSeconds(interval)).run();
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            return 2;
        }
        System.out.println(report.render());
        return report.passed() ? 0 : 1;
    }
}

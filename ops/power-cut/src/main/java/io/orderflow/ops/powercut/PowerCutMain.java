package io.orderflow.ops.powercut;

import io.orderflow.ops.drill.DrillReport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ops/bin/drill power-cut [options]}: the {@link PowerCutDrill}, which starts and cuts a platform of its own (so
 * no platform may be running on its ports' defaults: it picks free ones). Prints the report; exit code 0 when the
 * drill passed, 1 when it failed, 2 for a bad command line or a machine without FUSE (the message names the packages).
 */
@Command(
        name = "ops/bin/drill power-cut",
        mixinStandardHelpOptions = true,
        description = "Starts the whole platform on a file system that keeps only what was fsynced, cuts the power of"
                + " every process again and again under orders going through their lifecycle, and checks after"
                + " each cut and at the end that nothing acknowledged was lost or done twice.")
public final class PowerCutMain implements Callable<Integer> {

    @Option(names = "--cuts", defaultValue = "5", description = "power cuts (default: ${DEFAULT-VALUE})")
    private int cuts;

    @Option(names = "--rate", defaultValue = "10", description = "orders a second (default: ${DEFAULT-VALUE})")
    private int rate;

    @Option(
            names = "--interval",
            defaultValue = "20",
            paramLabel = "SECONDS",
            description = "seconds of orders before each cut, and after the last (default: ${DEFAULT-VALUE})")
    private int interval;

    @Option(
            names = "--work-dir",
            defaultValue = ".orderflow/power-cut",
            description = "where the file system's backing directory, its mount and the logs go (default:"
                    + " ${DEFAULT-VALUE})")
    private Path work;

    public static void main(String[] args) {
        System.exit(new CommandLine(new PowerCutMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (PowerLossFileSystem.unavailable().isPresent()) {
            System.err.println(PowerLossFileSystem.unavailable().get());
            return 2;
        }
        DrillReport report;
        try {
            report = new PowerCutDrill(Path.of("."), work, cuts, rate, Duration.ofSeconds(interval)).run();
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            return 2;
        }
        System.out.println(report.render());
        return report.passed() ? 0 : 1;
    }
}

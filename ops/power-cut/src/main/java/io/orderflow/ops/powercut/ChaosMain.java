package io.orderflow.ops.powercut;

import io.orderflow.ops.drill.DrillReport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ops/bin/drill chaos [options]}: the {@link ChaosDrill}, on a platform of its own (on free ports). Prints the
 * report, which names the seed; exit code 0 when the drill passed, 1 when it failed, 2 for a bad command line.
 */
@Command(
        name = "ops/bin/drill chaos",
        mixinStandardHelpOptions = true,
        description = "Starts the whole platform and, under steady orders, hits it with faults drawn from a seed (any"
                + " process killed or paused, a slow consumer, a burst, a poison record, a record of an unknown major"
                + " version), then checks that nothing acknowledged was lost or done twice. The same seed replays the"
                + " same faults.")
public final class ChaosMain implements Callable<Integer> {

    @Option(names = "--minutes", defaultValue = "10", description = "length of the run (default: ${DEFAULT-VALUE})")
    private int minutes;

    @Option(names = "--seed", description = "the faults' seed (default: drawn, and printed in the report)")
    private Long seed;

    @Option(names = "--rate", defaultValue = "5", description = "orders a second (default: ${DEFAULT-VALUE})")
    private int rate;

    @Option(
            names = "--work-dir",
            defaultValue = ".orderflow/chaos",
            description = "where the platform's data, the logs and the journal go (default: ${DEFAULT-VALUE})")
    private Path work;

    public static void main(String[] args) {
        System.exit(new CommandLine(new ChaosMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        DrillReport report;
        try {
            ChaosPlan plan = ChaosPlan.draw(
                    seed != null ? seed : ThreadLocalRandom.current().nextLong(1_000_000), Duration.ofMinutes(minutes));
            report = new ChaosDrill(Path.of("."), work, plan, rate).run();
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            return 2;
        }
        System.out.println(report.render());
        return report.passed() ? 0 : 1;
    }
}

package io.orderflow.ops.drill;

import java.util.HashMap;
import java.util.Map;

/**
 * {@code ops/drill NAME [options]}: runs one failure drill against a running platform and prints its report
 * ({@link DrillReport}). Exit code 0 when the drill passed, 1 when it failed, 2 for a bad command line.
 */
public final class DrillMain {

    static final String USAGE = """
            Usage: ops/drill NAME [--orders N] [options]

            Runs a failure drill against a running platform (./run-platform, or docker compose) and prints what
            was done, each consumer group's lag over the drill, what was verified, and PASS or FAIL.

            Drills:
              duplicate-event   the same event published twice, and a relay re-sending a batch: one effect
                                everywhere (--orders N: orders of the drill, default 20)

            Where the platform is (defaults: the ports ./run-platform uses):
            """ + DrillTarget.OPTIONS;

    private DrillMain() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h")) {
            System.out.print(USAGE);
            System.exit(args.length == 0 ? 2 : 0);
            return;
        }
        Map<String, String> options = new HashMap<>();
        for (int i = 1; i < args.length; i += 2) {
            if (i + 1 >= args.length || !args[i].startsWith("--")) {
                System.err.println("'" + args[i] + "' needs a value\n\n" + USAGE);
                System.exit(2);
                return;
            }
            options.put(args[i], args[i + 1]);
        }
        DrillTarget target = DrillTarget.parse(options);
        DrillReport report;
        switch (args[0]) {
            case DuplicateEventDrill.NAME ->
                report =
                        new DuplicateEventDrill(target, Integer.parseInt(options.getOrDefault("--orders", "20"))).run();
            default -> {
                System.err.println("No drill named '" + args[0] + "'.\n\n" + USAGE);
                System.exit(2);
                return;
            }
        }
        System.out.print(report.render());
        System.exit(report.passed() ? 0 : 1);
    }
}

package io.orderflow.hostileframes;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * Both brokers' verdicts as one Markdown table, a column each, so the figures can go into docs/benchmarks.md as
 * printed. A broker that was not measured, or could not be, shows dashes.
 */
final class SideBySide {
    private SideBySide() {}

    static void print(List<BrokerVerdict> verdicts, PrintStream out) {
        List<String> header = new ArrayList<>(List.of(""));
        verdicts.forEach(v -> header.add(v.broker()));
        row(out, header);
        List<String> rule = new ArrayList<>();
        header.forEach(h -> rule.add("---"));
        row(out, rule);
        row(out, verdicts, "verdict", v -> v.passed() ? "passed" : "FAILED: " + String.join("; ", v.problems()));
        row(
                out,
                verdicts,
                "frames sent",
                v -> fmt("%,d of %,d", v.result().framesSent(), v.result().framesPlanned()));
        row(out, verdicts, "frames/s", v -> fmt("%,.0f", v.result().framesPerSecond()));
        row(out, verdicts, "connections opened", v -> fmt("%,d", v.result().connectionsOpened()));
        row(out, verdicts, "closed by the broker", v -> fmt("%,d", v.result().closedByBroker()));
        row(out, verdicts, "probes", v -> v.result().probeLine());
        row(out, verdicts, "probe latency", v -> v.result().latencyLine());
        row(out, verdicts, "OutOfMemoryError in its log", v -> v.outOfMemory().describe());
        row(out, verdicts, "alive at the end", v -> v.aliveAtEnd() ? "yes" : "NO");
        row(out, verdicts, "peak resident memory", v -> fmt("%.0f MiB", v.peakRssMiB()));
        row(out, verdicts, "known records intact", v -> v.result().records().describe());
        row(out, verdicts, "new round trip", v -> v.result().roundTrip().describe());
        row(
                out,
                verdicts,
                "topics at the end",
                v -> v.result().topicsAtEnd() < 0
                        ? "unknown"
                        : Integer.toString(v.result().topicsAtEnd()));
        row(
                out,
                verdicts,
                "sending took",
                v -> fmt("%.0f s", v.result().sending().toMillis() / 1e3));
    }

    private static void row(
            PrintStream out, List<BrokerVerdict> verdicts, String name, Function<BrokerVerdict, String> cell) {
        List<String> cells = new ArrayList<>(List.of(name));
        for (BrokerVerdict verdict : verdicts) {
            cells.add(verdict.result() == null && !name.equals("verdict") ? "-" : cell.apply(verdict));
        }
        row(out, cells);
    }

    private static void row(PrintStream out, List<String> cells) {
        out.println("| " + String.join(" | ", cells) + " |");
    }

    private static String fmt(String format, Object... values) {
        return String.format(Locale.ROOT, format, values);
    }
}

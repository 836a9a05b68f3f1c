package io.orderflow.ops.drill;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What a drill prints: its name, what was done (in order), the lag per group over the drill, what was verified, and
 * PASS or FAIL (every check passed, or not). Built by the drill as it goes; not thread-safe.
 */
public final class DrillReport {

    /** One verified invariant: what it claims, whether it held, and the figures behind it. */
    public record Check(String claim, boolean passed, String detail) {}

    private final String drill;
    private final List<String> steps = new ArrayList<>();
    private final List<Check> checks = new ArrayList<>();
    private String chart = "";

    public DrillReport(String drill) {
        this.drill = drill;
    }

    /** The drill's name, as {@code ops/bin/drill} takes it. */
    public String drill() {
        return drill;
    }

    public void step(String done) {
        steps.add(done);
    }

    public void check(String claim, boolean passed, String detail) {
        checks.add(new Check(claim, passed, detail));
    }

    public void chart(String chart) {
        this.chart = chart;
    }

    public List<Check> checks() {
        return List.copyOf(checks);
    }

    /** True when there was at least one check and every check passed. */
    public boolean passed() {
        return !checks.isEmpty() && checks.stream().allMatch(Check::passed);
    }

    /** Writes {@link #render()} to {@code <directory>/<drill>.txt}, creating the directory; returns the text. */
    public String saveIn(Path directory) throws IOException {
        String text = render();
        Files.writeString(Files.createDirectories(directory).resolve(drill + ".txt"), text);
        return text;
    }

    /** At most the first three of {@code items} and how many more, for a check's detail. */
    static String firstFew(List<?> items) {
        return items.size() <= 3 ? items.toString() : items.subList(0, 3) + " and " + (items.size() - 3) + " more";
    }

    public String render() {
        StringBuilder text = new StringBuilder();
        text.append("Drill ").append(drill).append('\n');
        text.append("\nWhat was done\n");
        for (int i = 0; i < steps.size(); i++) {
            text.append(String.format("  %d. %s%n", i + 1, steps.get(i)));
        }
        text.append("\nLag per group\n").append(chart.isEmpty() ? "  (no reading)\n" : chart);
        text.append("\nWhat was verified\n");
        for (Check check : checks) {
            text.append(
                    String.format("  [%s] %s: %s%n", check.passed() ? "ok" : "FAILED", check.claim(), check.detail()));
        }
        text.append('\n').append(passed() ? "PASS" : "FAIL").append('\n');
        return text.toString();
    }
}

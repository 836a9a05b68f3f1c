package io.orderflow.ops.bench.orders;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.DoubleSupplier;

/**
 * CPU time from {@code /proc}: per process ({@code /proc/<pid>/stat}, all threads) and for the whole machine
 * ({@code /proc/stat}), so that a run can say which process used the two cores while the load ran, and how much was
 * used by processes that are not part of the benchmark (other work on a shared machine).
 *
 * <p>Linux only; where {@code /proc} cannot be read a process counts as NaN and the report says "n/a". Thread-safe.
 */
public final class CpuTime {
    /** {@code /proc} reports in USER_HZ ticks, 100 per second on every Linux architecture the JDK runs on. */
    private static final double TICKS_PER_SECOND = 100.0;

    private static volatile String lastFailure;

    private CpuTime() {}

    /** User plus system CPU seconds of {@code pid} so far (every thread); NaN if it cannot be read. */
    public static double processSeconds(long pid) {
        long[] fields = statFields(pid);
        return fields == null ? Double.NaN : (fields[11] + fields[12]) / TICKS_PER_SECOND;
    }

    /**
     * CPU seconds of {@code pid} and every process below it: its own, what its exited children used (reaped, so in
     * its {@code cutime}/{@code cstime}), and what its live descendants used. For PostgreSQL's postmaster that is
     * every backend and background worker, including connections and autovacuum workers that have ended.
     *
     * <p>A child reaped between reading the parent and listing the children would be missed (or counted twice), so
     * the parent is read before and after the children, and the reading repeated until no child was reaped meanwhile.
     */
    public static double treeSeconds(long pid) {
        for (int attempt = 0; attempt < 10; attempt++) {
            long[] before = statFields(pid);
            if (before == null) {
                return Double.NaN;
            }
            double children = ProcessHandle.of(pid)
                    .map(p -> p.descendants()
                            .mapToDouble(d -> {
                                double s = processSeconds(d.pid());
                                return Double.isNaN(s) ? 0 : s;
                            })
                            .sum())
                    .orElse(0.0);
            long[] after = statFields(pid);
            if (after == null) {
                return Double.NaN;
            }
            if (before[13] == after[13] && before[14] == after[14]) {
                return (after[11] + after[12] + after[13] + after[14]) / TICKS_PER_SECOND + children;
            }
        }
        lastFailure = "children of " + pid + " kept exiting while its CPU time was read";
        return Double.NaN;
    }

    /**
     * The fields of {@code /proc/<pid>/stat} after the command name, so that index 0 is field 3 ({@code state}) of
     * proc(5); utime, stime, cutime and cstime are at 11 to 14. Null if the process is gone or the file unreadable.
     */
    private static long[] statFields(long pid) {
        Path file = Path.of("/proc", Long.toString(pid), "stat");
        try {
            String stat = Files.readString(file);
            // The command name is in parentheses and may itself contain spaces and parentheses.
            String[] rest = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
            long[] fields = new long[15];
            for (int i = 1; i < fields.length; i++) {
                fields[i] = Long.parseLong(rest[i]);
            }
            return fields;
        } catch (IOException | RuntimeException e) {
            lastFailure = file + ": " + e;
            return null;
        }
    }

    /** Why the last reading that came out NaN failed, for the report; null if none did. */
    public static String lastFailure() {
        return lastFailure;
    }

    /** The machine's CPU seconds so far, summed over all cores, from the first line of {@code /proc/stat}. */
    public record AllCores(double busy, double iowait, double steal) {
        public static AllCores read() {
            try {
                String[] f = Files.readAllLines(Path.of("/proc/stat"))
                        .getFirst()
                        .trim()
                        .split("\\s+");
                // cpu user nice system idle iowait irq softirq steal ...
                long busy = Long.parseLong(f[1])
                        + Long.parseLong(f[2])
                        + Long.parseLong(f[3])
                        + Long.parseLong(f[6])
                        + Long.parseLong(f[7]);
                return new AllCores(
                        busy / TICKS_PER_SECOND,
                        Long.parseLong(f[5]) / TICKS_PER_SECOND,
                        f.length > 8 ? Long.parseLong(f[8]) / TICKS_PER_SECOND : 0);
            } catch (IOException | RuntimeException e) {
                return new AllCores(Double.NaN, Double.NaN, Double.NaN);
            }
        }
    }

    /** CPU seconds of named processes and of the machine at one moment. */
    public record Reading(long nanoTime, Map<String, Double> processes, AllCores machine) {

        public static Reading take(Map<String, DoubleSupplier> processes) {
            Map<String, Double> seconds = new LinkedHashMap<>();
            processes.forEach((name, supplier) -> seconds.put(name, supplier.getAsDouble()));
            return new Reading(System.nanoTime(), seconds, AllCores.read());
        }

        /**
         * Cores used between {@code earlier} and this reading: each named process, "everything else" (the machine's
         * busy time minus the named ones': other work on the machine, and kernel time no process was charged for),
         * then the machine's busy, iowait and steal time.
         */
        public Map<String, Double> coresSince(Reading earlier) {
            double wall = (nanoTime - earlier.nanoTime) / 1e9;
            Map<String, Double> cores = new LinkedHashMap<>();
            double named = 0;
            for (Map.Entry<String, Double> p : processes.entrySet()) {
                double used = (p.getValue() - earlier.processes.getOrDefault(p.getKey(), Double.NaN)) / wall;
                cores.put(p.getKey(), used);
                named += Double.isNaN(used) ? 0 : used;
            }
            double busy = (machine.busy - earlier.machine.busy) / wall;
            cores.put("everything else", Math.max(0, busy - named));
            cores.put("machine busy", busy);
            cores.put("machine iowait", (machine.iowait - earlier.machine.iowait) / wall);
            cores.put("machine steal", (machine.steal - earlier.machine.steal) / wall);
            return cores;
        }
    }
}

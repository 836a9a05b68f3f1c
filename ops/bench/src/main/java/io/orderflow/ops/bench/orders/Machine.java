package io.orderflow.ops.bench.orders;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** What the figures were measured on, for the header of the output: cores, CPU model, memory, kernel, JDK, load. */
public final class Machine {
    private Machine() {}

    public static String describe() {
        return String.format(
                Locale.ROOT,
                "%d cores (%s), %s RAM, Linux %s, %s %s",
                Runtime.getRuntime().availableProcessors(),
                cpuModel(),
                memory(),
                read("/proc/sys/kernel/osrelease").trim(),
                System.getProperty("java.vm.vendor"),
                System.getProperty("java.runtime.version"));
    }

    /** The 1-, 5- and 15-minute load averages. */
    public static String loadAverage() {
        String[] fields = read("/proc/loadavg").split(" ");
        return fields.length < 3 ? "unknown" : String.join(" ", fields[0], fields[1], fields[2]);
    }

    private static String cpuModel() {
        return lines("/proc/cpuinfo").stream()
                .filter(l -> l.startsWith("model name"))
                .map(l -> l.substring(l.indexOf(':') + 1).trim())
                .findFirst()
                .orElse("unknown CPU");
    }

    private static String memory() {
        return lines("/proc/meminfo").stream()
                .filter(l -> l.startsWith("MemTotal:"))
                .map(l -> Long.parseLong(l.replaceAll("[^0-9]", "")))
                .map(kib -> String.format(Locale.ROOT, "%.1f GiB", kib / 1024.0 / 1024.0))
                .findFirst()
                .orElse("unknown");
    }

    private static List<String> lines(String file) {
        try {
            return Files.readAllLines(Path.of(file));
        } catch (IOException e) {
            return List.of();
        }
    }

    private static String read(String file) {
        try {
            return Files.readString(Path.of(file));
        } catch (IOException e) {
            return "unknown";
        }
    }
}

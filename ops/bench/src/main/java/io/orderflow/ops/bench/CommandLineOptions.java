package io.orderflow.ops.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The {@code --name value} (or {@code --name=value}) options of a benchmark that compares brokers, read one at a time
 * by name: each read takes its option, so that {@link #requireAllTaken} can refuse, naming them, the options nothing
 * read. Options the benchmark's script passes ({@code plumbing}: where it put the private copies of what is measured)
 * are left out of {@link #commandLine}, the command a person would type.
 *
 * <p>Not thread-safe.
 */
public final class CommandLineOptions {
    private static final Pattern THOUSANDS = Pattern.compile("-?\\d{1,3}([,_]\\d{3})+");
    private final Map<String, String> remaining;
    private final List<String> commandLine;
    private final String usage;

    private CommandLineOptions(Map<String, String> values, List<String> commandLine, String usage) {
        this.remaining = new HashMap<>(values);
        this.commandLine = List.copyOf(commandLine);
        this.usage = usage;
    }

    /**
     * @throws IllegalArgumentException for an argument that is not an option, or an option without its value; the
     *     message ends with {@code usage}
     */
    public static CommandLineOptions parse(String[] args, Set<String> plumbing, String usage) {
        Map<String, String> values = new LinkedHashMap<>();
        List<String> commandLine = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--")) {
                throw new IllegalArgumentException("Unexpected argument '" + arg + "'\n" + usage);
            }
            String name;
            String value;
            int eq = arg.indexOf('=');
            if (eq > 0) {
                name = arg.substring(2, eq);
                value = arg.substring(eq + 1);
            } else if (i + 1 < args.length) {
                name = arg.substring(2);
                value = args[++i];
            } else {
                throw new IllegalArgumentException("Option " + arg + " needs a value\n" + usage);
            }
            values.put(name, value);
            if (!plumbing.contains(name)) {
                commandLine.add("--" + name + " " + value);
            }
        }
        return new CommandLineOptions(values, commandLine, usage);
    }

    /** {@code script} followed by {@code commandLine}: the command a person would type to measure the same. */
    public static String command(String script, List<String> commandLine) {
        return commandLine.isEmpty() ? script : script + " " + String.join(" ", commandLine);
    }

    /** The options as given, minus the script's plumbing, as {@code --name value} each. */
    public List<String> commandLine() {
        return commandLine;
    }

    public String text(String name, String fallback) {
        String value = remaining.remove(name);
        return value == null ? fallback : value;
    }

    public int positive(String name, String fallback) {
        int value = whole(name, text(name, fallback));
        if (value < 1) {
            throw new IllegalArgumentException("--" + name + " must be positive, got " + value);
        }
        return value;
    }

    public long positiveLong(String name, String fallback) {
        long value = wholeLong(name, text(name, fallback));
        if (value < 1) {
            throw new IllegalArgumentException("--" + name + " must be positive, got " + value);
        }
        return value;
    }

    public int nonNegative(String name, String fallback) {
        int value = whole(name, text(name, fallback));
        if (value < 0) {
            throw new IllegalArgumentException("--" + name + " must not be negative, got " + value);
        }
        return value;
    }

    /** A comma-separated list of positive whole numbers, e.g. {@code 300,450,600} (no thousands separators). */
    public List<Integer> positives(String name, String fallback) {
        List<Integer> values =
                list(name, fallback).stream().map(value -> whole(name, value)).toList();
        if (values.isEmpty() || values.stream().anyMatch(value -> value < 1)) {
            throw new IllegalArgumentException("--" + name + " takes positive whole numbers, got " + values);
        }
        return values;
    }

    /** A comma-separated list; blanks dropped. */
    public List<String> list(String name, String fallback) {
        return Arrays.stream(text(name, fallback).split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .toList();
    }

    /** A comma-separated list of {@code KEY=VALUE} settings, e.g. {@code log.flush.interval.messages=1}. */
    public List<String> settings(String name) {
        List<String> settings = list(name, "");
        for (String setting : settings) {
            if (!setting.contains("=")) {
                throw new IllegalArgumentException("--" + name + " takes KEY=VALUE pairs, got '" + setting + "'");
            }
        }
        return settings;
    }

    /** {@code --brokers}: {@code ours}, {@code kafka} or both, in the order of the first run. */
    public List<String> brokers(String fallback) {
        List<String> brokers = list("brokers", fallback);
        if (brokers.isEmpty()) {
            throw new IllegalArgumentException("--brokers names no broker; use ours, kafka or both");
        }
        for (String broker : brokers) {
            if (!broker.equals("kafka") && !broker.equals("ours")) {
                throw new IllegalArgumentException("--brokers takes ours and/or kafka, got '" + broker + "'");
            }
        }
        return brokers;
    }

    public boolean bool(String name, String fallback) {
        String value = text(name, fallback);
        return switch (value) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("--" + name + " takes true or false, got '" + value + "'");
        };
    }

    /** Refuses the options no read took, naming them. */
    public void requireAllTaken() {
        if (!remaining.isEmpty()) {
            throw new IllegalArgumentException(
                    "Unknown option(s) " + remaining.keySet().stream().sorted().toList() + "\n" + usage);
        }
    }

    /** A whole number, with commas or underscores allowed only between groups of three digits: 2000, 2,000, 2_000. */
    private static int whole(String name, String text) {
        long value = wholeLong(name, text);
        if (value != (int) value) {
            throw new IllegalArgumentException("--" + name + " is out of range, got " + text);
        }
        return (int) value;
    }

    private static long wholeLong(String name, String text) {
        String value = THOUSANDS.matcher(text).matches() ? text.replace(",", "").replace("_", "") : text;
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " takes a whole number, got '" + text + "'", e);
        }
    }
}

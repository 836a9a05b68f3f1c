package io.orderflow.ops.bench;

import java.util.Set;

/** The {@code --name value} options of the small benchmarks. */
public final class BenchArguments {
    private BenchArguments() {}

    /** The value after {@code name} in {@code args}, or {@code fallback} when it is not there. */
    public static String value(String[] args, String name, String fallback) {
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return fallback;
    }

    /** Fails, naming it, on the first {@code --option} of {@code args} that is not one of {@code known}. */
    public static void requireKnown(String[] args, Set<String> known) {
        for (int i = 0; i < args.length; i += 2) {
            if (!known.contains(args[i]) || i + 1 >= args.length) {
                throw new IllegalArgumentException("Unknown option or missing value: " + args[i] + " (options: "
                        + String.join(" ", known.stream().sorted().toList()) + ")");
            }
        }
    }
}

package io.orderflow.ops.bench;

/** The {@code --name value} options of the small benchmarks in this package. */
final class BenchArguments {
    private BenchArguments() {}

    /** The value after {@code name} in {@code args}, or {@code fallback} when it is not there. */
    static String value(String[] args, String name, String fallback) {
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return fallback;
    }
}

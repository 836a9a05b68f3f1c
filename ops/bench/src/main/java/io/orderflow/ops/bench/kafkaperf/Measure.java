package io.orderflow.ops.bench.kafkaperf;

import java.util.Locale;

/**
 * One row of the result table: what is measured, in which unit, and what the issue asks of it.
 *
 * @param name what is measured, e.g. "produce 1 KiB"
 * @param unit e.g. "MB/s" (MB = 2^20 bytes, as Kafka's tools print it)
 * @param target the target, judged on the medians of one run
 */
record Measure(String name, String unit, Target target) {

    /** What the issue asks of a measure; {@link #NONE} for figures reported to explain the others. */
    sealed interface Target {
        Target NONE = new None();

        String describe();

        /** Whether our median meets the target, given Apache Kafka's median in the same run. */
        boolean met(double ours, double kafka);
    }

    /** Ours at least {@code ratio} times Apache Kafka's (throughput). */
    record AtLeastTimesKafka(double ratio) implements Target {
        @Override
        public String describe() {
            return String.format(Locale.ROOT, ">= %.1fx Kafka", ratio);
        }

        @Override
        public boolean met(double ours, double kafka) {
            return ours >= ratio * kafka;
        }
    }

    /** Ours at most {@code ratio} times Apache Kafka's (latency). */
    record AtMostTimesKafka(double ratio) implements Target {
        @Override
        public String describe() {
            return String.format(Locale.ROOT, "<= %.1fx Kafka", ratio);
        }

        @Override
        public boolean met(double ours, double kafka) {
            return ours <= ratio * kafka;
        }
    }

    /** Ours at most {@code limit}, whatever Apache Kafka does (start-up time, idle memory). */
    record AtMost(double limit, String unit) implements Target {
        @Override
        public String describe() {
            return String.format(Locale.ROOT, "<= %.0f %s", limit, unit);
        }

        @Override
        public boolean met(double ours, double kafka) {
            return ours <= limit;
        }
    }

    record None() implements Target {
        @Override
        public String describe() {
            return "";
        }

        @Override
        public boolean met(double ours, double kafka) {
            return true;
        }
    }

    /** "1 KiB" for 1024, "100 B" for 100. */
    static String size(int bytes) {
        return bytes % 1024 == 0 ? bytes / 1024 + " KiB" : bytes + " B";
    }
}

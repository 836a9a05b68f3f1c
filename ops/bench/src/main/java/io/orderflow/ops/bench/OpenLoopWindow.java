package io.orderflow.ops.bench;

import io.orderflow.ops.load.WholeNumber;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The options of a benchmark that offers open-loop {@code POST /orders} load to a platform on each broker ({@code
 * ops/bin/bench/orders} and {@code ops/bin/bench/platform}), declared once and mixed into each command line
 * ({@code @Mixin}): the window and its warm-up, which brokers, the partitions of {@code orders} and the load
 * generator's bound on outstanding requests. Filled by picocli, then only read.
 */
public final class OpenLoopWindow {

    @Option(
            names = "--duration-seconds",
            paramLabel = "N",
            defaultValue = "60",
            converter = WholeNumber.Positive.class,
            description = "the measured window, after the warm-up (default: ${DEFAULT-VALUE})")
    private int durationSeconds;

    /**
     * The default is long because the JIT is: at 2,000 orders/s the JVMs' compiler threads still took 0.57 of the 2
     * cores 50-60 s after start and none 110-120 s after; with the whole platform's seven JVMs a 30 s warm-up capped it
     * near 1,400 orders/s where a 120 s one sustains 2,000 (docs/benchmarks.md).
     */
    @Option(
            names = "--warmup-seconds",
            paramLabel = "N",
            defaultValue = "120",
            converter = WholeNumber.NotNegative.class,
            description = "load at the same rate before the window, not measured (JIT, connection pools, caches)"
                    + " (default: ${DEFAULT-VALUE})")
    private int warmupSeconds;

    @Option(
            names = "--brokers",
            paramLabel = "BROKER",
            split = ",",
            defaultValue = "ours,kafka",
            converter = BrokerName.class,
            completionCandidates = BrokerName.class,
            description = "${COMPLETION-CANDIDATES} or both, in the order of run 1 (default: ${DEFAULT-VALUE})")
    private List<String> brokers;

    @Option(
            names = "--partitions",
            paramLabel = "N",
            defaultValue = "6",
            converter = WholeNumber.Positive.class,
            description = "partitions of the orders topic (default: ${DEFAULT-VALUE}, as the platform creates it)")
    private int partitions;

    @Option(
            names = "--max-in-flight",
            paramLabel = "N",
            defaultValue = "512",
            converter = WholeNumber.Positive.class,
            description = "requests outstanding at most; a request due while this many are outstanding is not sent and"
                    + " counted as \"not sent\" (the service is not keeping up) (default: ${DEFAULT-VALUE})")
    private int maxInFlight;

    /** The measured window, after the warm-up. */
    public Duration duration() {
        return Duration.ofSeconds(durationSeconds);
    }

    /** Load at the same rate before the window, not measured. */
    public Duration warmup() {
        return Duration.ofSeconds(warmupSeconds);
    }

    /** Which brokers, in the order of run 1: {@code ours}, {@code kafka}, or both. */
    public List<String> brokers() {
        return List.copyOf(brokers);
    }

    /** Partitions of the {@code orders} topic. */
    public int partitions() {
        return partitions;
    }

    /**
     * Requests the load generator keeps outstanding at most, so that an overloaded service cannot make the generator
     * open sockets without bound.
     */
    public int maxInFlight() {
        return maxInFlight;
    }
}

package io.orderflow.ops.bench;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * Settings beyond the defaults for either broker, to investigate a gap between them ({@code ops/bin/bench/kafka-perf}
 * and {@code ops/bin/bench/platform}), declared once and mixed into each command line ({@code @Mixin}). Figures taken
 * with any are not the defaults', and the benchmarks' headers say so. Filled by picocli, then only read.
 */
public final class BrokerSettings {

    @Option(
            names = "--our-settings",
            paramLabel = "K=V",
            split = ",",
            converter = Setting.class,
            description = {
                "extra settings for our broker (ops/bin/run-broker --help), to investigate a gap; the figures are then"
                        + " not the default broker's, and the header says so (default: none)",
                "e.g. log.flush.interval.messages=9223372036854775807: acknowledge and expose records before they are"
                        + " fsynced, as Kafka does by default"
            })
    private List<String> ours = new ArrayList<>();

    @Option(
            names = "--kafka-settings",
            paramLabel = "K=V",
            split = ",",
            converter = Setting.class,
            description = {
                "extra lines for Apache Kafka's server.properties (default: none)",
                "e.g. log.flush.interval.messages=1: fsync before acknowledging, as ours does"
            })
    private List<String> kafka = new ArrayList<>();

    /** Extra {@code KEY=VALUE} settings for our broker. */
    public List<String> ours() {
        return List.copyOf(ours);
    }

    /** Extra {@code KEY=VALUE} lines for Apache Kafka's {@code server.properties}. */
    public List<String> kafka() {
        return List.copyOf(kafka);
    }
}
